//! Capability 4's reference search, timed: indexing a Chroma store from its own vectors against
//! embedding the same chunks, and dense queries (the question embedded, then an exact search).
//!
//! ```sh
//! python scripts/make_chroma_store.py bench OUT 5000 768            # in .venv-chroma
//! python crates/vakra-embed/scripts/granite-size-model.py MODEL OUT/words.txt   # torch venv
//! cargo run --release -p vakra-retrieval --example dense_bench -- OUT MODEL [EMBED_CHUNKS]
//! ```
//!
//! OUT is what `make_chroma_store.py bench` writes: `root/documents/` (a store with the
//! collection `bench`, and the same chunks as `bench.jsonl`) and `questions.json`. MODEL is a
//! sentence-transformers folder; the reference's model size class is granite-embedding-english-r2
//! (ModernBERT, 22 layers, hidden 768). EMBED_CHUNKS (default 200) chunks are embedded to time
//! embedding, extrapolated to the whole store; then 200 distinct questions are asked, and asked
//! again (their embeddings kept). Goals: a query ≤ 20 ms median on 2 cores;
//! indexing from stored vectors ≥ 10× faster than embedding.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vakra_catalog::DataRoot;
use vakra_catalog::files::DOCUMENTS;
use vakra_retrieval::{
    BuildOptions, RetrieverOptions, Retrievers, SearchMode, build_indexes, build_indexes_with,
};

fn copy_dir(from: &Path, to: &Path, keep: &dyn Fn(&Path) -> bool) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target, keep)?;
        } else if keep(&entry.path()) {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(model)) = (args.first(), args.get(1)) else {
        return Err("usage: dense_bench OUT MODEL [EMBED_CHUNKS]".into());
    };
    let (out, model) = (PathBuf::from(out), PathBuf::from(model));
    let embed_chunks: usize = args.get(2).map_or(Ok(200), |n| n.parse())?;
    let work = tempfile::tempdir()?;

    // The store's own vectors.
    let stored = work.path().join("stored");
    copy_dir(&out.join("root"), &stored, &|p| {
        p.extension().is_none_or(|e| e != "jsonl")
    })?;
    let started = Instant::now();
    let report = build_indexes(&DataRoot::new(&stored), false)?;
    let from_store = started.elapsed();
    let chunks = report.domains.iter().map(|d| d.documents).sum::<usize>();
    println!(
        "index from stored vectors: {chunks} chunks in {:.3} s ({:.0} chunks/s)",
        from_store.as_secs_f64(),
        chunks as f64 / from_store.as_secs_f64()
    );

    // The same chunks embedded (a prefix, extrapolated).
    let embedded = work.path().join("embedded");
    std::fs::create_dir_all(DOCUMENTS.path(&embedded))?;
    let lines: Vec<String> =
        std::fs::read_to_string(DOCUMENTS.path(&out.join("root")).join("bench.jsonl"))?
            .lines()
            .take(embed_chunks)
            .map(str::to_owned)
            .collect();
    std::fs::write(
        DOCUMENTS.path(&embedded).join("bench.jsonl"),
        lines.join("\n") + "\n",
    )?;
    let started = Instant::now();
    build_indexes_with(
        &DataRoot::new(&embedded),
        &BuildOptions {
            progress: false,
            embedding_model: Some(model.clone()),
        },
    )?;
    let embedding = started.elapsed().as_secs_f64();
    let per_chunk = embedding / lines.len() as f64;
    println!(
        "index by embedding: {} chunks in {embedding:.2} s ({:.1} chunks/s); all {chunks}: ~{:.0} s, {:.0}x the stored-vector index",
        lines.len(),
        1.0 / per_chunk,
        per_chunk * chunks as f64,
        per_chunk * chunks as f64 / from_store.as_secs_f64()
    );

    // Dense queries over the store's vectors.
    let retrievers = Retrievers::open_with(
        &DataRoot::new(&stored),
        RetrieverOptions {
            mode: Some(SearchMode::Dense),
            embedding_model: Some(model),
            ..RetrieverOptions::default()
        },
    )?;
    let questions: Vec<String> =
        serde_json::from_slice(&std::fs::read(out.join("questions.json"))?)?;
    let started = Instant::now();
    retrievers.query("bench", &questions[0], 10)?;
    println!(
        "first query (opens the index): {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let mut times = Vec::with_capacity(questions.len());
    for question in &questions {
        let started = Instant::now();
        let results = retrievers.query("bench", question, 10)?;
        times.push(started.elapsed());
        assert_eq!(results.len(), 10);
    }
    times.sort();
    println!(
        "dense query, {} questions over {chunks} chunks: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        times.len(),
        percentile(&times, 0.5),
        percentile(&times, 0.95),
        percentile(&times, 1.0)
    );
    let mut again = Vec::with_capacity(questions.len());
    for question in &questions {
        let started = Instant::now();
        retrievers.query("bench", question, 10)?;
        again.push(started.elapsed());
    }
    again.sort();
    println!(
        "the same questions again (embeddings kept): p50 {:.2} ms, p95 {:.2} ms",
        percentile(&again, 0.5),
        percentile(&again, 0.95)
    );
    Ok(())
}

//! Indexing throughput and BM25 query latency on a synthetic corpus.
//!
//! ```sh
//! cargo run --release -p vakra-retrieval --example retrieval_bench [-- DOCUMENTS [QUERIES]]
//! ```
//!
//! Writes DOCUMENTS (default 100,000) synthetic chunks of 60–90 Zipf-distributed pseudo-words as
//! a JSONL collection into a temporary data root, builds its index with `build_indexes`
//! (reading the JSONL included) and times QUERIES (default 2,000) three-to-five-word questions
//! through `Retrievers::query` (ranking and reading the ten stored results) and through
//! `Retrievers::call` (plus the MCP text), after timing the first query, which opens the index.
//! Goals: ≥ 20,000 documents/s, query p50 ≤ 1 ms.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::json;
use vakra_catalog::DataRoot;
use vakra_catalog::files::DOCUMENTS;
use vakra_retrieval::{Retrievers, build_indexes};

const VOCABULARY: usize = 20_000;
const SYLLABLES: [&str; 20] = [
    "ka", "lo", "mi", "ra", "tu", "ve", "zo", "ni", "sa", "pe", "do", "gu", "ri", "ta", "bo", "fe",
    "hi", "ju", "ne", "wy",
];

/// xorshift64*: a fixed-seed generator, so every run indexes the same corpus.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn word(mut index: usize) -> String {
    let mut out = String::new();
    loop {
        out.push_str(SYLLABLES[index % SYLLABLES.len()]);
        index /= SYLLABLES.len();
        if index == 0 {
            return out;
        }
    }
}

/// Samples word ranks with probability ∝ 1 / rank.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Self {
        let mut total = 0.0;
        let cumulative = (1..=n)
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Self { cumulative }
    }

    fn sample(&self, rng: &mut Rng) -> usize {
        let target = rng.unit() * self.cumulative.last().copied().unwrap_or(1.0);
        self.cumulative
            .partition_point(|&c| c < target)
            .min(self.cumulative.len() - 1)
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let documents: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(100_000);
    let queries: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(2_000);
    let words: Vec<String> = (0..VOCABULARY).map(word).collect();
    let zipf = Zipf::new(VOCABULARY);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    let dir = tempfile::tempdir()?;
    let root = DataRoot::new(dir.path());
    let documents_dir = DOCUMENTS.path(dir.path());
    std::fs::create_dir_all(&documents_dir)?;
    let corpus = documents_dir.join("bench.jsonl");
    let started = Instant::now();
    let mut file = std::io::BufWriter::new(std::fs::File::create(&corpus)?);
    for i in 0..documents {
        let length = 60 + rng.below(31);
        let body: Vec<&str> = (0..length)
            .map(|_| words[zipf.sample(&mut rng)].as_str())
            .collect();
        let title = format!("Document {i} {}", words[rng.below(VOCABULARY)]);
        let line = json!({
            "id": format!("doc{i}_{i}"),
            "text": format!("{title}\n{}", body.join(" ")),
            "metadata": {"doc_id": format!("doc{i}"), "from_clapnq": false}
        });
        writeln!(file, "{line}")?;
    }
    file.flush()?;
    drop(file);
    let bytes = std::fs::metadata(&corpus)?.len();
    println!(
        "corpus: {documents} documents, {:.1} MB of JSONL, generated in {:.2} s",
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    let report = build_indexes(&root, false)?;
    let seconds = started.elapsed().as_secs_f64();
    let index_bytes: u64 = std::fs::read_dir(root.indexes_dir().join("bench"))?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "index:  {} documents in {seconds:.2} s = {:.0} documents/s (goal >= 20000); {:.1} MB on disk",
        report.domains[0].documents,
        documents as f64 / seconds,
        index_bytes as f64 / 1e6
    );

    let started = Instant::now();
    let retrievers = Retrievers::open(&root)?;
    let opened = started.elapsed();
    let questions: Vec<String> = (0..queries)
        .map(|_| {
            let n = 3 + rng.below(3);
            (0..n)
                .map(|_| {
                    // Half common (Zipf), half uniformly drawn (mostly rare) words.
                    let index = if rng.below(2) == 0 {
                        zipf.sample(&mut rng)
                    } else {
                        rng.below(VOCABULARY)
                    };
                    words[index].as_str()
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    // The first query opens the index (what a freshly started server pays once per domain).
    let started = Instant::now();
    retrievers.query("bench", &questions[0], 10)?;
    let first = started.elapsed();
    println!(
        "open:   Retrievers::open {:.3} ms; first query, opening the index, {:.3} ms",
        opened.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3
    );
    let mut query_times = Vec::with_capacity(queries);
    for question in &questions {
        let started = Instant::now();
        let results = retrievers.query("bench", question, 10)?;
        query_times.push(started.elapsed());
        assert_eq!(results.len(), 10);
    }
    query_times.sort();
    let mut call_times = Vec::with_capacity(queries);
    for question in &questions {
        let arguments = json!({"question": question});
        let arguments = arguments.as_object().cloned().unwrap_or_default();
        let started = Instant::now();
        let (_text, is_error) = retrievers
            .call("bench", "query_bench", &arguments)
            .ok_or("query_bench is not listed")?;
        call_times.push(started.elapsed());
        assert!(!is_error);
    }
    call_times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "query:  {queries} BM25 top-10 queries: p50 {:.3} ms (goal <= 1 ms), p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(percentile(&query_times, 0.5)),
        ms(percentile(&query_times, 0.9)),
        ms(percentile(&query_times, 0.99)),
        ms(percentile(&query_times, 1.0)),
    );
    println!(
        "call:   with the MCP text: p50 {:.3} ms, p99 {:.3} ms",
        ms(percentile(&call_times, 0.5)),
        ms(percentile(&call_times, 0.99)),
    );
    Ok(())
}

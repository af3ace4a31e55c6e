use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use vakra_catalog::DataRoot;
use vakra_retrieval::BuildOptions;

#[derive(Args)]
pub struct IndexArgs {
    /// Data root: documents are read from ROOT/documents/, indexes written to ROOT/indexes/.
    #[arg(long, env = "VAKRA_ROOT", default_value = ".")]
    root: PathBuf,
    /// Embed the documents that come without a vector (JSONL files) with this
    /// sentence-embedding model folder (config.json, tokenizer.json, model.safetensors,
    /// modules.json), for dense search. A Chroma store's own vectors are used as they are.
    #[arg(long = "embedding-model", env = "VAKRA_EMBEDDING_MODEL")]
    embedding_model: Option<PathBuf>,
}

pub fn run(args: IndexArgs) -> anyhow::Result<()> {
    let root = DataRoot::new(&args.root);
    let report = vakra_retrieval::build_indexes_with(
        &root,
        &BuildOptions {
            progress: std::io::stderr().is_terminal(),
            embedding_model: args.embedding_model,
        },
    )?;
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
    let documents: usize = report.domains.iter().map(|d| d.documents).sum();
    let seconds: f64 = report.domains.iter().map(|d| d.seconds).sum();
    let with_vectors = report.domains.iter().filter(|d| d.dense).count();
    let from_store: usize = report.domains.iter().map(|d| d.from_store).sum();
    let embedded = match with_vectors {
        0 => String::new(),
        n => format!(
            " ({n} with document vectors: {from_store} from the Chroma store, {} embedded)",
            report
                .domains
                .iter()
                .filter(|d| d.dense)
                .map(|d| d.documents - d.from_store)
                .sum::<usize>()
        ),
    };
    let skipped = match report.skipped_records {
        0 => String::new(),
        n => format!("; {n} records without text skipped"),
    };
    println!(
        "indexed {} domains, {documents} documents in {seconds:.2} s{embedded}{skipped}",
        report.domains.len()
    );
    Ok(())
}

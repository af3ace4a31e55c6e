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
    /// Also embed every document with this sentence-embedding model folder (config.json,
    /// tokenizer.json, model.safetensors, modules.json) for `--search-mode dense|hybrid`.
    /// Needs the `dense` feature.
    #[arg(long = "embedding-model", env = "VAKRA_EMBEDDING_MODEL")]
    embedding_model: Option<PathBuf>,
}

pub fn run(args: IndexArgs) -> anyhow::Result<()> {
    if args.embedding_model.is_some() {
        crate::require_dense()?;
    }
    let root = DataRoot::new(&args.root);
    let report = vakra_retrieval::build_indexes_with(
        &root,
        &BuildOptions {
            progress: std::io::stderr().is_terminal(),
            dense_model: args.embedding_model,
        },
    )?;
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
    let documents: usize = report.domains.iter().map(|d| d.documents).sum();
    let seconds: f64 = report.domains.iter().map(|d| d.seconds).sum();
    let embedded = if report.domains.iter().any(|d| d.dense) {
        " (with embeddings)"
    } else {
        ""
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

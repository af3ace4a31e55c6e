use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use vakra_catalog::DataRoot;

#[derive(Args)]
pub struct IndexArgs {
    /// Data root: documents are read from ROOT/documents/, indexes written to ROOT/indexes/.
    #[arg(long, env = "VAKRA_ROOT", default_value = ".")]
    root: PathBuf,
}

pub fn run(args: IndexArgs) -> anyhow::Result<()> {
    let root = DataRoot::new(&args.root);
    let report = vakra_retrieval::build_indexes(&root, std::io::stderr().is_terminal())?;
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
    let documents: usize = report.domains.iter().map(|d| d.documents).sum();
    let seconds: f64 = report.domains.iter().map(|d| d.seconds).sum();
    println!(
        "indexed {} domains, {documents} documents in {seconds:.2} s",
        report.domains.len()
    );
    Ok(())
}

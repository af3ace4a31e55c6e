use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use vakra_import::{ImportOptions, import};

#[derive(Args)]
pub struct ImportArgs {
    /// A checkout of the reference repository (IBM/vakra).
    #[arg(long)]
    vakra_repo: PathBuf,
    /// The data root to write.
    #[arg(long)]
    out: PathBuf,
    /// The downloaded benchmark dataset (its data/ folder): databases and documents are linked in.
    #[arg(long)]
    dataset: Option<PathBuf>,
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let report = import(&ImportOptions {
        vakra_repo: args.vakra_repo,
        out: args.out,
        dataset: args.dataset,
        progress: std::io::stderr().is_terminal(),
    })?;
    for missing in &report.unexpressed {
        println!("not expressible: {missing}");
    }
    for missing in &report.missing_data_files {
        println!("not in the checkout (skipped): {missing}");
    }
    println!("{}", report.summary());
    Ok(())
}

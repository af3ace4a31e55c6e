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
    /// Record in the data root which pandas capability 1 reproduces (2 or 3), so that servers
    /// started on it without `--pandas` use it (default: nothing recorded, which means 3).
    #[arg(long, env = crate::PANDAS_ENV, value_parser = crate::parse_pandas)]
    pandas: Option<crate::Pandas>,
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let report = import(&ImportOptions {
        vakra_repo: args.vakra_repo,
        out: args.out.clone(),
        dataset: args.dataset,
        progress: std::io::stderr().is_terminal(),
    })?;
    if let Some(pandas) = args.pandas {
        vakra_chaining::write_root_pandas(&args.out, pandas)?;
    }
    for missing in &report.unexpressed {
        println!("not expressible: {missing}");
    }
    for missing in &report.missing_data_files {
        println!("not in the checkout (skipped): {missing}");
    }
    println!("{}", report.summary());
    Ok(())
}

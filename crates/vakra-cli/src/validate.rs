use std::path::PathBuf;

use clap::Args;
use vakra_eval::validate::{capability_dirs, collect_files, validate_file};

#[derive(Args)]
pub struct ValidateArgs {
    /// Prediction files or folders to check.
    targets: Vec<PathBuf>,
    /// Check every `capability_<N>_*` folder under --output-dir (N: 1–4, as the reference
    /// allows).
    #[arg(short, long, value_parser = clap::value_parser!(u8).range(1..=4))]
    capability: Option<u8>,
    /// Check every `capability_*` folder under --output-dir.
    #[arg(short, long)]
    all: bool,
    /// Where the runner's output folders are.
    #[arg(long = "output-dir", default_value = "output")]
    output_dir: PathBuf,
}

/// Checks prediction files as the reference's `validate_output.py` does; fails (exit 1) on any
/// error or when there is nothing to check.
pub fn run(args: ValidateArgs) -> anyhow::Result<()> {
    let mut targets = args.targets.clone();
    if args.all || args.capability.is_some() {
        targets.extend(capability_dirs(&args.output_dir, args.capability));
    }
    anyhow::ensure!(
        !targets.is_empty(),
        "nothing to validate: give files or folders, --capability N or --all"
    );
    let mut notes = Vec::new();
    let files = collect_files(&targets, &mut notes);
    for note in &notes {
        println!("  Warning: {note}");
    }
    anyhow::ensure!(!files.is_empty(), "no files to validate");
    let mut failed = 0;
    for file in &files {
        let errors = validate_file(file);
        if errors.is_empty() {
            println!("  PASS  {}", file.display());
        } else {
            failed += 1;
            println!("  FAIL  {} ({} errors)", file.display(), errors.len());
            for error in errors {
                println!("        {error}");
            }
        }
    }
    println!("{} files checked, {failed} failed", files.len());
    if failed > 0 {
        std::process::exit(1);
    }
    Ok(())
}

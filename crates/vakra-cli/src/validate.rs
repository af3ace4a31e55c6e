use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use vakra_eval::bundle::AgentInfo;
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
    /// When every file is valid, write the leaderboard submission bundle into this folder:
    /// predictions.zip, metadata.json and submission.md.
    #[arg(long, requires_all = ["agent_name", "maintainer", "models", "description"])]
    bundle: Option<PathBuf>,
    /// Bundle: the agent's name.
    #[arg(long = "agent-name", requires = "bundle")]
    agent_name: Option<String>,
    /// Bundle: the person or team responsible for the agent.
    #[arg(long, requires = "bundle")]
    maintainer: Option<String>,
    /// Bundle: the LLM(s) the agent used (repeatable).
    #[arg(long = "model", id = "models", requires = "bundle")]
    models: Vec<String>,
    /// Bundle: what the agent does.
    #[arg(long, requires = "bundle")]
    description: Option<String>,
    /// Bundle: a JSON object of further metadata (the template's "Metadata (JSON)").
    #[arg(long, requires = "bundle")]
    metadata: Option<PathBuf>,
    /// Bundle: the `vakra eval` report of these predictions, whose scores go into metadata.json.
    #[arg(long, requires = "bundle")]
    report: Option<PathBuf>,
    #[command(flatten)]
    read_limits: crate::input_limits::ReadLimitArgs,
}

/// Checks prediction files as the reference's `validate_output.py` does; fails (exit 1) on any
/// error or when there is nothing to check.
pub fn run(args: ValidateArgs) -> anyhow::Result<()> {
    args.read_limits.install()?;
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
        if args.bundle.is_some() {
            eprintln!("no bundle written: fix the files that failed");
        }
        std::process::exit(1);
    }
    if let Some(out) = &args.bundle {
        bundle(&args, &files, out)?;
    }
    Ok(())
}

/// Writes the submission bundle of validated files.
fn bundle(args: &ValidateArgs, files: &[PathBuf], out: &std::path::Path) -> anyhow::Result<()> {
    let read_json = |path: &PathBuf| -> anyhow::Result<serde_json::Value> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))
    };
    let metadata = match &args.metadata {
        Some(path) => {
            let value = read_json(path)?;
            anyhow::ensure!(
                value.is_object(),
                "--metadata {}: expected a JSON object",
                path.display()
            );
            value
        }
        None => serde_json::json!({}),
    };
    let scores = match &args.report {
        Some(path) => Some(
            vakra_eval::bundle::scores_of(&read_json(path)?)
                .with_context(|| format!("--report {}: not a vakra eval report", path.display()))?,
        ),
        None => None,
    };
    let agent = AgentInfo {
        agent_name: args.agent_name.clone().unwrap_or_default(),
        maintainer: args.maintainer.clone().unwrap_or_default(),
        models: args.models.clone(),
        description: args.description.clone().unwrap_or_default(),
        metadata,
    };
    let written = vakra_eval::bundle::write_bundle(files, out, agent, scores)?;
    println!(
        "bundle written to {}: {} ({} bytes, sha256 {}), metadata.json, submission.md",
        out.display(),
        written.zip.file,
        written.zip.bytes,
        written.zip.sha256
    );
    Ok(())
}

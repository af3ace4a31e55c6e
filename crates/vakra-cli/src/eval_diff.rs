//! `vakra eval diff A.json B.json`: two runs' reports compared (crates/vakra-eval/src/diff.rs).

use std::path::PathBuf;

use clap::Args;

#[derive(Args)]
pub struct DiffArgs {
    /// The report before (e.g. the baseline agent's).
    a: PathBuf,
    /// The report after.
    b: PathBuf,
    /// Also write the comparison as an HTML page here.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Also write the comparison as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also write the comparison as Markdown here.
    #[arg(long)]
    markdown: Option<PathBuf>,
}

pub fn run(args: DiffArgs) -> anyhow::Result<()> {
    let a = vakra_eval::diff::read_report(&args.a)?;
    let b = vakra_eval::diff::read_report(&args.b)?;
    let diff = vakra_eval::diff::diff(
        &args.a.display().to_string(),
        &a,
        &args.b.display().to_string(),
        &b,
    );
    if let Some(path) = &args.json {
        crate::eval_report::write(path, &(serde_json::to_string_pretty(&diff)? + "\n"))?;
    }
    if let Some(path) = &args.html {
        crate::eval_report::write(path, &vakra_eval::render::diff_html(&diff))?;
    }
    if let Some(path) = &args.markdown {
        crate::eval_report::write(path, &vakra_eval::render::diff_markdown(&diff))?;
    }
    print!("{}", vakra_eval::render::diff_text(&diff));
    Ok(())
}

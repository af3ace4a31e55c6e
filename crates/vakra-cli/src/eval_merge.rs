//! `vakra eval merge`: the reports of a sharded run (`vakra eval --shard I/N`) joined into the
//! report of the whole run (see `vakra_eval::merge` for what may differ).

use std::path::PathBuf;

use clap::Args;

#[derive(Args)]
pub struct MergeArgs {
    /// The JSON reports of all shards of one run, in any order.
    #[arg(required = true, num_args = 1..)]
    reports: Vec<PathBuf>,
    /// Where to write the merged JSON report.
    #[arg(long)]
    report: PathBuf,
    /// Also write a Markdown summary here.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Also write an HTML report here.
    #[arg(long)]
    html: Option<PathBuf>,
}

pub fn run(args: MergeArgs) -> anyhow::Result<()> {
    let mut reports = Vec::with_capacity(args.reports.len());
    for path in &args.reports {
        reports.push(crate::eval_report::read(path)?);
    }
    let merged = vakra_eval::merge(reports)?;
    crate::eval_report::publish(
        &merged,
        &args.report,
        args.markdown.as_deref(),
        args.html.as_deref(),
    )
}

use std::path::PathBuf;

use clap::{Args, Subcommand};
use vakra_eval::EvalConfig;

use crate::DataArgs;
use crate::eval_report::publish;

/// `vakra eval`: an evaluation run (its options given directly), or a subcommand on reports.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct EvalCli {
    #[command(subcommand)]
    command: Option<EvalCommand>,
    #[command(flatten)]
    run: EvalArgs,
}

/// The subcommands of `vakra eval`; one module each.
#[derive(Subcommand)]
enum EvalCommand {
    /// Compare two reports: verdicts that changed, per-capability and per-domain score deltas,
    /// error categories that moved.
    Diff(crate::eval_diff::DiffArgs),
    /// Runs side by side: one HTML page (and Markdown) with each run's score and interval, per
    /// capability and domain, tokens, cost, latency and a cost–score plot.
    Board(crate::eval_board::BoardArgs),
    /// Join the reports of a sharded run (`--shard I/N`) into the report of the whole run.
    Merge(crate::eval_merge::MergeArgs),
}

pub fn main(cli: EvalCli) -> anyhow::Result<()> {
    match cli.command {
        Some(EvalCommand::Diff(args)) => crate::eval_diff::run(args),
        Some(EvalCommand::Board(args)) => crate::eval_board::run(args),
        Some(EvalCommand::Merge(args)) => crate::eval_merge::run(args),
        None => run(cli.run),
    }
}

#[derive(Args)]
pub struct EvalArgs {
    /// Predictions: a folder of `capability_<n>_<name>/<domain>.json` (submission format, or
    /// ground-truth output records), or one file holding every record (as `vakra validate`
    /// takes it).
    #[arg(long, required = true)]
    predictions: Option<PathBuf>,
    /// Ground truth: a split folder, `capability_<n>_<name>/{input,output}/<domain>.json`.
    #[arg(long = "ground-truth", required = true)]
    ground_truth: Option<PathBuf>,
    /// Where to write the JSON report.
    #[arg(long, required = true)]
    report: Option<PathBuf>,
    /// Also write a Markdown summary here.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Also write an HTML report here: the summary and every sample's story (implies
    /// --include-responses).
    #[arg(long)]
    html: Option<PathBuf>,
    /// Only these capabilities (1–4; repeatable).
    #[arg(long = "capability")]
    capabilities: Vec<u8>,
    /// Only these domains (repeatable).
    #[arg(long = "domain")]
    domains: Vec<String>,
    #[command(flatten)]
    server: crate::connect::ServerArgs,
    #[command(flatten)]
    judge: crate::judge_args::JudgeArgs,
    /// Samples evaluated at once.
    #[arg(long, default_value_t = 8)]
    jobs: usize,
    /// Write each sample's compared tool responses (both sides, scored turn) into the report.
    #[arg(long = "include-responses")]
    include_responses: bool,
    /// Price per million input tokens, for the cost of runs whose records carry token counts
    /// (default: the predictions folder's run.json, as `vakra run --price-in` wrote it).
    #[arg(long = "price-in", requires = "price_out")]
    price_in: Option<f64>,
    /// Price per million output tokens.
    #[arg(long = "price-out", requires = "price_in")]
    price_out: Option<f64>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Evaluate one shard of the samples, I/N (I from 0, as Kubernetes' JOB_COMPLETION_INDEX):
    /// those whose uuid hashes to I; `vakra eval merge` joins the N reports.
    #[arg(long)]
    shard: Option<vakra_records::Shard>,
    /// Trials of one sample scored; further trials of it are problems of the report.
    #[arg(long = "max-trials", default_value_t = vakra_eval::evaluate::DEFAULT_MAX_TRIALS)]
    max_trials: usize,
    #[command(flatten)]
    read_limits: crate::input_limits::ReadLimitArgs,
    #[command(flatten)]
    shown_limit: crate::input_limits::ShownLimitArg,
    #[command(flatten)]
    data: DataArgs,
}

fn run(args: EvalArgs) -> anyhow::Result<()> {
    // Required by clap unless a subcommand is given.
    let (Some(ground_truth), Some(given_predictions), Some(report_path)) =
        (&args.ground_truth, &args.predictions, &args.report)
    else {
        anyhow::bail!("--ground-truth, --predictions and --report are required");
    };
    anyhow::ensure!(args.max_trials > 0, "--max-trials must be at least 1");
    args.read_limits.install()?;
    args.shown_limit.install();
    anyhow::ensure!(
        ground_truth.is_dir(),
        "--ground-truth {}: not a folder",
        ground_truth.display()
    );
    crate::predictions_file::warn_if_ground_truth(given_predictions, ground_truth);
    // One combined file (as `vakra validate` takes) is laid out as folders first.
    let combined = if given_predictions.is_file() {
        Some(crate::predictions_file::lay_out(
            given_predictions,
            ground_truth,
        )?)
    } else {
        None
    };
    let predictions = combined
        .as_ref()
        .map_or_else(|| given_predictions.clone(), |dir| dir.path().to_owned());
    anyhow::ensure!(
        predictions.is_dir(),
        "--predictions {}: neither a folder nor a prediction file",
        given_predictions.display()
    );
    for capability in &args.capabilities {
        anyhow::ensure!(
            (1..=4).contains(capability),
            "--capability must be 1, 2, 3 or 4"
        );
    }
    let options = args.data.options()?;
    let root = options.root.path().to_owned();
    let connector = args.server.connector(options)?;
    // The HTML report shows every sample's responses.
    let include_responses = args.include_responses || args.html.is_some();
    let config = EvalConfig {
        ground_truth: ground_truth.clone(),
        predictions,
        capabilities: args.capabilities.clone(),
        domains: args.domains.clone(),
        judging: args
            .judge
            .judging(connector, &root, args.data.fix_quirks, include_responses)?,
        jobs: args.jobs.max(1),
        progress: !args.quiet,
        prices: prices(&args)?,
        shard: args.shard,
        max_trials: args.max_trials,
    };
    let runtime = crate::runtime::build(None)?;
    let report = runtime.block_on(vakra_eval::run(config));
    crate::runtime::close(runtime);
    anyhow::ensure!(
        report.timing.samples > 0 || !report.capabilities.is_empty(),
        "no ground-truth samples under {} (expected capability_<n>_<name>/output/<domain>.json)",
        ground_truth.display()
    );
    publish(
        &report,
        report_path,
        args.markdown.as_deref(),
        args.html.as_deref(),
    )
}

/// Token prices: the flags, or those a `vakra run` recorded in the predictions' run.json.
fn prices(args: &EvalArgs) -> anyhow::Result<Option<(f64, f64)>> {
    if let Some(prices) = args.price_in.zip(args.price_out) {
        anyhow::ensure!(
            prices.0.is_finite() && prices.0 >= 0.0 && prices.1.is_finite() && prices.1 >= 0.0,
            "prices must be non-negative numbers"
        );
        return Ok(Some(prices));
    }
    let Some(Ok(text)) = args
        .predictions
        .as_ref()
        .map(|dir| vakra_records::records::read_text(&dir.join("run.json")))
    else {
        return Ok(None);
    };
    let run: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let price = |key: &str| run["prices_per_million_tokens"][key].as_f64();
    Ok(price("input").zip(price("output")))
}

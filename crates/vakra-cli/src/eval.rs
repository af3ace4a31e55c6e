use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};
use vakra_eval::EvalConfig;
use vakra_eval::judges::GroundednessMode;
use vakra_eval::judges::exact::{ExactMode, Normalization};
use vakra_eval::judges::llm::{LlmClient, LlmConfig, Prompts};

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
    /// Join the reports of a sharded run (`--shard I/N`) into the report of the whole run.
    Merge(crate::eval_merge::MergeArgs),
}

pub fn main(cli: EvalCli) -> anyhow::Result<()> {
    match cli.command {
        Some(EvalCommand::Diff(args)) => crate::eval_diff::run(args),
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
    /// How tool responses are compared: reference (the reference's string membership) or
    /// normalized (parsed values, order-invariant, numeric tolerance, field exclusions).
    #[arg(long = "exact-match", default_value = "reference")]
    exact_match: ExactMode,
    /// Normalized mode: fields left out of the comparison (repeatable; default: handle).
    #[arg(long = "ignore-field")]
    ignore_fields: Vec<String>,
    /// Normalized mode: relative tolerance for numbers.
    #[arg(long, default_value_t = 1e-6)]
    tolerance: f64,
    /// Run the policy judge on `additional_instructions` (the reference has none).
    #[arg(long = "policy-judge")]
    policy_judge: bool,
    /// Category → retriever domains for the policy judge (default:
    /// ROOT/retrievers/policy_categories.json when present).
    #[arg(long = "policy-categories")]
    policy_categories: Option<PathBuf>,
    /// OpenAI-compatible base URL of the judge LLM (…/v1). Without it answers are checked by
    /// the deterministic answer match. The reference uses https://api.groq.com/openai/v1.
    #[arg(long = "judge-url", env = "VAKRA_JUDGE_URL")]
    judge_url: Option<String>,
    /// The judge model.
    #[arg(
        long = "judge-model",
        env = "VAKRA_JUDGE_MODEL",
        default_value = "openai/gpt-oss-120b"
    )]
    judge_model: String,
    /// The environment variable holding the judge's API key (the reference reads API_KEY).
    #[arg(long = "judge-api-key-env", default_value = "API_KEY")]
    judge_api_key_env: String,
    /// The groundedness judge: llm (needs --judge-url) or deterministic (the answer's numbers,
    /// dates, yes/no and names must be in the prediction's own tool responses). Default: llm
    /// with --judge-url, else deterministic.
    #[arg(long)]
    groundedness: Option<GroundednessMode>,
    /// Seconds before a judge request is given up.
    #[arg(long = "judge-timeout-secs", default_value_t = 120)]
    judge_timeout_secs: u64,
    /// Legacy operation id → tool name maps (default: ROOT/mappings/all_operation_id_mappings.json,
    /// which `vakra import` copies, when present).
    #[arg(long = "operation-id-map")]
    operation_id_map: Option<PathBuf>,
    /// Samples evaluated at once.
    #[arg(long, default_value_t = 8)]
    jobs: usize,
    /// Seconds a replayed call (or opening a session) may take.
    #[arg(long = "call-timeout-secs", default_value = "60", value_parser = crate::parse_seconds,
          allow_negative_numbers = true)]
    call_timeout_secs: Duration,
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
    shard: Option<vakra_eval::Shard>,
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
    let llm = match &args.judge_url {
        Some(url) => Some(
            LlmClient::new(LlmConfig {
                base_url: url.clone(),
                model: args.judge_model.clone(),
                api_key: std::env::var(&args.judge_api_key_env)
                    .ok()
                    .filter(|k| !k.is_empty()),
                timeout: Duration::from_secs(args.judge_timeout_secs.max(1)),
                retries: 2,
                lenient_json: args.data.fix_quirks,
            })
            .map_err(anyhow::Error::msg)?,
        ),
        None => None,
    };
    let groundedness = match (args.groundedness, &llm) {
        (Some(GroundednessMode::Llm), None) => {
            anyhow::bail!("--groundedness llm needs an LLM judge (--judge-url)")
        }
        (Some(mode), _) => mode,
        (None, Some(_)) => GroundednessMode::Llm,
        (None, None) => GroundednessMode::Deterministic,
    };
    let mut normalization = Normalization {
        tolerance: args.tolerance,
        ..Normalization::default()
    };
    if !args.ignore_fields.is_empty() {
        normalization.excluded_fields = args.ignore_fields.clone();
    }
    let config = EvalConfig {
        ground_truth: ground_truth.clone(),
        predictions,
        capabilities: args.capabilities.clone(),
        domains: args.domains.clone(),
        connector,
        exact_mode: args.exact_match,
        normalization,
        policy_judge: args.policy_judge,
        policy_categories: policy_categories(args.policy_categories.as_deref(), &root)?,
        llm,
        groundedness,
        prompts: Prompts::load(&root).map_err(anyhow::Error::msg)?,
        legacy_operation_ids: operation_ids(args.operation_id_map.as_deref(), &root)?,
        jobs: args.jobs.max(1),
        call_timeout: args.call_timeout_secs,
        fix_quirks: args.data.fix_quirks,
        progress: !args.quiet,
        // The HTML report shows every sample's responses.
        include_responses: args.include_responses || args.html.is_some(),
        prices: prices(&args)?,
        shard: args.shard,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(vakra_eval::run(config));
    // Calls the replay gave up on may still run on blocking threads: they must not hold the
    // exit once the report is written.
    runtime.shutdown_background();
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

fn policy_categories(
    given: Option<&Path>,
    root: &Path,
) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    let default = root.join("retrievers/policy_categories.json");
    let path = match given {
        Some(path) => path.to_owned(),
        None if default.exists() => default,
        None => return Ok(BTreeMap::new()),
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: expected {{\"<category>\": [\"<domain>\", …]}}",
            path.display()
        )
    })
}

fn operation_ids(given: Option<&Path>, root: &Path) -> anyhow::Result<HashMap<String, String>> {
    let default = root.join("mappings/all_operation_id_mappings.json");
    match given {
        Some(path) => vakra_eval::read_operation_id_map(path).map_err(anyhow::Error::msg),
        None if default.exists() => {
            vakra_eval::read_operation_id_map(&default).map_err(anyhow::Error::msg)
        }
        None => Ok(HashMap::new()),
    }
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
        .map(|dir| std::fs::read_to_string(dir.join("run.json")))
    else {
        return Ok(None);
    };
    let run: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let price = |key: &str| run["prices_per_million_tokens"][key].as_f64();
    Ok(price("input").zip(price("output")))
}

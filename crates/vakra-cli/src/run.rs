//! `vakra run`: the benchmark's agent on any OpenAI-compatible model (see `vakra-runner`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use vakra_chat::{ChatClient, ChatConfig, RetryPolicy};
use vakra_eval::comparability::{Comparability, Shortlist};
use vakra_runner::langchain::ToolSchemas;
use vakra_runner::{Prompts, Ranker, RunPlan, Setup};

use crate::DataArgs;
use crate::connect::ServerArgs;

#[derive(Args)]
pub struct RunArgs {
    /// The split: `capability_<n>_<name>/input/<domain>.json` files (e.g. demo/tasks).
    #[arg(long)]
    input: PathBuf,
    /// The output folder: `capability_<n>_<name>/<domain>.json` predictions, tools logs,
    /// trajectories and run.json. Running again into the same folder resumes.
    #[arg(long)]
    out: PathBuf,
    /// The model's OpenAI-compatible API base, e.g. http://127.0.0.1:8000/v1.
    #[arg(long = "model-url", env = "VAKRA_MODEL_URL")]
    model_url: String,
    /// The model name sent with every request.
    #[arg(long, env = "VAKRA_MODEL")]
    model: String,
    /// The environment variable holding the API key (none needed for local servers).
    #[arg(long = "api-key-env", default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    /// Only these capabilities (1–4; repeatable).
    #[arg(long = "capability")]
    capabilities: Vec<u8>,
    /// Only these domains (repeatable).
    #[arg(long = "domain")]
    domains: Vec<String>,
    /// The first N samples of each domain.
    #[arg(long = "max-samples-per-domain")]
    max_samples_per_domain: Option<usize>,
    /// Samples in flight at once (one MCP session each).
    #[arg(long, default_value_t = 4)]
    jobs: usize,
    /// Seconds one sample may take (the reference's AGENT_TIMEOUT_SECONDS).
    #[arg(long, default_value = "300", value_parser = crate::parse_seconds,
          allow_negative_numbers = true)]
    timeout: Duration,
    /// Model requests per sample at most (13: LangGraph's default recursion limit of 25).
    #[arg(long = "max-steps", default_value_t = 13)]
    max_steps: usize,
    /// Offer the model at most this many tools, chosen per question (0: all).
    #[arg(long = "top-k-tools", default_value_t = 128)]
    top_k_tools: usize,
    /// How the shortlist ranks tools: `embeddings` (the reference's: all-MiniLM-L6-v2 cosine
    /// similarity) or `bm25` (no model; not the reference's ranking, so not leaderboard-comparable).
    #[arg(long, value_enum, default_value = "embeddings")]
    shortlist: ShortlistArg,
    /// The all-MiniLM-L6-v2 folder (sentence-transformers layout). Default: the folder
    /// VAKRA_SHORTLIST_MODEL names, else the Hugging Face cache, else a download from the hub
    /// into that cache, when a domain first needs a shortlist.
    #[arg(long = "shortlist-model")]
    shortlist_model: Option<PathBuf>,
    /// The tool definitions sent to the model: `reference` (what the reference's runner sends,
    /// through LangChain and pydantic: leaderboard-comparable) or `mcp` (the servers' input
    /// schemas as listed, enums and constraints included: not comparable). Default: reference,
    /// or mcp with --fix-quirks.
    #[arg(long = "tool-schemas", value_enum)]
    tool_schemas: Option<ToolSchemasArg>,
    /// Run every sample K times (the trial index is in each record).
    #[arg(long, default_value_t = 1)]
    trials: u32,
    /// Sampling temperature sent to the model.
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// Seconds one model request may take.
    #[arg(long = "request-timeout-secs", default_value = "300", value_parser = crate::parse_seconds,
          allow_negative_numbers = true)]
    request_timeout: Duration,
    /// Retries of a model request after HTTP 429, 5xx or a connection failure.
    #[arg(long = "max-retries", default_value_t = 5)]
    max_retries: u32,
    /// Seconds one MCP call (or opening a session) may take.
    #[arg(long = "call-timeout-secs", default_value = "60", value_parser = crate::parse_seconds,
          allow_negative_numbers = true)]
    call_timeout: Duration,
    /// Run again the samples whose earlier record says `error`.
    #[arg(long = "retry-errors")]
    retry_errors: bool,
    /// Price per million input tokens (for the cost in the summary).
    #[arg(long = "price-in", requires = "price_out")]
    price_in: Option<f64>,
    /// Price per million output tokens.
    #[arg(long = "price-out", requires = "price_in")]
    price_out: Option<f64>,
    /// Run one shard of the samples, I/N (I from 0, as Kubernetes' JOB_COMPLETION_INDEX); a
    /// sample's shard is the one `vakra eval --shard` gives it.
    #[arg(long, env = "VAKRA_SHARD")]
    shard: Option<vakra_records::Shard>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    server: ServerArgs,
    #[command(flatten)]
    data: DataArgs,
}

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
enum ShortlistArg {
    Embeddings,
    Bm25,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ToolSchemasArg {
    Reference,
    Mcp,
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    for capability in &args.capabilities {
        anyhow::ensure!(
            (1..=4).contains(capability),
            "--capability must be 1, 2, 3 or 4"
        );
    }
    anyhow::ensure!(args.trials >= 1, "--trials must be at least 1");
    anyhow::ensure!(args.max_steps >= 1, "--max-steps must be at least 1");
    for price in [args.price_in, args.price_out].into_iter().flatten() {
        anyhow::ensure!(
            price.is_finite() && price >= 0.0,
            "prices must be non-negative numbers"
        );
    }
    anyhow::ensure!(
        args.temperature.is_finite() && args.temperature >= 0.0,
        "--temperature must be a non-negative number"
    );
    anyhow::ensure!(
        args.input.is_dir(),
        "--input {}: not a folder (expected capability_<n>_<name>/input/<domain>.json)",
        args.input.display()
    );
    let options = args.data.options()?;
    let root = options.root.path().to_owned();
    let in_process = args.server.server_command.is_none() && args.server.server_url.is_none();
    let pandas = in_process.then(|| options.pandas.release().to_owned());
    // Capability 4's ranking is settled (and its model found) before any sample runs, so that
    // its warning comes first and the run's record says which ranking answered.
    let search = (in_process && (args.capabilities.is_empty() || args.capabilities.contains(&4)))
        .then(|| options.retrievers())
        .and_then(|opened| match opened {
            Ok(retrievers) => Some(retrievers.search_setup().label()),
            // A data root without capability 4's files: its samples say why when they run.
            Err(e) => {
                tracing::debug!("capability 4's retrievers: {e}");
                None
            }
        });
    let connector = args.server.connector(options)?;
    let ranker = ranker(args.shortlist, args.shortlist_model.clone())?;
    let embeddings = match &ranker {
        Ranker::Embeddings(embeddings) => Some(std::sync::Arc::clone(embeddings)),
        Ranker::Bm25 => None,
    };
    let shortlist_method = ranker.method();
    let chat = ChatClient::new(ChatConfig {
        base_url: args.model_url.clone(),
        model: args.model.clone(),
        api_key: std::env::var(&args.api_key_env)
            .ok()
            .filter(|k| !k.is_empty()),
        temperature: Some(args.temperature),
        request_timeout: args.request_timeout,
        retry: RetryPolicy {
            max_retries: args.max_retries,
            ..RetryPolicy::default()
        },
        max_answer_bytes: 16 << 20,
    });
    let prompts = Prompts::load(&root).map_err(anyhow::Error::msg)?;
    let prompts_source = if prompts.source == Prompts::builtin().source {
        "built-in"
    } else {
        "imported"
    };
    if prompts_source == "built-in" {
        tracing::warn!(
            "{} has no runner/prompts.json: the model gets this project's prompts, not the \
             reference's (`vakra import` copies them); the run is not leaderboard-comparable",
            root.display()
        );
    }
    let tool_schemas = match (args.tool_schemas, args.data.fix_quirks) {
        (Some(ToolSchemasArg::Reference), _) | (None, false) => ToolSchemas::Reference,
        (Some(ToolSchemasArg::Mcp), _) | (None, true) => ToolSchemas::Mcp,
    };
    let setup = Setup {
        chat,
        connector,
        prompts,
        ranker,
        top_k_tools: args.top_k_tools,
        timeout: args.timeout,
        max_steps: args.max_steps,
        call_timeout: args.call_timeout,
        fix_quirks: args.data.fix_quirks,
        tool_schemas,
    };
    let plan = RunPlan {
        split: args.input.clone(),
        out: args.out.clone(),
        capabilities: args.capabilities.clone(),
        domains: args.domains.clone(),
        max_samples_per_domain: args.max_samples_per_domain,
        shard: args.shard,
        trials: args.trials,
        jobs: args.jobs,
        retry_errors: args.retry_errors,
        prices: args.price_in.zip(args.price_out),
        progress: !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    let runtime = crate::runtime::build(None)?;
    let summary = runtime.block_on(vakra_runner::run(plan, setup));
    crate::runtime::close(runtime);
    let summary = summary?;
    let model = embeddings.as_ref().and_then(|e| e.loaded().cloned());
    let comparability = Comparability::new(
        tool_schemas.name(),
        Shortlist {
            method: shortlist_method.into(),
            top_k: args.top_k_tools,
            model: model.as_ref().map(|m| m.model.clone()),
            model_hash: model.map(|m| m.hash),
        },
        prompts_source,
        args.data.fix_quirks,
        search,
        pandas,
    );
    if !comparability.leaderboard_comparable {
        eprintln!("note: this run is {}", comparability.summary());
    }
    let run_file = args.out.join("run.json");
    let record = serde_json::json!({
        "model": args.model,
        "model_url": args.model_url,
        "input": args.input,
        "trials": args.trials,
        "prices_per_million_tokens": args.price_in.zip(args.price_out)
            .map(|(i, o)| serde_json::json!({"input": i, "output": o})),
        "comparability": comparability,
        "summary": summary,
    });
    std::fs::write(&run_file, serde_json::to_string_pretty(&record)? + "\n")
        .with_context(|| format!("cannot write {}", run_file.display()))?;
    for skipped in &summary.skipped_records {
        eprintln!("skipped: {skipped}");
    }
    println!(
        "{} samples run ({} succeeded, {} failed), {} already done; tokens {} in, {} out{}; {:.1} s",
        summary.ran,
        summary.succeeded,
        summary.failed,
        summary.already_done,
        summary.usage.input_tokens,
        summary.usage.output_tokens,
        summary
            .cost_usd
            .map(|c| format!("; cost ${c:.4} (whole output folder)"))
            .unwrap_or_default(),
        summary.wall_s
    );
    println!("predictions in {}", args.out.display());
    anyhow::ensure!(
        !summary.interrupted,
        "interrupted: finished samples are saved; run the same command again to resume"
    );
    Ok(())
}

fn ranker(method: ShortlistArg, model: Option<PathBuf>) -> anyhow::Result<Ranker> {
    if method == ShortlistArg::Bm25 {
        anyhow::ensure!(
            model.is_none(),
            "--shortlist-model goes with --shortlist embeddings"
        );
        tracing::warn!(
            "--shortlist bm25: domains with more tools than --top-k-tools get another shortlist \
             than the reference's; the run is not leaderboard-comparable"
        );
        return Ok(Ranker::Bm25);
    }
    let explicit = model.is_some();
    let embeddings = std::sync::Arc::new(vakra_runner::shortlist::Embeddings::new(model));
    if explicit {
        embeddings.load().map_err(anyhow::Error::msg)?;
    }
    Ok(Ranker::Embeddings(embeddings))
}

//! `vakra`: the VAKRA benchmark environment as one program.
//!
//! This crate only parses the command line and wires the library crates together; each
//! subcommand lives in its own module.

mod connect;
mod episodes;
mod eval;
mod eval_board;
mod eval_diff;
mod eval_merge;
mod eval_report;
mod import;
mod index;
mod input_limits;
mod judge_args;
mod logging;
mod mcp;
mod predictions_file;
mod run;
mod runtime;
mod serve;
mod serve_guard;
mod tools;
mod trace;
mod validate;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use vakra_catalog::DataRoot;
use vakra_chaining::{PANDAS_ENV, Pandas};
use vakra_mcp::ServerOptions;
use vakra_retrieval::{RetrieverOptions, SearchMode};

/// mimalloc rather than glibc's malloc: the servers allocate many short-lived JSON values from
/// many threads, where glibc's malloc took about a third of the RL episodes' CPU time
/// (docs/benchmarks.md, "RL episodes").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "vakra",
    version,
    about = "The VAKRA benchmark environment: REST-BIRD and MCP tool servers"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Turn a reference checkout (and optionally a downloaded dataset) into a data root.
    Import(import::ImportArgs),
    /// Build the document-search indexes of a data root (capability 4).
    Index(index::IndexArgs),
    /// Serve REST-BIRD over HTTP (with /openapi.json) and every MCP server over streamable HTTP;
    /// with --episodes, reinforcement-learning episodes over OpenEnv's protocol.
    Serve(Box<serve::ServeArgs>),
    /// Serve one MCP session over stdio, as the reference's dispatcher does.
    Mcp(mcp::McpArgs),
    /// Inspect the tools a data root offers.
    Tools(tools::ToolsArgs),
    /// Convert session traces (`--trace`) into the benchmark's prediction format.
    Trace(trace::TraceArgs),
    /// Score predictions: replay them and the ground truth against the servers, judge, report;
    /// or work with reports (`vakra eval diff`).
    Eval(Box<eval::EvalCli>),
    /// Check prediction files against the submission schema.
    Validate(validate::ValidateArgs),
    /// Run a model (any OpenAI-compatible endpoint) on a split: the benchmark's predictions.
    Run(Box<run::RunArgs>),
}

/// Where the data is and how to treat the reference's quirks; shared by the server commands.
#[derive(Args, Clone)]
struct DataArgs {
    /// Data root (catalogs in openapi/, databases in databases/).
    #[arg(long, env = "VAKRA_ROOT", default_value = ".")]
    root: PathBuf,
    /// Database root: <DBS>/<domain>/<domain>.sqlite (default: ROOT/databases).
    #[arg(long = "db-root", env = "MCP_DB_ROOT")]
    db_root: Option<PathBuf>,
    /// Fix the reference's agent-visible bugs (exact domain filter, …) instead of reproducing them.
    #[arg(long, env = "VAKRA_FIX_QUIRKS")]
    fix_quirks: bool,
    /// Per-statement SQL time limit in seconds.
    #[arg(long, default_value = "30", value_parser = parse_seconds, allow_negative_numbers = true)]
    sql_time_limit: Duration,
    /// Per-tool-call time limit in seconds (its wait behind the session's earlier calls
    /// included); a call still running is stopped and answered with an error.
    #[arg(long, default_value = "30", value_parser = parse_seconds, allow_negative_numbers = true)]
    call_time_limit: Duration,
    /// Capability 1's server class: router (the benchmark's), slot_filling or selection.
    #[arg(
        long = "server-type",
        env = "MCP_SERVER_TYPE",
        default_value = "router"
    )]
    server_type: String,
    /// Capability 1: the pandas whose semantics the tools reproduce, 3 (3.1.1, what the
    /// reference installs today) or 2 (2.3.3); default: the data root's (`vakra import
    /// --pandas`), else 3.
    #[arg(long, env = PANDAS_ENV, value_parser = parse_pandas)]
    pandas: Option<Pandas>,
    /// Capability 1: the most table data (MiB) one session may keep under handles.
    #[arg(long = "session-memory-mib", default_value_t = 2048)]
    session_memory_mib: usize,
    /// MCP sessions over HTTP idle this many seconds are closed.
    #[arg(long = "session-idle-secs", default_value_t = 1800)]
    session_idle_secs: u64,
    /// The longest tool result (bytes of text) sent to an agent; a longer one is replaced by an
    /// error saying so.
    #[arg(long = "max-result-bytes", default_value_t = 32 << 20)]
    max_result_bytes: usize,
    #[command(flatten)]
    search: SearchArgs,
}

/// How capability 4 ranks documents; shared by the server commands.
#[derive(Args, Clone)]
struct SearchArgs {
    /// Capability 4's ranking. `auto`: the reference's — the nearest document vectors (the
    /// Chroma store's own) to the question's embedding — wherever the indexes hold vectors and
    /// the embedding model can be had, else BM25 with a warning; or bm25, dense, or hybrid
    /// (BM25 fused with dense).
    #[arg(
        long = "search-mode",
        env = "VAKRA_SEARCH_MODE",
        default_value = "auto"
    )]
    search_mode: SearchChoice,
    /// The embedding model's folder (the reference's is ibm-granite/granite-embedding-english-r2);
    /// else the folder VAKRA_EMBEDDING_MODEL names, the Hugging Face cache, or a download from
    /// the hub on first use (HF_ENDPOINT; none with HF_HUB_OFFLINE=1).
    #[arg(long = "embedding-model")]
    embedding_model: Option<PathBuf>,
}

/// `--search-mode`: `auto` or a mode.
#[derive(Debug, Clone, Copy)]
struct SearchChoice(Option<SearchMode>);

impl std::str::FromStr for SearchChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(Self(None));
        }
        s.parse()
            .map(|mode| Self(Some(mode)))
            .map_err(|e: String| e.replace("(expected ", "(expected auto, "))
    }
}

impl SearchArgs {
    /// The retriever options (the ranking is settled when the retrievers open).
    fn options(&self) -> RetrieverOptions {
        RetrieverOptions {
            mode: self.search_mode.0,
            embedding_model: self.embedding_model.clone(),
            base_url: std::env::var("RETRIEVER_BASE_URL")
                .unwrap_or_else(|_| vakra_retrieval::DEFAULT_BASE_URL.into()),
        }
    }
}

/// `--trace DIR`, shared by the commands that serve MCP sessions.
#[derive(Args, Clone)]
struct TraceDirArg {
    /// Write one JSONL trace per MCP session into DIR (created if missing; see docs/traces.md).
    #[arg(long = "trace", value_name = "DIR")]
    trace: Option<PathBuf>,
    /// The most call text one session's trace holds (bytes); later calls are not recorded.
    #[arg(long = "trace-max-session-bytes", default_value_t = 64 << 20)]
    trace_max_session_bytes: u64,
    /// The most call text all traces of this process hold (bytes).
    #[arg(long = "trace-max-total-bytes", default_value_t = 4 << 30)]
    trace_max_total_bytes: u64,
}

impl TraceDirArg {
    /// Creates the directory and records it in the server options.
    fn apply(&self, options: &mut ServerOptions) -> anyhow::Result<()> {
        if let Some(dir) = &self.trace {
            std::fs::create_dir_all(dir).map_err(|e| {
                anyhow::anyhow!(
                    "--trace {}: cannot create the directory: {e}",
                    dir.display()
                )
            })?;
            options.trace_dir = Some(dir.clone());
            options.trace_limits = vakra_mcp::TraceLimits::new(
                self.trace_max_session_bytes,
                self.trace_max_total_bytes,
            );
        }
        Ok(())
    }
}

/// A positive, finite number of seconds that a `Duration` can hold, for time-limit flags
/// (`Duration::from_secs_f64` panics on the others).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(format!("{text} is not a positive number of seconds"));
    }
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("{text} seconds is more than a time limit can hold"))
}

/// `--pandas` / `VAKRA_PANDAS`: 2 or 3.
pub(crate) fn parse_pandas(text: &str) -> Result<Pandas, String> {
    text.parse::<Pandas>().map_err(|e| e.to_string())
}

impl DataArgs {
    /// Refuses to start in the current folder (no `--root`) when it holds no data at all (no
    /// REST catalogs, capability-1 or BPO files). A root given explicitly is checked by what
    /// reads it, with errors naming the missing file.
    fn require_data_root(&self) -> anyhow::Result<()> {
        if self.root != std::path::Path::new(".") {
            return Ok(());
        }
        anyhow::ensure!(
            DataRoot::new(&self.root).holds_data(),
            "{} is not a data root: it has no {}. \
             Start the server in a data root, or pass --root DIR (or set VAKRA_ROOT); \
             `vakra import` makes one, and the repository itself is one with the demo domains",
            std::path::absolute(&self.root)
                .unwrap_or_else(|_| self.root.clone())
                .display(),
            DataRoot::data_markers()
        );
        Ok(())
    }

    fn options(&self) -> anyhow::Result<ServerOptions> {
        let root = DataRoot::new(&self.root);
        let pandas = match self.pandas {
            Some(p) => p,
            None => vakra_chaining::root_pandas(root.path())?.unwrap_or_default(),
        };
        let defaults = ServerOptions::new(root);
        Ok(ServerOptions {
            db_root: self
                .db_root
                .clone()
                .unwrap_or_else(|| defaults.db_root.clone()),
            fix_quirks: self.fix_quirks,
            rest_base_url: std::env::var("FASTAPI_BASE_URL")
                .unwrap_or_else(|_| defaults.rest_base_url.clone()),
            combined_rest_base_url: std::env::var("M3_REST_BASE_URL")
                .unwrap_or_else(|_| defaults.combined_rest_base_url.clone()),
            server_name: std::env::var("MCP_SERVER_NAME").ok(),
            sql_time_limit: self.sql_time_limit,
            call_time_limit: self.call_time_limit,
            chaining_mode: self.server_type.parse()?,
            max_session_bytes: self.session_memory_mib.saturating_mul(1 << 20),
            pandas,
            session_idle: Duration::from_secs(self.session_idle_secs.max(1)),
            max_result_bytes: self.max_result_bytes,
            retriever: self.search.options(),
            ..defaults
        })
    }
}

fn init_logging(default_level: &str) {
    logging::init(default_level);
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    vakra_sql::configure_sqlite();
    match cli.command {
        Command::Import(args) => {
            init_logging("warn");
            import::run(args)
        }
        Command::Index(args) => {
            init_logging("warn");
            index::run(args)
        }
        Command::Serve(args) => {
            init_logging("info");
            serve::run(*args)
        }
        Command::Mcp(args) => {
            init_logging("warn");
            mcp::run(args)
        }
        Command::Tools(args) => {
            init_logging("warn");
            tools::run(args)
        }
        Command::Trace(args) => {
            init_logging("warn");
            trace::run(args)
        }
        Command::Eval(args) => {
            init_logging("warn");
            eval::main(*args)
        }
        Command::Validate(args) => {
            init_logging("warn");
            validate::run(args)
        }
        Command::Run(args) => {
            init_logging("warn");
            run::run(*args)
        }
    }
}

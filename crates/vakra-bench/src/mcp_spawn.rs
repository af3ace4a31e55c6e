//! `vakra-load mcp-spawn`: how long an MCP stdio server takes, from spawn, to answer
//! `initialize`, and to answer the first `tools/list`.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

use crate::child::Spawned;
use crate::limits;
use crate::stats::{median, percentile, round};

/// How long the server may take to exit once its stdin is closed before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"vakra-load","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#;

/// Options of `vakra-load mcp-spawn`.
#[derive(Args)]
pub struct McpSpawnArgs {
    /// How many times to start the server.
    #[arg(long, default_value_t = 20)]
    runs: u64,
    /// Give up on a run after this many seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Print one JSON object instead of a readable block.
    #[arg(long)]
    json: bool,
    /// The MCP stdio server command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// The timings of one run, in milliseconds from spawn.
struct RunTimes {
    initialize_ms: f64,
    tools_list_ms: f64,
    tools: usize,
}

/// Runs `vakra-load mcp-spawn`.
pub fn run(args: McpSpawnArgs) -> Result<()> {
    limits::count("runs", args.runs, 1, 1000)?;
    let timeout = limits::seconds("timeout", args.timeout)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let runs = runtime.block_on(async {
        let mut runs = Vec::new();
        for run in 1..=args.runs {
            let times = time_one(&args.command, timeout)
                .await
                .with_context(|| format!("run {run}"))?;
            runs.push(times);
        }
        anyhow::Ok(runs)
    })?;
    let mut initialize: Vec<f64> = runs.iter().map(|r| r.initialize_ms).collect();
    let mut tools_list: Vec<f64> = runs.iter().map(|r| r.tools_list_ms).collect();
    initialize.sort_by(f64::total_cmp);
    tools_list.sort_by(f64::total_cmp);
    let tools = runs.last().map_or(0, |r| r.tools);
    if args.json {
        let report = json!({
            "command": args.command,
            "runs": runs.len(),
            "tools": tools,
            "initialize_ms": summary(&initialize),
            "tools_list_ms": summary(&tools_list),
        });
        println!("{report}");
    } else {
        println!("command      {}", args.command.join(" "));
        println!("runs         {} ({tools} tools listed)", runs.len());
        println!("initialize   {}", readable(&initialize));
        println!("tools/list   {}", readable(&tools_list));
    }
    Ok(())
}

/// min/median/p90/max of ascending milliseconds, as JSON.
fn summary(sorted: &[f64]) -> Value {
    let pick = |value: Option<f64>| value.map(|ms| round(ms, 3));
    json!({
        "min": pick(percentile(sorted, 0)),
        "median": pick(median(sorted)),
        "p90": pick(percentile(sorted, 900)),
        "max": pick(percentile(sorted, 1000)),
    })
}

/// min/median/p90/max of ascending milliseconds, on one line.
fn readable(sorted: &[f64]) -> String {
    let show = |value: Option<f64>| value.map_or("-".into(), |ms| format!("{ms:.3}"));
    format!(
        "min {} ms  median {} ms  p90 {} ms  max {} ms",
        show(percentile(sorted, 0)),
        show(median(sorted)),
        show(percentile(sorted, 900)),
        show(percentile(sorted, 1000))
    )
}

/// One spawn: `initialize`, `notifications/initialized` and `tools/list`, then stdin closed.
async fn time_one(command: &[String], timeout: Duration) -> Result<RunTimes> {
    let spawned_at = Instant::now();
    let mut server = Spawned::spawn(command, Stdio::piped(), Stdio::piped())?;
    let mut stdin = server.take_stdin()?;
    let mut lines = BufReader::new(server.take_stdout()?).lines();
    let deadline = tokio::time::Instant::from_std(spawned_at + timeout);
    let session = async {
        send(&mut stdin, INITIALIZE).await?;
        answer(&mut lines, 1).await?;
        let initialize_ms = spawned_at.elapsed().as_secs_f64() * 1e3;
        send(&mut stdin, INITIALIZED).await?;
        send(&mut stdin, TOOLS_LIST).await?;
        let listed = answer(&mut lines, 2).await?;
        let tools_list_ms = spawned_at.elapsed().as_secs_f64() * 1e3;
        let tools = listed["tools"].as_array().map_or(0, Vec::len);
        anyhow::Ok(RunTimes {
            initialize_ms,
            tools_list_ms,
            tools,
        })
    };
    let outcome = tokio::time::timeout_at(deadline, session).await;
    drop(stdin);
    server.stop(None, EXIT_GRACE).await?;
    match outcome {
        Ok(times) => times,
        Err(_) => bail!("no answer within {timeout:?}"),
    }
}

/// Writes one JSON-RPC message as a line.
async fn send(stdin: &mut ChildStdin, message: &str) -> Result<()> {
    stdin
        .write_all(format!("{message}\n").as_bytes())
        .await
        .context("cannot write to the server's stdin")?;
    stdin
        .flush()
        .await
        .context("cannot write to the server's stdin")
}

/// Reads stdout lines until the response to request `id`, and returns its `result`.
/// Lines that are not JSON, notifications and other responses are skipped.
async fn answer(lines: &mut Lines<BufReader<ChildStdout>>, id: u64) -> Result<Value> {
    loop {
        let Some(line) = lines
            .next_line()
            .await
            .context("cannot read the server's stdout")?
        else {
            bail!("the server closed its stdout before answering request {id}");
        };
        let Ok(mut message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if message["id"].as_u64() != Some(id) {
            continue;
        }
        if let Some(result) = message.get_mut("result") {
            return Ok(result.take());
        }
        if let Some(error) = message.get("error") {
            bail!("request {id} failed: {error}");
        }
    }
}

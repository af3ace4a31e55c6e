//! `vakra-load mcp-mix`: N MCP sessions over streamable HTTP, capabilities 1, 2 and 4 mixed
//! (the chains of `vakra_bench::mix`), each repeating its chain until the count or time limit;
//! reports calls per second and latency percentiles per capability and overall.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use serde_json::{Value, json};
use tokio::sync::Barrier;
use vakra_bench::mix;

use crate::stats::{percentile, round};
use crate::{limits, target};

/// Options of `vakra-load mcp-mix`.
#[derive(Args)]
pub struct McpMixArgs {
    /// Base URL of a `vakra serve` on the demo data root with indexes (loopback only).
    #[arg(long)]
    base: String,
    /// MCP sessions at once; session i runs chain i (capability 1, 2, 4 in turn).
    #[arg(long, default_value_t = 64)]
    sessions: u64,
    /// Only the chains of these capabilities (the sessions take the first chains of the mix
    /// that are), e.g. `2,4` to see what the server keeps without capability 1's handles.
    #[arg(long, value_delimiter = ',', default_values_t = [1u8, 2, 4])]
    capabilities: Vec<u8>,
    /// Stop after this many measured calls in total (or --duration, whichever comes first).
    #[arg(long, default_value_t = 20_000)]
    count: u64,
    /// Stop after this many seconds (or --count, whichever comes first).
    #[arg(long, default_value_t = 30.0)]
    duration: f64,
    /// Runtime threads driving the load (the server under test shares the machine).
    #[arg(long, default_value_t = 1)]
    threads: u64,
    /// Print one JSON object instead of a readable block.
    #[arg(long)]
    json: bool,
    /// Open a new connection for every request, as rmcp's own HTTP client does (by default
    /// one client keeps its connections and every session uses them).
    #[arg(long)]
    fresh_connections: bool,
}

/// What one session saw.
#[derive(Default)]
struct Tally {
    capability: u8,
    latencies: Vec<Duration>,
    errors: u64,
    first_error: Option<String>,
}

pub fn run(args: McpMixArgs) -> Result<()> {
    let base = target::parse_loopback_url(&args.base)?;
    let base = base.as_str().trim_end_matches('/').to_owned();
    limits::count("sessions", args.sessions, 1, 1024)?;
    limits::count("count", args.count, 1, 10_000_000)?;
    limits::count("threads", args.threads, 1, 64)?;
    let duration = limits::seconds("duration", args.duration)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads as usize)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let http = (!args.fresh_connections)
        .then(|| reqwest::Client::builder().build())
        .transpose()
        .context("cannot build the HTTP client")?;
    if !args.capabilities.iter().any(|c| [1, 2, 4].contains(c)) {
        bail!("--capabilities: the mix has chains of capabilities 1, 2 and 4");
    }
    let chains: Vec<mix::Chain> = (0..)
        .map(mix::chain)
        .filter(|c| args.capabilities.contains(&c.capability))
        .take(args.sessions as usize)
        .collect();
    let (tallies, elapsed) = runtime.block_on(drive(&base, http, chains, args.count, duration))?;
    let report = report(&args, &tallies, elapsed);
    if args.json {
        println!("{report}");
    } else {
        print_report(&report);
    }
    Ok(())
}

async fn drive(
    base: &str,
    http: Option<reqwest::Client>,
    chains: Vec<mix::Chain>,
    count: u64,
    duration: Duration,
) -> Result<(Vec<Tally>, Duration)> {
    // Every session is opened before the clock starts.
    let mut clients = Vec::new();
    for chain in chains {
        let client = match &http {
            Some(http) => mix::connect_with(http.clone(), base, &chain).await?,
            None => mix::connect(base, &chain).await?,
        };
        clients.push((chain, client));
    }
    let barrier = Arc::new(Barrier::new(clients.len() + 1));
    let issued = Arc::new(AtomicU64::new(0));
    let deadline = Arc::new(std::sync::OnceLock::new());
    let mut tasks = Vec::new();
    for (chain, client) in clients {
        let (barrier, issued, deadline) = (
            Arc::clone(&barrier),
            Arc::clone(&issued),
            Arc::clone(&deadline),
        );
        tasks.push(tokio::spawn(async move {
            let mut tally = Tally {
                capability: chain.capability,
                ..Tally::default()
            };
            barrier.wait().await;
            let deadline: Instant = *deadline.get().expect("set before the barrier opens");
            while Instant::now() < deadline
                && issued.fetch_add(chain.steps.len() as u64, Ordering::Relaxed) < count
            {
                match mix::run(&client, &chain, &mut tally.latencies).await {
                    Ok(transcript) => {
                        for (tool, text, is_error) in transcript {
                            if is_error {
                                tally.errors += 1;
                                tally.first_error.get_or_insert(format!("{tool}: {text}"));
                            }
                        }
                    }
                    Err(e) => {
                        tally.errors += 1;
                        tally.first_error.get_or_insert(format!("{e:#}"));
                        break;
                    }
                }
            }
            let _ = client.cancel().await;
            tally
        }));
    }
    let started = Instant::now();
    let _ = deadline.set(started + duration);
    barrier.wait().await;
    let mut tallies = Vec::new();
    for task in tasks {
        tallies.push(task.await.context("a session task failed")?);
    }
    Ok((tallies, started.elapsed()))
}

fn latency_summary(latencies: &mut [Duration]) -> Value {
    latencies.sort_unstable();
    let ms = |per_mille| {
        percentile(latencies, per_mille)
            .map(|d| round(d.as_secs_f64() * 1e3, 3))
            .map_or(Value::Null, Value::from)
    };
    json!({"calls": latencies.len(), "p50_ms": ms(500), "p90_ms": ms(900), "p99_ms": ms(990), "max_ms": ms(1000)})
}

fn report(args: &McpMixArgs, tallies: &[Tally], elapsed: Duration) -> Value {
    let mut all: Vec<Duration> = Vec::new();
    let mut by_capability: BTreeMap<u8, Vec<Duration>> = BTreeMap::new();
    for tally in tallies {
        all.extend(&tally.latencies);
        by_capability
            .entry(tally.capability)
            .or_default()
            .extend(&tally.latencies);
    }
    let calls = all.len();
    let errors: u64 = tallies.iter().map(|t| t.errors).sum();
    let first_error = tallies.iter().find_map(|t| t.first_error.clone());
    let capabilities: serde_json::Map<String, Value> = by_capability
        .into_iter()
        .map(|(c, mut l)| (c.to_string(), latency_summary(&mut l)))
        .collect();
    json!({
        "sessions": args.sessions,
        "capabilities": args.capabilities,
        "fresh_connections": args.fresh_connections,
        "elapsed_s": round(elapsed.as_secs_f64(), 3),
        "calls_per_s": round(calls as f64 / elapsed.as_secs_f64().max(1e-9), 1),
        "errors": errors,
        "first_error": first_error,
        "all": latency_summary(&mut all),
        "by_capability": capabilities,
    })
}

fn print_report(report: &Value) {
    println!(
        "sessions     {} (capabilities {} in turn)",
        report["sessions"], report["capabilities"]
    );
    println!(
        "calls        {} in {} s: {} calls/s",
        report["all"]["calls"], report["elapsed_s"], report["calls_per_s"]
    );
    let line = |name: &str, s: &Value| {
        println!(
            "{name:<12} p50 {} ms, p90 {} ms, p99 {} ms, max {} ms ({} calls)",
            s["p50_ms"], s["p90_ms"], s["p99_ms"], s["max_ms"], s["calls"]
        );
    };
    line("latency", &report["all"]);
    if let Some(caps) = report["by_capability"].as_object() {
        for (c, s) in caps {
            line(&format!("  cap {c}"), s);
        }
    }
    match report["first_error"].as_str() {
        Some(first) => println!("errors       {} (first: {first})", report["errors"]),
        None => println!("errors       {}", report["errors"]),
    }
}

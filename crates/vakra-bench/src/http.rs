//! `vakra-load http`: replay a request list with N keep-alive connections, bounded in count
//! and time, and report throughput, latency percentiles and status codes.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use reqwest::{Client, Url, redirect};
use serde_json::{Value, json};
use tokio::sync::Barrier;

use crate::stats::{percentile, round};
use crate::{limits, requests, target};

/// Options of `vakra-load http`.
#[derive(Args)]
pub struct HttpArgs {
    /// Base URL of the server under test (loopback only), e.g. http://127.0.0.1:8000.
    #[arg(long)]
    base: String,
    /// JSONL request list: one object per line with `path` and `params`.
    #[arg(long)]
    requests: PathBuf,
    /// Concurrent workers, each with its own keep-alive connection.
    #[arg(long, default_value_t = 16)]
    connections: u64,
    /// Stop after this many measured requests in total (or --duration, whichever comes first).
    #[arg(long, default_value_t = 20_000)]
    count: u64,
    /// Stop after this many seconds of measurement (or --count, whichever comes first).
    #[arg(long, default_value_t = 30.0)]
    duration: f64,
    /// Unmeasured requests sent first over the same connections (also bounded by --duration).
    #[arg(long, default_value_t = 200)]
    warmup: u64,
    /// Time limit of one request, in seconds.
    #[arg(long, default_value_t = 10.0)]
    request_timeout: f64,
    /// Runtime threads driving the load (the server under test shares the machine).
    #[arg(long, default_value_t = 1)]
    threads: u64,
    /// Print one JSON object instead of a readable block.
    #[arg(long)]
    json: bool,
}

/// What the workers share.
struct Shared {
    urls: Vec<Url>,
    connections: u64,
    warmup: u64,
    count: u64,
    duration: Duration,
    warmup_issued: AtomicU64,
    issued: AtomicU64,
    barrier: Barrier,
    start: OnceLock<Instant>,
}

/// What one worker saw.
#[derive(Default)]
struct Tally {
    warmup_done: u64,
    warmup_errors: u64,
    latencies_ns: Vec<u64>,
    status: BTreeMap<u16, u64>,
    errors: u64,
    first_error: Option<String>,
    end: Option<Instant>,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.warmup_done += other.warmup_done;
        self.warmup_errors += other.warmup_errors;
        self.latencies_ns.extend(other.latencies_ns);
        for (status, n) in other.status {
            *self.status.entry(status).or_default() += n;
        }
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        self.end = self.end.max(other.end);
    }
}

/// Runs `vakra-load http`.
pub fn run(args: HttpArgs) -> Result<()> {
    let base = target::parse_loopback_url(&args.base)?;
    limits::count("connections", args.connections, 1, 1024)?;
    limits::count("count", args.count, 1, 10_000_000)?;
    limits::count("warmup", args.warmup, 0, 1_000_000)?;
    limits::count("threads", args.threads, 1, 64)?;
    let duration = limits::seconds("duration", args.duration)?;
    let request_timeout = limits::seconds("request-timeout", args.request_timeout)?;
    let urls = requests::load(&args.requests, &base)?;
    let shared = Arc::new(Shared {
        urls,
        connections: args.connections,
        warmup: args.warmup,
        count: args.count,
        duration,
        warmup_issued: AtomicU64::new(0),
        issued: AtomicU64::new(0),
        barrier: Barrier::new(args.connections as usize),
        start: OnceLock::new(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads as usize)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let tally = runtime.block_on(drive(Arc::clone(&shared), request_timeout))?;
    let seconds = match (shared.start.get(), tally.end) {
        (Some(start), Some(end)) => end.duration_since(*start).as_secs_f64(),
        _ => 0.0,
    };
    let report = report(&args, &shared, tally, seconds);
    if args.json {
        println!("{report}");
    } else {
        print_readable(&report);
    }
    if report["responses"].as_u64() == Some(0) {
        bail!(
            "no request got a response (first error: {})",
            report["first_error"].as_str().unwrap_or("none")
        );
    }
    Ok(())
}

/// Spawns the workers, one client (so one connection) each, and merges what they saw.
async fn drive(shared: Arc<Shared>, request_timeout: Duration) -> Result<Tally> {
    let clients = (0..shared.connections)
        .map(|_| {
            Client::builder()
                .no_proxy()
                .redirect(redirect::Policy::none())
                .pool_max_idle_per_host(1)
                .tcp_nodelay(true)
                .timeout(request_timeout)
                .build()
                .context("cannot build the HTTP client")
        })
        .collect::<Result<Vec<_>>>()?;
    let workers: Vec<_> = (0..)
        .zip(clients)
        .map(|(worker, client)| tokio::spawn(work(worker, client, Arc::clone(&shared))))
        .collect();
    let mut total = Tally::default();
    for worker in workers {
        total.merge(worker.await.context("a worker failed")?);
    }
    Ok(total)
}

/// One worker: its share of the warm-up, then measured requests until the count or the
/// time is used up, walking the list round-robin from its own offset.
async fn work(worker: u64, client: Client, shared: Arc<Shared>) -> Tally {
    let n = shared.urls.len();
    let mut next = (worker as usize * n / shared.connections as usize) % n;
    let mut tally = Tally::default();

    let warmup_deadline = Instant::now() + shared.duration;
    while Instant::now() < warmup_deadline
        && shared.warmup_issued.fetch_add(1, Ordering::Relaxed) < shared.warmup
    {
        tally.warmup_done += 1;
        if fetch(&client, &shared.urls[next]).await.is_err() {
            tally.warmup_errors += 1;
        }
        next = (next + 1) % n;
    }

    shared.barrier.wait().await;
    let start = *shared.start.get_or_init(Instant::now);
    let deadline = start + shared.duration;
    while Instant::now() < deadline && shared.issued.fetch_add(1, Ordering::Relaxed) < shared.count
    {
        let sent = Instant::now();
        match fetch(&client, &shared.urls[next]).await {
            Ok(status) => {
                let latency = sent.elapsed().as_nanos();
                tally
                    .latencies_ns
                    .push(u64::try_from(latency).unwrap_or(u64::MAX));
                *tally.status.entry(status).or_default() += 1;
            }
            Err(error) => {
                tally.errors += 1;
                tally.first_error.get_or_insert_with(|| error_chain(&error));
            }
        }
        next = (next + 1) % n;
    }
    tally.end = Some(Instant::now());
    tally
}

/// Sends one GET and reads the whole body; returns the status code.
async fn fetch(client: &Client, url: &Url) -> Result<u16, reqwest::Error> {
    let response = client.get(url.clone()).send().await?;
    let status = response.status().as_u16();
    response.bytes().await?;
    Ok(status)
}

/// An error and its causes on one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The run's figures as one JSON object.
fn report(args: &HttpArgs, shared: &Shared, mut tally: Tally, seconds: f64) -> Value {
    tally.latencies_ns.sort_unstable();
    let responses = tally.latencies_ns.len() as u64;
    let ms =
        |per_mille| percentile(&tally.latencies_ns, per_mille).map(|ns| round(ns as f64 / 1e6, 3));
    let throughput = if seconds > 0.0 {
        round(responses as f64 / seconds, 1)
    } else {
        0.0
    };
    let status: serde_json::Map<String, Value> = tally
        .status
        .iter()
        .map(|(code, n)| (code.to_string(), json!(n)))
        .collect();
    json!({
        "base": args.base,
        "requests_file": args.requests.display().to_string(),
        "distinct_requests": shared.urls.len(),
        "connections": args.connections,
        "warmup": {"requests": tally.warmup_done, "errors": tally.warmup_errors},
        "requests": responses + tally.errors,
        "responses": responses,
        "errors": tally.errors,
        "first_error": tally.first_error,
        "seconds": round(seconds, 3),
        "throughput_rps": throughput,
        "latency_ms": {
            "p50": ms(500),
            "p90": ms(900),
            "p99": ms(990),
            "p99.9": ms(999),
            "max": ms(1000),
        },
        "status": status,
    })
}

/// Prints the report as a readable block.
fn print_readable(report: &Value) {
    let latency = &report["latency_ms"];
    let ms = |key: &str| match latency[key].as_f64() {
        Some(value) => format!("{value:.3}"),
        None => "-".into(),
    };
    let status: Vec<String> = report["status"]
        .as_object()
        .map(|map| map.iter().map(|(code, n)| format!("{code}: {n}")).collect())
        .unwrap_or_default();
    println!(
        "target       {} ({} distinct requests from {})",
        report["base"].as_str().unwrap_or_default(),
        report["distinct_requests"],
        report["requests_file"].as_str().unwrap_or_default()
    );
    println!(
        "connections  {} (after {} warm-up requests, {} failed)",
        report["connections"], report["warmup"]["requests"], report["warmup"]["errors"]
    );
    println!(
        "requests     {} in {:.3} s: {:.1} responses/s",
        report["requests"],
        report["seconds"].as_f64().unwrap_or_default(),
        report["throughput_rps"].as_f64().unwrap_or_default()
    );
    println!(
        "latency ms   p50 {}  p90 {}  p99 {}  p99.9 {}  max {}",
        ms("p50"),
        ms("p90"),
        ms("p99"),
        ms("p99.9"),
        ms("max")
    );
    if status.is_empty() {
        println!("status       -");
    } else {
        println!("status       {}", status.join(", "));
    }
    match report["first_error"].as_str() {
        Some(first) => println!("errors       {} (first: {first})", report["errors"]),
        None => println!("errors       {}", report["errors"]),
    }
}

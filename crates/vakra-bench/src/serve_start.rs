//! `vakra-load serve-start`: how long a server command takes, from spawn, to answer a URL
//! with 200 and a fully read body.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use nix::sys::signal::Signal;
use reqwest::{Client, Url, redirect};
use serde_json::json;

use crate::child::Spawned;
use crate::stats::{median, percentile, round};
use crate::{limits, target};

/// How long a stopped server may take to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Options of `vakra-load serve-start`.
#[derive(Args)]
pub struct ServeStartArgs {
    /// URL polled every millisecond until it answers 200 (loopback only).
    #[arg(long)]
    url: String,
    /// How many times to start (and stop) the server.
    #[arg(long, default_value_t = 5)]
    runs: u64,
    /// Give up on a run after this many seconds.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// Print one JSON object instead of a readable block.
    #[arg(long)]
    json: bool,
    /// The server command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// Runs `vakra-load serve-start`.
pub fn run(args: ServeStartArgs) -> Result<()> {
    let url = target::parse_loopback_url(&args.url)?;
    limits::count("runs", args.runs, 1, 1000)?;
    let timeout = limits::seconds("timeout", args.timeout)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let times = runtime.block_on(async {
        // A fresh connection for every poll: nothing idles in a pool between attempts.
        let client = Client::builder()
            .no_proxy()
            .redirect(redirect::Policy::none())
            .pool_max_idle_per_host(0)
            .build()
            .context("cannot build the HTTP client")?;
        if poll(&client, &url, Duration::from_secs(1)).await {
            bail!("something already answers {url}; stop it first");
        }
        let mut times = Vec::new();
        for run in 1..=args.runs {
            let ms = time_one(&args.command, &client, &url, timeout)
                .await
                .with_context(|| format!("run {run}"))?;
            if !args.json {
                println!("run {run:>3}    {ms:.3} ms");
            }
            times.push(ms);
        }
        Ok(times)
    })?;
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let (min, med, max) = (
        percentile(&sorted, 0).unwrap_or_default(),
        median(&sorted).unwrap_or_default(),
        percentile(&sorted, 1000).unwrap_or_default(),
    );
    if args.json {
        let report = json!({
            "url": args.url,
            "command": args.command,
            "runs_ms": times.iter().map(|t| round(*t, 3)).collect::<Vec<_>>(),
            "min_ms": round(min, 3),
            "median_ms": round(med, 3),
            "max_ms": round(max, 3),
        });
        println!("{report}");
    } else {
        println!(
            "ready in     min {min:.3} ms  median {med:.3} ms  max {max:.3} ms ({} runs: {})",
            sorted.len(),
            args.command.join(" ")
        );
    }
    Ok(())
}

/// Starts the server, polls `url` until it answers 200, stops the server with SIGTERM, and
/// returns the milliseconds from spawn to the answer.
async fn time_one(
    command: &[String],
    client: &Client,
    url: &Url,
    timeout: Duration,
) -> Result<f64> {
    let spawned_at = Instant::now();
    let mut server = Spawned::spawn(command, Stdio::null(), Stdio::null())?;
    let deadline = spawned_at + timeout;
    let ready = loop {
        if let Some(status) = server.try_wait()? {
            bail!("the server exited ({status}) before {url} answered");
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            server.stop(Some(Signal::SIGTERM), STOP_GRACE).await?;
            bail!("{url} did not answer 200 within {timeout:?}");
        }
        if poll(client, url, left).await {
            break spawned_at.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    server.stop(Some(Signal::SIGTERM), STOP_GRACE).await?;
    Ok(ready.as_secs_f64() * 1e3)
}

/// One GET within `limit`: whether it answered 200 with a fully read body.
async fn poll(client: &Client, url: &Url, limit: Duration) -> bool {
    let attempt = async {
        let response = client.get(url.clone()).send().await.ok()?;
        let ok = response.status().as_u16() == 200;
        response.bytes().await.ok()?;
        Some(ok)
    };
    matches!(tokio::time::timeout(limit, attempt).await, Ok(Some(true)))
}

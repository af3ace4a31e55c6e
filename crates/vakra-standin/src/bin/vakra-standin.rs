//! `vakra-standin`: a stand-in model on loopback (see the library's documentation). Prints
//! `listening on http://<address>/v1` once it accepts requests.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use vakra_standin::{Behaviour, Failures, Oracle, StandIn};

#[derive(Parser)]
#[command(about = "An OpenAI-compatible stand-in model for tests, demos and benchmarks")]
struct Args {
    /// Address to listen on (loopback).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
    /// oracle (plays --split's ground truth), dialect (the same, shaped as --dialect's server
    /// answers), text, malformed, unknown-tool, hang or garbage.
    #[arg(long, default_value = "oracle")]
    mode: String,
    /// The split whose ground truth the oracle plays.
    #[arg(long)]
    split: Option<PathBuf>,
    /// A dialect fixture (crates/vakra-standin/fixtures/dialects/*.json), for --mode dialect.
    #[arg(long)]
    dialect: Option<PathBuf>,
    /// Milliseconds before each answer.
    #[arg(long = "latency-ms", default_value_t = 0)]
    latency_ms: u64,
    /// Fail this many first requests.
    #[arg(long = "fail-first", default_value_t = 0)]
    fail_first: usize,
    /// Their HTTP status.
    #[arg(long = "fail-status", default_value_t = 429)]
    fail_status: u16,
    /// Append every request body to this file, one per line.
    #[arg(long)]
    log: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let behaviour = match args.mode.as_str() {
        "oracle" => {
            let split = args
                .split
                .ok_or_else(|| anyhow::anyhow!("--mode oracle needs --split"))?;
            Behaviour::Oracle(Oracle::load(&split)?)
        }
        "dialect" => {
            let split = args
                .split
                .ok_or_else(|| anyhow::anyhow!("--mode dialect needs --split"))?;
            let dialect = args
                .dialect
                .ok_or_else(|| anyhow::anyhow!("--mode dialect needs --dialect"))?;
            Behaviour::Dialect(
                Oracle::load(&split)?,
                Box::new(vakra_standin::Dialect::load(&dialect).map_err(anyhow::Error::msg)?),
            )
        }
        "text" => Behaviour::Text("I cannot tell.".into()),
        "malformed" => Behaviour::MalformedArguments,
        "unknown-tool" => Behaviour::UnknownTool,
        "hang" => Behaviour::Hang,
        "garbage" => Behaviour::Garbage,
        other => anyhow::bail!("unknown --mode {other}"),
    };
    let mut standin = StandIn::new(behaviour);
    standin.latency = Duration::from_millis(args.latency_ms);
    if args.fail_first > 0 {
        standin.failures = Some(Failures {
            count: args.fail_first,
            status: args.fail_status,
            retry_after: (args.fail_status == 429).then_some(1),
            html: args.fail_status >= 500,
        });
    }
    if let Some(path) = &args.log {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        standin.log = Some(std::sync::Mutex::new(file));
    }
    let listener = tokio::net::TcpListener::bind(&args.listen).await?;
    println!("listening on http://{}/v1", listener.local_addr()?);
    vakra_standin::serve(listener, Arc::new(standin)).await?;
    Ok(())
}

//! `vakra-load`: a bounded loopback load generator and timing tool for the project's
//! benchmarks (docs/benchmarks.md).
//!
//! Every run is bounded in count and time, and every target must be on this machine: URLs
//! whose host is not loopback (127.0.0.0/8, `localhost`, `[::1]`) are refused.

mod child;
mod http;
mod limits;
mod mcp_mix;
mod mcp_spawn;
mod requests;
mod rss;
mod serve_start;
mod stats;
mod target;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "vakra-load",
    version,
    about = "Bounded loopback load generator and timing tool for the vakra benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a JSONL request list against a loopback HTTP server and report latency and throughput.
    Http(http::HttpArgs),
    /// Time how long a server command takes to answer a URL with 200, over several runs.
    ServeStart(serve_start::ServeStartArgs),
    /// Time an MCP stdio server's `initialize` answer and its first tool list, over several runs.
    McpSpawn(mcp_spawn::McpSpawnArgs),
    /// Run N mixed MCP sessions (capabilities 1, 2, 4) over streamable HTTP and report calls/s
    /// and latency percentiles.
    McpMix(mcp_mix::McpMixArgs),
    /// Print a process's resident memory (VmRSS) and its peak (VmHWM) in MiB.
    Rss(rss::RssArgs),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Http(args) => http::run(args),
        Command::ServeStart(args) => serve_start::run(args),
        Command::McpSpawn(args) => mcp_spawn::run(args),
        Command::McpMix(args) => mcp_mix::run(args),
        Command::Rss(args) => rss::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("vakra-load: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

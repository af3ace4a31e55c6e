//! Replays a JSONL request list (`path`, `params`) through `RestBird::execute` on one thread, with
//! no HTTP: the cost of running endpoints, for docs/benchmarks.md.
//!
//! `cargo run --release -p vakra-endpoint --example replay -- ROOT DB_ROOT REQUESTS.jsonl [ROUNDS]`

mod common {
    pub mod requests;
}

use std::time::{Duration, Instant};

use vakra_endpoint::Outcome;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, root, db_root, requests, rest @ ..] = args.as_slice() else {
        return Err("usage: replay ROOT DB_ROOT REQUESTS.jsonl [ROUNDS]".into());
    };
    let rounds: usize = rest.first().map_or(Ok(3), |r| r.parse())?;
    let started = Instant::now();
    let bird = common::requests::load_bird(root, db_root)?;
    println!(
        "loaded {} endpoints in {:?}",
        bird.endpoints().len(),
        started.elapsed()
    );
    let calls = common::requests::load(&bird, requests)?;
    let mut times = Vec::with_capacity(calls.len() * rounds);
    let mut failed = 0;
    for _ in 0..rounds {
        for (endpoint, query) in &calls {
            let t = Instant::now();
            if !matches!(bird.execute(endpoint, query), Outcome::Ok(_)) {
                failed += 1;
            }
            times.push(t.elapsed());
        }
    }
    times.sort();
    let total: Duration = times.iter().sum();
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    println!(
        "{} calls ({failed} not 200): mean {:?}, p50 {:?}, p99 {:?}, max {:?}; {:.0} calls/s on one thread",
        times.len(),
        total / times.len() as u32,
        pct(0.5),
        pct(0.99),
        times[times.len() - 1],
        times.len() as f64 / total.as_secs_f64()
    );
    Ok(())
}

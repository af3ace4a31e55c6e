//! The ceiling of the REST benchmark: SQLite's own rate for the statements the endpoints issue
//! for a request list, in-process, with nothing around them (docs/benchmarks.md).
//!
//! Each request is turned into the statement its handler runs (parameters parsed, locals
//! computed, SQL text and binds built: `Endpoint::statement`), once, before timing. Then each
//! of THREADS threads opens its own connections as the server does (read-only, `immutable=1`,
//! memory-mapped), prepares every distinct statement once, and walks the list round-robin from
//! its own offset for SECONDS: bind, step (one row for `fetchone`, every row for `fetchall`),
//! read every cell as SQLite hands it over (no copy, no UTF-8 check), reset. Requests that run
//! no statement (none in the golden list) count as free. The rate is requests per second, the
//! same unit as `vakra-load http`.
//!
//! `cargo run --release -p vakra-endpoint --example sqlite_ceiling -- ROOT DB_ROOT REQUESTS.jsonl [SECONDS] [THREADS...]`
//! (defaults: 5 seconds, runs with 1 and with 2 threads).

mod common {
    pub mod requests;
}

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rusqlite::types::ValueRef;
use vakra_catalog::FetchMode;
use vakra_endpoint::{RestBird, parse_params};
use vakra_sql::SqlValue;

/// One request's statement: which prepared statement (an index into the distinct ones), its
/// binds and fetch mode; `None` for a request that runs no statement.
type Job = Option<(usize, Vec<SqlValue>, FetchMode)>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, root, db_root, requests, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: sqlite_ceiling ROOT DB_ROOT REQUESTS.jsonl [SECONDS] [THREADS...]".into(),
        );
    };
    let seconds: f64 = rest.first().map_or(Ok(5.0), |s| s.parse())?;
    let thread_counts: Vec<usize> = match &rest.get(1..) {
        Some(counts) if !counts.is_empty() => {
            counts.iter().map(|c| c.parse()).collect::<Result<_, _>>()?
        }
        _ => vec![1, 2],
    };
    let bird = common::requests::load_bird(root, db_root)?;
    let calls = common::requests::load(&bird, requests)?;

    // The distinct statements (domain, SQL text) and each request's job.
    let mut distinct: Vec<(String, String)> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    let mut jobs: Vec<Job> = Vec::with_capacity(calls.len());
    for (endpoint, query) in &calls {
        let job = parse_params(&endpoint.operation().params, query)
            .ok()
            .and_then(|args| endpoint.statement(args).ok())
            .map(|statement| {
                let key = (endpoint.domain().to_owned(), statement.sql.into_owned());
                let next = distinct.len();
                let at = *index.entry(key.clone()).or_insert(next);
                if at == next {
                    distinct.push(key);
                }
                (at, statement.binds, statement.fetch)
            });
        jobs.push(job);
    }
    let free = jobs.iter().filter(|j| j.is_none()).count();
    println!(
        "{} requests, {} distinct statements, {free} without a statement; {seconds} s per run",
        jobs.len(),
        distinct.len()
    );

    for threads in thread_counts {
        let deadline = Duration::from_secs_f64(seconds);
        let counts: Vec<Result<(u64, Duration), String>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    let (bird, distinct, jobs) = (&bird, &distinct, &jobs);
                    scope.spawn(move || {
                        run(bird, distinct, jobs, t * jobs.len() / threads, deadline)
                            .map_err(|e| e.to_string())
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|_| Err("worker panicked".into())))
                .collect()
        });
        let mut total = 0.0;
        let mut done = 0;
        for count in counts {
            let (n, elapsed) = count?;
            done += n;
            total += n as f64 / elapsed.as_secs_f64();
        }
        println!(
            "{threads} thread(s): {done} requests, {total:.0} requests/s ({:.0} per thread)",
            total / threads as f64
        );
    }
    Ok(())
}

/// One thread's run: its own connections and prepared statements, then the list round-robin
/// from `offset` until `deadline` has passed; the requests done and the time they took.
fn run(
    bird: &RestBird,
    distinct: &[(String, String)],
    jobs: &[Job],
    offset: usize,
    deadline: Duration,
) -> Result<(u64, Duration), Box<dyn std::error::Error>> {
    let mut connections = HashMap::new();
    for (domain, _) in distinct {
        if !connections.contains_key(domain) {
            let path = bird.databases().get(domain)?.path().to_path_buf();
            connections.insert(domain.clone(), vakra_sql::open_read_only(&path)?);
        }
    }
    let mut statements = distinct
        .iter()
        .map(|(domain, sql)| connections[domain].prepare(sql))
        .collect::<Result<Vec<_>, _>>()?;
    let started = Instant::now();
    let mut done = 0u64;
    let mut next = offset % jobs.len();
    let mut checksum = 0usize;
    loop {
        // The clock is read once per 64 requests.
        if done.is_multiple_of(64) && started.elapsed() >= deadline {
            break;
        }
        if let Some((at, binds, fetch)) = &jobs[next] {
            let statement = &mut statements[*at];
            let columns = statement.column_count();
            let mut rows = statement.query(rusqlite::params_from_iter(binds.iter()))?;
            while let Some(row) = rows.next()? {
                for i in 0..columns {
                    checksum += match row.get_ref(i)? {
                        ValueRef::Text(b) | ValueRef::Blob(b) => b.len(),
                        _ => 1,
                    };
                }
                if *fetch == FetchMode::One {
                    break;
                }
            }
        }
        done += 1;
        next = (next + 1) % jobs.len();
    }
    std::hint::black_box(checksum);
    Ok((done, started.elapsed()))
}

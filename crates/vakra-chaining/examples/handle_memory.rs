//! The memory a capability-1 session keeps per stored handle, counted by a wrapping allocator:
//!
//! ```text
//! cargo run --release -p vakra-chaining --example handle_memory -- ROOT DB_ROOT [CHAINS]
//! ```
//!
//! Runs the capability-1 chain of `vakra-load mcp-mix` (get_data, filter_data, aggregate_data,
//! sort_data, aggregate_data on demo domain `library`, universes 1 and 2) CHAINS times (default
//! 2,000) on one session per universe, as a session of the mix does, and prints the bytes still
//! allocated after each step (averaged over the chains after the first, which loads and caches
//! the universe), the bytes per stored handle, and what the session's memory cap counts
//! (`estimated_bytes` of the handles' tables).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

use serde_json::{Map, Value, json};
use vakra_chaining::{ChainingEnv, ChainingOptions, Session, ToolTexts, Universes, handle_of_peek};

/// Counts the bytes live at any time.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call forwards to the system allocator with the caller's layout.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded as is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: forwarded as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// The mix's capability-1 chain (`vakra_bench::mix::chain`, sessions 0 and 3).
fn steps(universe: &str, prefix: &str) -> Vec<(&'static str, Value)> {
    let col = |c: &str| format!("{prefix}{c}");
    vec![
        ("get_data", json!({"tool_universe_id": universe})),
        (
            "filter_data",
            json!({"data_label": "$0", "key_name": col("genre"), "value": "Fiction", "condition": "equal_to"}),
        ),
        (
            "aggregate_data",
            json!({"data_label": "$1", "key_name": col("price"), "aggregation_operation": "mean"}),
        ),
        (
            "sort_data",
            json!({"data_label": "$1", "key_name": col("price"), "ascending": true}),
        ),
        (
            "aggregate_data",
            json!({"data_label": "$3", "key_name": col("book_id"), "aggregation_operation": "count"}),
        ),
    ]
}

/// Runs the chain once: per step, the bytes it left allocated.
fn run_chain(session: &mut Session, steps: &[(&'static str, Value)]) -> Vec<isize> {
    let mut handles: Vec<Option<String>> = Vec::new();
    let mut retained = Vec::new();
    for (tool, arguments) in steps {
        let before = live();
        let mut arguments = args(arguments.clone());
        for value in arguments.values_mut() {
            if let Some(k) = value.as_str().and_then(|s| s.strip_prefix('$')) {
                let k: usize = k.parse().expect("a step number");
                *value = Value::String(handles[k].clone().expect("a handle"));
            }
        }
        let reply = session.call(tool, arguments);
        assert!(!reply.is_error, "{tool}: {}", reply.text);
        let handle = handle_of_peek(&reply.text);
        drop(reply);
        // What the step left behind, without the handle this driver keeps.
        let kept = handle.as_ref().map_or(0, String::capacity) as isize;
        retained.push(live() - before - kept);
        handles.push(handle);
    }
    retained
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.len() < 2 {
        eprintln!("usage: handle_memory ROOT DB_ROOT [CHAINS]");
        std::process::exit(2);
    }
    let root = PathBuf::from(&argv[0]);
    let db_root = PathBuf::from(&argv[1]);
    let chains: usize = argv.get(2).and_then(|c| c.parse().ok()).unwrap_or(2000);
    let options = ChainingOptions {
        pandas: vakra_chaining::Pandas::from_env()
            .expect("VAKRA_PANDAS")
            .unwrap_or_default(),
        ..ChainingOptions::default()
    };
    let universes = Arc::new(Universes::load(&root).expect("universes"));
    let texts = Arc::new(ToolTexts::load(&root).unwrap_or_default());
    let env =
        Arc::new(ChainingEnv::open(universes, texts, db_root, "library", options).expect("domain"));
    for (universe, prefix) in [
        ("11b7a0c0ffee-000000000001", ""),
        ("11b7a0c0ffee-000000000002", "books_"),
    ] {
        let steps = steps(universe, prefix);
        let mut session = Session::new(Arc::clone(&env));
        run_chain(&mut session, &steps);
        let start = live();
        let mut per_step = vec![0isize; steps.len()];
        for _ in 1..chains {
            for (total, r) in per_step.iter_mut().zip(run_chain(&mut session, &steps)) {
                *total += r;
            }
        }
        let retained = live() - start;
        let repeats = (chains - 1).max(1) as f64;
        let stored = session.handles().count();
        println!(
            "universe {universe}: {chains} chains, {stored} handles, {} calls",
            chains * steps.len()
        );
        for ((tool, _), total) in steps.iter().zip(&per_step) {
            println!(
                "  {tool:<16} {:>8.0} bytes kept per call",
                *total as f64 / repeats
            );
        }
        println!(
            "  per chain {:.0} bytes, per stored handle {:.0} bytes, per call {:.0} bytes; the cap counts {} bytes per chain",
            retained as f64 / repeats,
            retained as f64 / (repeats * 3.0),
            retained as f64 / (repeats * steps.len() as f64),
            session.stored_bytes() / chains
        );
    }
}

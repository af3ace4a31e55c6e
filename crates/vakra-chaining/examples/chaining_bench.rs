//! Capability-1 timings at the session level (no transport):
//!
//! ```text
//! cargo run --release -p vakra-chaining --example chaining_bench -- get-data ROOT DB_ROOT DOMAIN [ROUNDS]
//! cargo run --release -p vakra-chaining --example chaining_bench -- chain [ROWS]
//! ```
//!
//! `get-data` loads every universe of DOMAIN in turn (each call switches; the first round runs
//! the joins, later rounds find the tables cached), then repeats `get_data` without a switch,
//! and prints medians. `chain` builds a
//! synthetic universe of ROWS rows (default 1,000,000) in a temporary SQLite file and times
//! `get_data` and five tools chained on its handles. `VAKRA_PANDAS=2` times pandas 2's
//! semantics (default: pandas 3).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value, json};
use vakra_chaining::{ChainingEnv, ChainingOptions, Session, ToolTexts, Universes, handle_of_peek};

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn timed(session: &mut Session, tool: &str, arguments: Value) -> (String, f64) {
    let start = Instant::now();
    let reply = session.call(tool, args(arguments));
    let ms = start.elapsed().as_secs_f64() * 1e3;
    assert!(
        !reply.text.starts_with("{\"error\""),
        "{tool}: {}",
        reply.text
    );
    (reply.text, ms)
}

/// The default options with the pandas version `VAKRA_PANDAS` names.
fn options() -> ChainingOptions {
    ChainingOptions {
        pandas: vakra_chaining::Pandas::from_env()
            .expect("VAKRA_PANDAS")
            .unwrap_or_default(),
        ..ChainingOptions::default()
    }
}

fn get_data(root: PathBuf, db_root: PathBuf, domain: &str, rounds: usize) {
    let universes = Arc::new(Universes::load(&root).expect("universes"));
    let texts = Arc::new(ToolTexts::load(&root).unwrap_or_default());
    let ids: Vec<String> = universes.ids_of_domain(domain).map(str::to_owned).collect();
    let env =
        Arc::new(ChainingEnv::open(universes, texts, db_root, domain, options()).expect("domain"));
    let mut session = Session::new(env);
    let mut first_load = Vec::new();
    let mut switching = Vec::new();
    for round in 0..rounds.max(2) {
        for id in &ids {
            if id == session.universe_id() {
                continue;
            }
            let ms = timed(&mut session, "get_data", json!({"tool_universe_id": id})).1;
            if round == 0 {
                first_load.push(ms)
            } else {
                switching.push(ms)
            }
        }
    }
    let same: Vec<f64> = (0..200)
        .map(|_| timed(&mut session, "get_data", json!({})).1)
        .collect();
    println!(
        "{domain}: {} universes; get_data switching, first load: median {:.3} ms; cached: median {:.3} ms over {} calls; same universe: median {:.3} ms",
        ids.len(),
        median(first_load),
        median(switching.clone()),
        switching.len(),
        median(same)
    );
}

fn chain(rows: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db_root = dir.path().join("dbs");
    std::fs::create_dir_all(db_root.join("synthetic")).expect("dir");
    let mut conn =
        rusqlite::Connection::open(db_root.join("synthetic/synthetic.sqlite")).expect("db");
    conn.execute_batch(
        "CREATE TABLE events (event_id INTEGER, category TEXT, amount REAL, day TEXT, note TEXT)",
    )
    .expect("table");
    let tx = conn.transaction().expect("tx");
    {
        let mut insert = tx
            .prepare("INSERT INTO events VALUES (?1, ?2, ?3, ?4, ?5)")
            .expect("insert");
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..rows {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let category = format!("c{}", state % 20);
            let amount = (state % 100_000) as f64 / 100.0;
            let day = format!(
                "20{:02}-{:02}-{:02}",
                10 + state % 15,
                1 + state % 12,
                1 + state % 28
            );
            let note: Option<String> =
                (!state.is_multiple_of(7)).then(|| format!("n{}", state % 1000));
            insert
                .execute(rusqlite::params![i as i64, category, amount, day, note])
                .expect("row");
        }
    }
    tx.commit().expect("commit");
    let mapping = json!({"5e1ec7000000-000000000001": {"domain": "synthetic", "init_args": {
        "alias_to_table_dict": {"": {"modified_table_name": "events", "original_table_name": "events"}},
        "condition_sequence": [], "database_path": "unused"}, "server_type": "slot_filling"}});
    let universes = Arc::new(Universes::from_json(&mapping.to_string()).expect("mapping"));
    let start = Instant::now();
    let env = Arc::new(
        ChainingEnv::open(
            universes,
            Arc::new(ToolTexts::default()),
            db_root,
            "synthetic",
            options(),
        )
        .expect("env"),
    );
    println!(
        "{rows} rows: universe loaded in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let mut session = Session::new(env);
    let (peek, ms) = timed(&mut session, "get_data", json!({}));
    println!("get_data             {ms:8.2} ms");
    let all = handle_of_peek(&peek).expect("handle");
    let (peek, ms) = timed(
        &mut session,
        "filter_data",
        json!({"data_label": all, "key_name": "amount", "value": 250.0, "condition": "greater_than"}),
    );
    println!("filter_data          {ms:8.2} ms");
    let filtered = handle_of_peek(&peek).expect("handle");
    let (peek, ms) = timed(
        &mut session,
        "sort_data",
        json!({"data_label": filtered, "key_name": "category", "ascending": true}),
    );
    println!("sort_data            {ms:8.2} ms");
    let sorted = handle_of_peek(&peek).expect("handle");
    let (peek, ms) = timed(
        &mut session,
        "transform_data",
        json!({"data_label": sorted, "key_name": "day", "operation_type": "datetime", "operation_args": {"pattern": "%Y"}}),
    );
    println!("transform_data       {ms:8.2} ms");
    let transformed = handle_of_peek(&peek).expect("handle");
    let (peek, ms) = timed(
        &mut session,
        "retrieve_data",
        json!({"data_label": transformed, "key_name": ["day", "amount"]}),
    );
    println!("retrieve_data        {ms:8.2} ms");
    let retrieved = handle_of_peek(&peek).expect("handle");
    let (text, ms) = timed(
        &mut session,
        "aggregate_data",
        json!({"data_label": retrieved, "key_name": "amount", "aggregation_operation": "mean"}),
    );
    println!("aggregate_data       {ms:8.2} ms  (mean {text})");
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match argv.first().map(String::as_str) {
        Some("get-data") if argv.len() >= 4 => get_data(
            PathBuf::from(&argv[1]),
            PathBuf::from(&argv[2]),
            &argv[3],
            argv.get(4).and_then(|r| r.parse().ok()).unwrap_or(5),
        ),
        Some("chain") => chain(
            argv.get(1)
                .and_then(|r| r.parse().ok())
                .unwrap_or(1_000_000),
        ),
        _ => {
            eprintln!("usage: chaining_bench get-data ROOT DB_ROOT DOMAIN [ROUNDS] | chain [ROWS]")
        }
    }
}

//! Per-call latency of every BPO tool on a data folder (default: the reference's, beside the
//! repository), plus load time and the unknown-requisition path (fuzzy suggestions).
//!
//! cargo run --release -p vakra-bpo --example bpo_bench [DATA_DIR] [ITERATIONS] [TOOL_FILTER]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use vakra_bpo::{BpoData, BpoSession, DESCRIPTIONS_FILE, Descriptions};

fn arguments(names: &[String], requisition: &str) -> Map<String, Value> {
    names
        .iter()
        .map(|name| {
            let value = match name.as_str() {
                "requisition_id" => json!(requisition),
                "skill_name" | "skill_id" => json!("Python"),
                "source_name" => json!("Dice"),
                _ => Value::Null,
            };
            (name.clone(), value)
        })
        .collect()
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let mut cli = std::env::args().skip(1);
    let dir = cli.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/reference/environment/bpo/data"
        ))
    });
    let iterations: usize = cli.next().and_then(|n| n.parse().ok()).unwrap_or(300);
    let filter = cli.next().unwrap_or_default();

    let start = Instant::now();
    // A reference checkout's data folder has no descriptions file; the timings do not need one.
    let data = if dir.join(DESCRIPTIONS_FILE).exists() {
        BpoData::load(&dir)
    } else {
        BpoData::load_with_descriptions(&dir, Descriptions::default())
    };
    let data = Arc::new(data.expect("load the data folder"));
    println!(
        "load {}: {} rows in {:?}",
        dir.display(),
        data.len(),
        start.elapsed()
    );
    let requisition = data
        .requisition_ids()
        .find(|id| *id == "05958BR")
        .or_else(|| data.requisition_ids().next())
        .unwrap_or_default()
        .to_owned();

    let tools = BpoSession::new(data.clone()).tools();
    println!("{:<48} {:>10} {:>10}", "tool", "p50", "p90");
    let mut cases: Vec<(String, String, Map<String, Value>)> = tools
        .iter()
        .map(|tool| {
            let names: Vec<String> = tool.input_schema["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            (
                tool.name.clone(),
                tool.name.clone(),
                arguments(&names, &requisition),
            )
        })
        .collect();
    cases.push((
        "(unknown requisition: suggestions)".into(),
        "skills_data_sources_used".into(),
        arguments(&["requisition_id".into()], "05960BR"),
    ));
    for (label, tool, args) in cases.into_iter().filter(|c| c.0.contains(&filter)) {
        let mut samples = Vec::with_capacity(iterations);
        for i in 0..iterations + 10 {
            // A fresh session per call keeps the stateful tools on their first-call path.
            let mut session = BpoSession::new(data.clone());
            let args = args.clone();
            let t = Instant::now();
            let out = session.call(&tool, args);
            let elapsed = t.elapsed();
            std::hint::black_box(out);
            if i >= 10 {
                samples.push(elapsed);
            }
        }
        let p50 = percentile(&mut samples, 0.5);
        let p90 = percentile(&mut samples, 0.9);
        println!("{label:<48} {:>10.1?} {:>10.1?}", p50, p90);
    }
}

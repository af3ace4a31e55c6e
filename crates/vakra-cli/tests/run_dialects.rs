//! `vakra run` against model servers' dialects: the stand-in plays the demo's capability-2
//! ground truth shaped as each fixture of `crates/vakra-standin/fixtures/dialects/` says (vLLM,
//! SGLang, Ollama, llama.cpp, LiteLLM, OpenAI, a server that streams unasked), through the whole
//! run. Every sample's calls and answer are the ground truth's; reasoning text is kept in the
//! trajectory and never sent back; a 200 answer holding an `error` object is that sample's
//! error, naming the field.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common::{demo_ground_truth, demo_root, demo_split, vakra};
use serde_json::Value;
use vakra_standin::{Behaviour, Dialect, Oracle, StandIn};
use vakra_test_kit::net::serve_in_thread;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::text::read_json;

const CAP2: &str = "capability_2_dashboard_apis";

fn fixture(name: &str) -> PathBuf {
    repo_root().join(format!(
        "crates/vakra-standin/fixtures/dialects/{name}.json"
    ))
}

/// Runs the weather domain of capability 2 against the stand-in in `name`'s dialect, one sample
/// at a time; the records, the trajectory lines and every request body the stand-in received.
fn run_dialect(name: &str) -> (Vec<Value>, Vec<Value>, String, Dialect) {
    let dialect = Dialect::load(&fixture(name)).unwrap();
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("requests.jsonl");
    let mut standin = StandIn::new(Behaviour::Dialect(
        Oracle::load(&demo_split()).unwrap(),
        Box::new(dialect.clone()),
    ));
    standin.log = Some(std::sync::Mutex::new(std::fs::File::create(&log).unwrap()));
    let url = format!("http://{}/v1", serve_in_thread(Arc::new(standin).router()));
    let root = demo_root(false);
    let out = work.path().join("out");
    let output = vakra()
        .args([
            "run",
            "--quiet",
            "--model",
            "stand-in",
            "--model-url",
            &url,
            "--input",
        ])
        .arg(demo_split())
        .arg("--out")
        .arg(&out)
        .arg("--root")
        .arg(root.path())
        .args(["--capability", "2", "--domain", "weather", "--jobs", "1"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{name}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let Value::Array(records) = read_json(&out.join(CAP2).join("weather.json")) else {
        panic!("{name}: the records are not a list")
    };
    let trajectories = trajectory_lines(&out.join(CAP2));
    let requests = std::fs::read_to_string(&log).unwrap();
    (records, trajectories, requests, dialect)
}

fn trajectory_lines(dir: &Path) -> Vec<Value> {
    let mut lines = Vec::new();
    for file in std::fs::read_dir(dir).unwrap().flatten() {
        if file
            .file_name()
            .to_string_lossy()
            .ends_with(".trajectory.jsonl")
        {
            for line in std::fs::read_to_string(file.path()).unwrap().lines() {
                lines.push(serde_json::from_str(line).unwrap());
            }
        }
    }
    lines
}

/// A record's calls and answer of its scored turn (a ground-truth answer of one text in a list
/// is that text, as the stand-in plays it).
fn calls_and_answer(record: &Value) -> (Value, Value) {
    let turn = &record["output"][0];
    let answer = match &turn["answer"] {
        Value::Array(items) if items.len() == 1 => items[0].clone(),
        other => other.clone(),
    };
    (turn["sequence"]["tool_call"].clone(), answer)
}

fn assert_plays_the_ground_truth(name: &str, reasoning: Option<&str>) {
    let (records, trajectories, requests, _) = run_dialect(name);
    let truth = demo_ground_truth(CAP2, "weather");
    assert_eq!(records.len(), truth.len(), "{name}");
    for (record, expected) in records.iter().zip(&truth) {
        assert_eq!(record["status"], "success", "{name}: {record}");
        assert_eq!(
            calls_and_answer(record),
            calls_and_answer(expected),
            "{name}"
        );
    }
    if let Some(text) = reasoning {
        let kept = trajectories
            .iter()
            .flat_map(|t| t["steps"].as_array().cloned().unwrap_or_default())
            .filter(|s| s["reasoning"] == text)
            .count();
        assert!(kept > 0, "{name}: the reasoning is kept in the trajectory");
        assert!(
            !requests.contains(text),
            "{name}: the reasoning is never sent back"
        );
    }
}

#[test]
fn openai() {
    assert_plays_the_ground_truth("openai", None);
}

#[test]
fn vllm() {
    assert_plays_the_ground_truth(
        "vllm",
        Some("The user asks for data; I should call the tool first."),
    );
}

#[test]
fn sglang() {
    assert_plays_the_ground_truth(
        "sglang",
        Some("Let me think about which tool answers this."),
    );
}

#[test]
fn ollama() {
    assert_plays_the_ground_truth(
        "ollama",
        Some("Thinking: the question needs one tool call."),
    );
}

#[test]
fn llamacpp() {
    assert_plays_the_ground_truth("llamacpp", Some("I will look this up."));
}

#[test]
fn a_server_that_streams_unasked() {
    assert_plays_the_ground_truth("streaming", Some("Streaming my thoughts."));
}

/// LiteLLM: the first request is answered 200 with an `error` object, which fails that sample
/// only, saying so; the other samples play the ground truth although `usage` is missing and the
/// choice of index 0 comes second.
#[test]
fn litellm() {
    let (records, _, _, _) = run_dialect("litellm");
    let truth = demo_ground_truth(CAP2, "weather");
    let failed: Vec<&Value> = records.iter().filter(|r| r["status"] == "error").collect();
    assert_eq!(failed.len(), 1, "{records:?}");
    let error = failed[0]["error"].as_str().unwrap();
    assert!(
        error.contains("`error` object") && error.contains("upstream model server unreachable"),
        "{error}"
    );
    for (record, expected) in records.iter().zip(&truth) {
        if record["status"] == "success" {
            assert_eq!(calls_and_answer(record), calls_and_answer(expected));
        }
    }
    assert_eq!(
        records.len() - 1,
        records.iter().filter(|r| r["status"] == "success").count()
    );
}

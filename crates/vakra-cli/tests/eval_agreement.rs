//! Whole-pipeline agreement with the reference evaluator in `--exact-match reference` mode:
//! pairing, replay, response collection and the exact-match rule together. The expected
//! verdicts are the reference evaluator's own, recorded by `scripts/record_eval_agreement.py`
//! with its MCP connection pointed at `vakra mcp`, so both evaluators replayed against the same
//! servers:
//!
//! - `fixtures/eval_agreement/reference_verdicts.json`: the demo split's ground truth as
//!   predictions and perturbations of it (`fixtures/eval_agreement/<variant>/`), over the demo
//!   data root; score and explanation of every sample are compared;
//! - `fixtures/eval_agreement/sample_data_verdicts.json`: the published sample traces over a
//!   root imported from the reference (`VAKRA_REF`); score and the explanation's SHA-256.
//!
//! Entries recorded with `"compare": false` are the documented deliberate differences and the
//! inputs on which the reference stops with an exception; they are listed, not compared.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{demo_root, vakra};
use serde_json::Value;
use sha2::{Digest, Sha256};
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::process::output_ok;
use vakra_test_kit::reference;
use vakra_test_kit::text::read_json;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/eval_agreement")
}

/// Runs `vakra eval --exact-match reference` and returns its report. The verdicts were recorded
/// against capability-1 servers answering as under pandas 2, hence `--pandas 2`.
fn eval(ground_truth: &Path, predictions: &Path, root: &Path) -> Value {
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("report.json");
    output_ok(
        vakra()
            .args([
                "eval",
                "--quiet",
                "--pandas",
                "2",
                "--exact-match",
                "reference",
                "--ground-truth",
            ])
            .arg(ground_truth)
            .arg("--predictions")
            .arg(predictions)
            .arg("--root")
            .arg(root)
            .arg("--report")
            .arg(&report),
    );
    read_json(&report)
}

/// Our exact-match verdict of one sample: (turn_id, score, explanation).
fn our_verdict(report: &Value, capability: &Value, uuid: &Value) -> Option<(Value, Value, Value)> {
    let samples = report["capabilities"][capability.to_string()]["samples"].as_array()?;
    let sample = samples.iter().find(|s| &s["uuid"] == uuid)?;
    let exact = &sample["judges"]["exact_match"];
    Some((
        sample["turn_id"].clone(),
        exact["score"].clone(),
        exact["explanation"].clone(),
    ))
}

/// Where two explanations part, for long ones.
fn first_difference(reference: &Value, ours: &Value) -> String {
    let (a, b) = (reference.to_string(), ours.to_string());
    match a.chars().zip(b.chars()).position(|(x, y)| x != y) {
        Some(at) => {
            let tail = |s: &str| s.chars().skip(at).take(60).collect::<String>();
            format!(
                "first difference at character {at}: reference {:?}… | vakra {:?}…",
                tail(&a),
                tail(&b)
            )
        }
        None if a.len() != b.len() => "one explanation extends the other".into(),
        None => "explanations equal".into(),
    }
}

/// Checks the recorded verdicts, one `vakra eval` run per group; returns (agreeing, compared,
/// disagreements as readable diffs).
fn compare(
    recorded: &[Value],
    group: impl Fn(&Value) -> String,
    run: impl Fn(&str) -> Value,
    explanation: impl Fn(&Value) -> Value,
    reference_explanation: &str,
) -> (usize, usize, Vec<String>) {
    let mut groups: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for entry in recorded.iter().filter(|e| e["compare"] == true) {
        groups.entry(group(entry)).or_default().push(entry);
    }
    let (mut agree, mut compared, mut diffs) = (0, 0, Vec::new());
    for (name, entries) in groups {
        let report = run(&name);
        for entry in entries {
            compared += 1;
            let label = format!(
                "{name} / capability {} / {} / {}",
                entry["capability"], entry["domain"], entry["uuid"]
            );
            let Some((turn_id, score, ours)) =
                our_verdict(&report, &entry["capability"], &entry["uuid"])
            else {
                diffs.push(format!("{label}: no sample in vakra's report"));
                continue;
            };
            let ours = explanation(&ours);
            let theirs = &entry[reference_explanation];
            let score_ok = score.as_f64() == entry["score"].as_f64();
            if score_ok && turn_id == entry["turn_id"] && &ours == theirs {
                agree += 1;
            } else {
                diffs.push(format!(
                    "{label}\n  turn_id      reference {} | vakra {turn_id}\n  score        reference {} | vakra {score}\n  explanation  reference {theirs}\n               vakra     {ours}\n               {}",
                    entry["turn_id"],
                    entry["score"],
                    first_difference(theirs, &ours)
                ));
            }
        }
    }
    (agree, compared, diffs)
}

/// The demo split's ground truth as predictions and its perturbations, over the demo data root:
/// every comparable recorded verdict, score, turn and explanation, is vakra's.
#[test]
fn whole_pipeline_exact_match_verdicts_equal_the_reference_on_synthetic_traces() {
    let recorded = read_json(&fixtures().join("reference_verdicts.json"));
    let recorded = recorded.as_array().unwrap();
    let root = demo_root(true);
    let (agree, compared, diffs) = compare(
        recorded,
        |entry| entry["variant"].as_str().unwrap().to_owned(),
        |variant| {
            let dir = fixtures().join(variant);
            let ground_truth = if dir.join("ground_truth").is_dir() {
                dir.join("ground_truth")
            } else {
                repo_root().join("demo/tasks")
            };
            eval(&ground_truth, &dir.join("predictions"), root.path())
        },
        Value::clone,
        "explanation",
    );
    let excluded = recorded.len() - compared;
    eprintln!("{agree} of {compared} verdicts agree ({excluded} recorded but not compared)");
    assert!(
        compared >= 100,
        "only {compared} comparable verdicts were recorded"
    );
    assert!(
        diffs.is_empty(),
        "{} of {compared} verdicts differ from the reference evaluator's:\n\n{}",
        diffs.len(),
        diffs.join("\n\n")
    );
}

/// The published sample traces as ground truth and their last turn as predictions, over a root
/// imported from a reference checkout ([`reference::checkout`]); skipped without one unless
/// `VAKRA_REQUIRE_REF_CHECKOUT=1`.
#[test]
fn whole_pipeline_exact_match_verdicts_equal_the_reference_on_the_sample_traces() {
    let Some(reference) = reference::checkout("the exact-match verdicts on the sample traces")
    else {
        return;
    };
    let Some(shared) = reference::file("sample_data") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    output_ok(
        vakra()
            .args(["import", "--vakra-repo"])
            .arg(&reference)
            .arg("--out")
            .arg(root.path()),
    );
    // The split: each published file under its domain's name; the predictions: the same
    // records holding only their last turn, as a submission does (as the recording script).
    let split = tempfile::tempdir().unwrap();
    let predictions = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&shared).unwrap().flatten() {
        let path = entry.path().join("output.json");
        if !path.is_file() {
            continue;
        }
        let mut records = read_json(&path);
        let domain = records[0]["domain"].as_str().unwrap().to_owned();
        let file = format!("{domain}.json");
        let name = entry.file_name();
        let gt_dir = split.path().join(&name).join("output");
        std::fs::create_dir_all(&gt_dir).unwrap();
        std::fs::write(gt_dir.join(&file), records.to_string()).unwrap();
        for record in records.as_array_mut().unwrap() {
            let turns = record["output"].as_array_mut().unwrap();
            turns.drain(..turns.len().saturating_sub(1));
        }
        let pred_dir = predictions.path().join(&name);
        std::fs::create_dir_all(&pred_dir).unwrap();
        std::fs::write(pred_dir.join(&file), records.to_string()).unwrap();
    }
    let recorded = read_json(&fixtures().join("sample_data_verdicts.json"));
    let recorded = recorded.as_array().unwrap();
    let (agree, compared, diffs) = compare(
        recorded,
        |_| "sample_data".to_owned(),
        |_| eval(split.path(), predictions.path(), root.path()),
        |explanation| {
            let text = explanation.as_str().unwrap_or_default();
            Value::String(hex::encode(Sha256::digest(text.as_bytes())))
        },
        "explanation_sha256",
    );
    eprintln!(
        "{agree} of {compared} sample-trace verdicts agree ({} recorded)",
        recorded.len()
    );
    assert!(
        diffs.is_empty(),
        "{} of {compared} sample-trace verdicts differ from the reference evaluator's:\n\n{}",
        diffs.len(),
        diffs.join("\n\n")
    );
}

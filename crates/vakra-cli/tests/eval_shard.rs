//! `vakra eval --shard I/N` and `vakra eval merge` on the demo split: the shards split the
//! samples, and their merged report equals the unsharded run's (timing aside); merging a wrong
//! set of reports fails with a clear error.

use std::path::{Path, PathBuf};

use crate::common::{demo_root, demo_split, vakra};
use serde_json::{Value, json};
use vakra_test_kit::process::output_ok;

/// The ground truth's output records as predictions, with one record dropped (a missing
/// prediction), one answer changed (a wrong one) and one uuid the ground truth lacks (an extra).
fn predictions(into: &Path) {
    let (mut dropped, mut changed) = (false, false);
    for entry in std::fs::read_dir(demo_split()).unwrap().flatten() {
        let dir = into.join(entry.file_name());
        std::fs::create_dir_all(&dir).unwrap();
        for file in std::fs::read_dir(entry.path().join("output"))
            .unwrap()
            .flatten()
        {
            let text = std::fs::read_to_string(file.path()).unwrap();
            let mut records: Vec<Value> = serde_json::from_str(&text).unwrap();
            if !dropped && records.len() >= 2 {
                dropped = true;
                records.remove(0);
            } else if dropped && !changed {
                changed = true;
                let mut extra = records[0].clone();
                extra["uuid"] = json!("not-in-the-ground-truth");
                let last = records[0]["output"]
                    .as_array_mut()
                    .unwrap()
                    .last_mut()
                    .unwrap();
                last["answer"] = json!("an answer no judge accepts 1234567");
                records.push(extra);
            }
            std::fs::write(
                dir.join(file.file_name()),
                serde_json::to_string(&records).unwrap(),
            )
            .unwrap();
        }
    }
    assert!(dropped && changed, "the demo split has the files to change");
}

fn eval(root: &Path, predictions: &Path, report: &Path, extra: &[&str]) -> Value {
    output_ok(
        vakra()
            .args(["eval", "--quiet", "--ground-truth"])
            .arg(demo_split())
            .arg("--predictions")
            .arg(predictions)
            .arg("--root")
            .arg(root)
            .arg("--report")
            .arg(report)
            .args(extra),
    );
    serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap()
}

fn without_timing(mut report: Value) -> Value {
    report.as_object_mut().unwrap().remove("timing");
    report
}

fn samples(report: &Value) -> Vec<String> {
    report["capabilities"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|c| c["samples"].as_array().unwrap())
        .map(|s| s["uuid"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn three_shards_merged_equal_the_whole_run() {
    let root = demo_root(true);
    let preds = tempfile::tempdir().unwrap();
    predictions(preds.path());
    let out = tempfile::tempdir().unwrap();
    let whole = eval(
        root.path(),
        preds.path(),
        &out.path().join("whole.json"),
        &[],
    );
    let score = whole["leaderboard_score"].as_f64().unwrap();
    assert!(score > 0.0 && score < 100.0, "a mixed run: {score}");

    let mut shard_paths: Vec<PathBuf> = Vec::new();
    let mut covered = Vec::new();
    // Given out of order on purpose: merge orders them itself.
    for index in [2, 0, 1] {
        let path = out.path().join(format!("shard-{index}.json"));
        let shard = format!("{index}/3");
        let report = eval(root.path(), preds.path(), &path, &["--shard", &shard]);
        assert_eq!(report["settings"]["shard"], json!(shard));
        let uuids = samples(&report);
        assert!(!uuids.is_empty(), "shard {shard} has samples");
        covered.extend(uuids);
        shard_paths.push(path);
    }
    let mut all = samples(&whole);
    all.sort();
    covered.sort();
    assert_eq!(covered, all, "the shards split the samples, each once");

    let merged_path = out.path().join("merged.json");
    let (markdown, html) = (out.path().join("m.md"), out.path().join("m.html"));
    let output = output_ok(
        vakra()
            .args(["eval", "merge"])
            .args(&shard_paths)
            .arg("--report")
            .arg(&merged_path)
            .arg("--markdown")
            .arg(&markdown)
            .arg("--html")
            .arg(&html),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("leaderboard score {score:.2}")),
        "{stdout}"
    );
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_path).unwrap()).unwrap();
    assert_eq!(merged["timing"]["samples"], whole["timing"]["samples"]);
    let (merged, whole) = (without_timing(merged), without_timing(whole));
    if merged != whole {
        panic!(
            "merged report differs from the whole run's:\n--- whole\n{}\n--- merged\n{}",
            serde_json::to_string_pretty(&whole).unwrap(),
            serde_json::to_string_pretty(&merged).unwrap()
        );
    }
    assert!(
        std::fs::read_to_string(&markdown)
            .unwrap()
            .contains("capability")
    );
    assert!(std::fs::read_to_string(&html).unwrap().contains("<html"));
}

#[test]
fn a_wrong_set_of_reports_or_shard_fails_clearly() {
    let root = demo_root(false);
    let preds = tempfile::tempdir().unwrap();
    predictions(preds.path());
    let out = tempfile::tempdir().unwrap();
    let split = ["--capability", "2"];
    let shard = |i: usize, n: usize| {
        let path = out.path().join(format!("s{i}of{n}.json"));
        let spec = format!("{i}/{n}");
        let mut args = split.to_vec();
        args.extend(["--shard", &spec]);
        eval(root.path(), preds.path(), &path, &args);
        path
    };
    let (a, b, c) = (shard(0, 2), shard(1, 2), shard(0, 3));
    let whole = out.path().join("whole.json");
    eval(root.path(), preds.path(), &whole, &split);
    let merge = |reports: &[&Path]| {
        let output = vakra()
            .args(["eval", "merge"])
            .args(reports)
            .arg("--report")
            .arg(out.path().join("m.json"))
            .output()
            .unwrap();
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    assert!(
        merge(&[&a]).contains("shards 1 of 2 are missing"),
        "{}",
        merge(&[&a])
    );
    assert!(merge(&[&a, &a, &b]).contains("shard 0/2 is given twice"));
    assert!(merge(&[&a, &b, &c]).contains("shards of runs in 2 and 3 parts"));
    assert!(merge(&[&whole]).contains("not the report of a shard"));
    let junk = out.path().join("junk.json");
    std::fs::write(&junk, "{\"leaderboard_score\": 1}").unwrap();
    assert!(merge(&[&junk]).contains("not a report of `vakra eval`"));

    for (bad, message) in [
        ("3/3", "the index must be below the count (0 to 2)"),
        ("1/0", "the count N must be at least 1"),
        ("x", "expected I/N"),
    ] {
        let output = vakra()
            .args(["eval", "--shard", bad, "--ground-truth"])
            .arg(demo_split())
            .arg("--predictions")
            .arg(preds.path())
            .arg("--report")
            .arg(out.path().join("never.json"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success() && stderr.contains(message),
            "{bad}: {stderr}"
        );
    }
    // The run without a subcommand still needs its three paths.
    let output = vakra()
        .args(["eval", "--report", "r.json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("--predictions"),
        "{stderr}"
    );
}

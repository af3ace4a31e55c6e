//! `vakra eval diff`: two real runs on the demo split — the ground truth as predictions, then
//! the same with one sample broken and one fixed — compared as text, JSON and HTML; and a
//! file that is not a report refused with a clear message.

use std::path::Path;

use crate::common::{demo_ground_truth, demo_root, run_eval, vakra};
use serde_json::{Value, json};
use vakra_test_kit::process::output_ok;

fn write_domain(dir: &Path, capability_dir: &str, domain: &str, records: &Value) {
    let folder = dir.join(capability_dir);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(format!("{domain}.json")), records.to_string()).unwrap();
}

#[test]
fn two_runs_compared_show_what_changed() {
    let root = demo_root(true);
    let cap2 = "capability_2_dashboard_apis";
    let only = ["--capability", "2"];
    // Run A: library as the ground truth, weather's sample without any call (it fails).
    let a_preds = tempfile::tempdir().unwrap();
    let library = demo_ground_truth(cap2, "library");
    let weather = demo_ground_truth(cap2, "weather");
    let weather_uuid = weather[0]["uuid"].as_str().unwrap().to_owned();
    write_domain(a_preds.path(), cap2, "library", &json!(library));
    let mut no_calls = weather.clone();
    no_calls[0]["output"][0]["sequence"] = json!({"tool_call": []});
    write_domain(a_preds.path(), cap2, "weather", &json!(no_calls));
    // Run B: weather as the ground truth (fixed), library's first sample with a wrong value.
    let b_preds = tempfile::tempdir().unwrap();
    let mut broken = library.clone();
    let library_uuid = broken[0]["uuid"].as_str().unwrap().to_owned();
    broken[0]["output"][0]["sequence"]["tool_call"][0]["arguments"] = json!({"branch_id": 1});
    broken[0]["output"][0]["answer"] = json!("no idea");
    write_domain(b_preds.path(), cap2, "library", &json!(broken));
    write_domain(b_preds.path(), cap2, "weather", &json!(weather));

    let dir = tempfile::tempdir().unwrap();
    let (_, report_a) = run_eval(root.path(), a_preds.path(), &only);
    let (_, report_b) = run_eval(root.path(), b_preds.path(), &only);
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, report_a.to_string()).unwrap();
    std::fs::write(&b, report_b.to_string()).unwrap();
    let (json_out, html_out) = (dir.path().join("diff.json"), dir.path().join("diff.html"));
    let markdown_out = dir.path().join("diff.md");
    let output = output_ok(
        vakra()
            .args(["eval", "diff"])
            .arg(&a)
            .arg(&b)
            .arg("--json")
            .arg(&json_out)
            .arg("--html")
            .arg(&html_out)
            .arg("--markdown")
            .arg(&markdown_out),
    );
    let diff: Value = serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    assert_eq!(
        diff["summary"],
        json!({"fixed": 1, "broken": 1, "unchanged": 1})
    );
    let changed: Vec<(&str, &str)> = diff["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["uuid"].as_str().unwrap(), c["change"].as_str().unwrap()))
        .collect();
    assert_eq!(
        changed,
        [
            (library_uuid.as_str(), "broken"),
            (weather_uuid.as_str(), "fixed")
        ]
    );
    let sample_b = report_b["capabilities"]["2"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uuid"] == library_uuid.as_str())
        .unwrap();
    assert_eq!(
        diff["changed"][0]["b"]["error_stage"],
        sample_b["error_stage"]
    );
    assert_eq!(
        diff["changed"][0]["b"]["decided_by"],
        sample_b["decided_by"]
    );
    // Deltas per capability and domain, as the two reports have them.
    let c = &diff["capabilities"]["2"];
    let score = |r: &Value| r["capabilities"]["2"]["score"].as_f64().unwrap();
    assert_eq!(c["score"]["a"].as_f64().unwrap(), score(&report_a));
    assert_eq!(c["score"]["b"].as_f64().unwrap(), score(&report_b));
    for domain in ["library", "weather"] {
        let of = |r: &Value| {
            r["capabilities"]["2"]["domains"][domain]["score"]
                .as_f64()
                .unwrap()
        };
        assert_eq!(c["domains"][domain]["a"].as_f64().unwrap(), of(&report_a));
        assert_eq!(c["domains"][domain]["b"].as_f64().unwrap(), of(&report_b));
    }
    assert_eq!(c["domains"]["weather"]["delta"], 100.0);
    // The error categories that moved: weather's out of one, library's into another.
    let errors = |r: &Value| r["capabilities"]["2"]["errors"].clone();
    let moved = c["errors"].as_object().unwrap();
    assert_eq!(moved.len(), 2, "{moved:?}");
    for (stage, d) in moved {
        let count = |r: &Value| errors(r)[stage].as_f64().unwrap_or(0.0);
        assert_eq!(d["a"].as_f64().unwrap(), count(&report_a), "{stage}");
        assert_eq!(d["b"].as_f64().unwrap(), count(&report_b), "{stage}");
        assert_ne!(d["delta"], 0.0);
    }
    // Every report carries its intervals, around its score.
    for report in [&report_a, &report_b] {
        let c = &report["capabilities"]["2"];
        let (low, high) = (
            c["interval"]["samples"]["low"].as_f64().unwrap(),
            c["interval"]["samples"]["high"].as_f64().unwrap(),
        );
        let score = c["score"].as_f64().unwrap();
        assert!(low <= score && score <= high && low < high, "{c}");
        let board = &report["leaderboard_interval"]["samples"];
        assert!(board["low"].as_f64().unwrap() <= report["leaderboard_score"].as_f64().unwrap());
        assert_eq!(report["intervals"]["resamples"], 2000);
        assert!(c["interval"].get("trials").is_none(), "one trial each");
    }
    // The paired comparison: one fixed, one broken, so no difference and McNemar's p is 1.
    let paired = &c["paired"];
    assert_eq!(paired["n_pairs"], 3);
    assert_eq!(paired["difference"], 0.0);
    assert_eq!(
        paired["mcnemar"],
        json!({"fixed": 1, "broken": 1, "p": 1.0})
    );
    assert!(paired["bootstrap_p"].as_f64().unwrap() > 0.5, "{paired}");
    assert!(
        paired["samples_for_one_point"].as_u64().unwrap() > 100,
        "{paired}"
    );
    assert_eq!(diff["paired"]["n_pairs"], 3);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("paired on 3 samples: B − A = +0.00 points, 95 % CI ")
            && text.contains("McNemar p = 1.0000 (1 fixed, 1 broken)"),
        "{text}"
    );
    let markdown = std::fs::read_to_string(&markdown_out).unwrap();
    assert!(markdown.contains("| capability | A | B | delta | paired difference (95 % CI) |"));
    assert!(markdown.contains("| 2 | "), "{markdown}");
    assert!(markdown.contains("| broken | 2 | library |"), "{markdown}");
    assert!(
        text.contains("verdicts changed: 2 (1 broken, 1 fixed; 1 unchanged)"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "broken  capability 2  library  {library_uuid}  pass → fail"
        )),
        "{text}"
    );
    let html = std::fs::read_to_string(&html_out).unwrap();
    assert!(html.contains(&format!("<tr class='broken' data-uuid='{library_uuid}'>")));
    assert!(html.contains(&format!("<tr class='fixed' data-uuid='{weather_uuid}'>")));
    assert!(!html.contains("<script"), "a static page");
    assert!(
        html.contains("<p class=meta id=paired>paired on 3 samples"),
        "{html}"
    );
    assert!(html.contains("McNemar p = 1.0000"));
}

#[test]
fn a_file_that_is_not_a_report_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"capabilities": 3}"#).unwrap();
    let output = vakra()
        .args(["eval", "diff"])
        .arg(&bad)
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.json: not a vakra eval report"),
        "{stderr}"
    );
    // A run's options and the subcommand do not mix.
    let output = vakra()
        .args(["eval", "--report", "r.json", "diff"])
        .arg(&bad)
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("cannot be used with"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

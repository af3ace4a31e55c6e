//! `vakra eval board`: two real runs on the demo split's capability 2 (the ground truth as
//! predictions, cheap and fast; then one sample broken, dearer and slower), with the tokens and
//! seconds `vakra run` writes in each record, put side by side as Markdown and as an HTML page
//! rendered in headless Chromium (`tests/browser/board_check.mjs`).

use std::path::Path;

use crate::common::{
    browser_tooling, demo_ground_truth, demo_root, run_browser_script, run_eval, vakra,
};
use serde_json::{Value, json};
use vakra_test_kit::process::output_ok;

const CAP2: &str = "capability_2_dashboard_apis";

/// The demo's capability-2 ground truth as predictions, each record with `usage` and
/// `duration_s`; with `broken`, the library's first sample answers wrongly.
fn predictions(dir: &Path, tokens: (u64, u64), seconds: f64, broken: bool) {
    let folder = dir.join(CAP2);
    std::fs::create_dir_all(&folder).unwrap();
    for domain in ["library", "weather"] {
        let mut records = demo_ground_truth(CAP2, domain);
        for record in &mut records {
            record["usage"] = json!({"input_tokens": tokens.0, "output_tokens": tokens.1});
            record["duration_s"] = json!(seconds);
        }
        if broken && domain == "library" {
            records[0]["output"][0]["sequence"]["tool_call"][0]["arguments"] =
                json!({"branch_id": 1});
            records[0]["output"][0]["answer"] = json!("no idea");
        }
        std::fs::write(
            folder.join(format!("{domain}.json")),
            json!(records).to_string(),
        )
        .unwrap();
    }
}

/// Two reports, A (all correct, cheap) and B (one wrong, dear), written into `dir`.
fn two_reports(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, Value, Value) {
    let root = demo_root(true);
    let args = ["--capability", "2", "--price-in", "1", "--price-out", "2"];
    let (a_preds, b_preds) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    predictions(a_preds.path(), (1000, 100), 2.0, false);
    predictions(b_preds.path(), (5000, 500), 4.0, true);
    let (_, a) = run_eval(root.path(), a_preds.path(), &args);
    let (_, b) = run_eval(root.path(), b_preds.path(), &args);
    let (a_path, b_path) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a_path, a.to_string()).unwrap();
    std::fs::write(&b_path, b.to_string()).unwrap();
    (a_path, b_path, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_side_by_side_render_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let dir_path = dir.path().to_owned();
    let (a, b, report_a, report_b) = tokio::task::spawn_blocking(move || two_reports(&dir_path))
        .await
        .unwrap();
    assert!(report_a["leaderboard_score"].as_f64() > report_b["leaderboard_score"].as_f64());
    assert!(report_a["cost_usd"].as_f64() < report_b["cost_usd"].as_f64());
    assert_eq!(report_b["latency"]["mean_s"], 4.0);
    let (html, markdown) = (dir.path().join("board.html"), dir.path().join("board.md"));
    output_ok(
        vakra()
            .args(["eval", "board"])
            .arg(&a)
            .arg(&b)
            .arg("--html")
            .arg(&html)
            .arg("--markdown")
            .arg(&markdown),
    );
    let (a_name, b_name) = (a.display().to_string(), b.display().to_string());

    let md = std::fs::read_to_string(&markdown).unwrap();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 2, "{md}");
    let f = |v: &Value| format!("{:.2}", v.as_f64().unwrap());
    let i = &report_a["leaderboard_interval"]["samples"];
    let expected = format!(
        "| `{a_name}` | {} | 95 % CI {}–{} |",
        f(&report_a["leaderboard_score"]),
        f(&i["low"]),
        f(&i["high"])
    );
    assert!(rows[0].starts_with(&expected), "{}\n{expected}", rows[0]);
    assert!(rows[1].contains("| 4.00 |"), "mean latency: {}", rows[1]);
    assert!(
        md.contains("| 2 | library | 100.00 (1/1) |") || md.contains("| 2 | library | 100.00 ("),
        "{md}"
    );

    let Some((chromium, script)) = browser_tooling("board_check.mjs") else {
        return;
    };
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-board.png");
    let page = run_browser_script(
        &chromium,
        &script,
        &[html.as_os_str(), screenshot.as_os_str()],
    )
    .await;
    assert_eq!(page["consoleErrors"], json!([]));
    assert_eq!(page["title"], "VAKRA board");
    let runs = page["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0][0], a_name.as_str());
    assert_eq!(runs[1][0], b_name.as_str());
    let score_b = format!("{:.2}", report_b["leaderboard_score"].as_f64().unwrap());
    assert_eq!(runs[1][1], score_b.as_str());
    assert!(
        runs[1][2].as_str().unwrap().starts_with("95 % CI "),
        "{runs:?}"
    );
    let headers: Vec<&str> = page["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert!(
        headers.contains(&"capability 2") && headers.contains(&"cost ($)"),
        "{headers:?}"
    );

    // The plot: A is cheaper (left) and scores higher (up) than B; both points are painted.
    let points = page["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{page}");
    let point = |name: &str| points.iter().find(|p| p["run"] == name).unwrap().clone();
    let (pa, pb) = (point(&a_name), point(&b_name));
    for p in [&pa, &pb] {
        assert_eq!(p["painted"], true, "{p}");
        assert!(p["width"].as_f64().unwrap() > 5.0, "{p}");
    }
    assert!(pa["x"].as_f64() < pb["x"].as_f64(), "{pa} {pb}");
    assert!(pa["y"].as_f64() < pb["y"].as_f64(), "{pa} {pb}");
    // B's interval is a visible bar; A's (every sample correct) has no height.
    let intervals = page["intervals"].as_array().unwrap();
    assert_eq!(intervals.len(), 2);
    assert!(
        intervals.iter().any(|h| h.as_f64().unwrap() > 2.0),
        "{intervals:?}"
    );
    let domains = page["domainRows"].as_array().unwrap();
    assert_eq!(domains.len(), 2, "library and weather");
    assert_eq!(domains[1][1], "weather");
}

#[test]
fn a_file_that_is_not_a_report_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"leaderboard_score\": 1}").unwrap();
    let output = vakra().args(["eval", "board"]).arg(&bad).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.json: not a report of `vakra eval`"),
        "{stderr}"
    );
    let output = vakra().args(["eval", "board"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "a report is required");
}

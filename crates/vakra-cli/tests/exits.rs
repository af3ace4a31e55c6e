//! Processes end with their work: `vakra mcp` exits within a second of its client closing
//! stdin, even with a call in flight, and `vakra eval` within a second of writing its report,
//! even when a call it gave up on is still running.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{slow_root, vakra};
use serde_json::json;

/// How long after its client or its report a process may take to exit (the aim is a second;
/// the slack is for a loaded CI machine).
const EXIT_BOUND: Duration = Duration::from_millis(1500);

fn wait_exit(child: &mut std::process::Child, limit: Duration) -> Duration {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return started.elapsed();
        }
        assert!(started.elapsed() < limit, "still running after {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn mcp_exits_when_its_client_closes_stdin_mid_call() {
    let root = slow_root();
    let mut child = vakra()
        .args(["mcp", "--capability", "2", "--domain", "slow", "--root"])
        .arg(root.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        // Counting to 10^12 runs until the 30 s statement limit.
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "get_count_to", "arguments": {"n": 1_000_000_000_000u64}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        child.try_wait().unwrap().is_none(),
        "exited before stdin closed"
    );
    drop(stdin);
    let took = wait_exit(&mut child, Duration::from_secs(20));
    assert!(took < EXIT_BOUND, "exited {took:?} after stdin closed");
}

#[test]
fn eval_exits_once_its_report_is_written() {
    let root = slow_root();
    let split = tempfile::tempdir().unwrap();
    let predictions = tempfile::tempdir().unwrap();
    let record = |n: u64| {
        json!([{"uuid": "slow-1", "domain": "slow", "status": "success", "error": "",
                "duration_s": 1.0, "output": [{"turn_id": 0, "query": "count", "answer": "10",
                "sequence": {"tool_call": [{"name": "get_count_to", "arguments": {"n": n}}]}}]}])
    };
    let output = split.path().join("capability_2_dashboard_apis/output");
    std::fs::create_dir_all(&output).unwrap();
    std::fs::write(output.join("slow.json"), record(10).to_string()).unwrap();
    let mine = predictions.path().join("capability_2_dashboard_apis");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(
        mine.join("slow.json"),
        record(1_000_000_000_000).to_string(),
    )
    .unwrap();
    let report = split.path().join("report.json");
    // In process: the prediction's statement runs on until the 30 s limit after the evaluator
    // stopped waiting for it at 1 s.
    let mut child = vakra()
        .args([
            "eval",
            "--quiet",
            "--call-timeout-secs",
            "1",
            "--ground-truth",
        ])
        .arg(split.path())
        .arg("--predictions")
        .arg(predictions.path())
        .arg("--root")
        .arg(root.path())
        .arg("--report")
        .arg(&report)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !report.exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "no report");
        assert!(
            child.try_wait().unwrap().is_none(),
            "exited without a report"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = wait_exit(&mut child, Duration::from_secs(40));
    assert!(
        took < EXIT_BOUND,
        "exited {took:?} after writing its report"
    );
}

//! `vakra run` end to end: the real binary against stand-in models (OpenAI-compatible servers
//! on loopback, `vakra-standin`), then `vakra eval` and `vakra validate` on what it wrote.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::{demo_root, demo_split, run_eval, run_eval_split, vakra};
use serde_json::{Value, json};
use vakra_standin::{Behaviour, Failures, Oracle, StandIn};
use vakra_test_kit::net::serve_in_thread;
use vakra_test_kit::process::output_ok;
use vakra_test_kit::text::read_json;

/// Serves `app` on a loopback port from a thread of its own; returns its API base.
fn serve_app(app: axum::Router) -> String {
    format!("http://{}/v1", serve_in_thread(app))
}

/// Serves `standin`; returns its API base.
fn serve(standin: StandIn) -> (String, Arc<StandIn>) {
    let standin = Arc::new(standin);
    (serve_app(standin.clone().router()), standin)
}

fn oracle() -> StandIn {
    StandIn::new(Behaviour::Oracle(Oracle::load(&demo_split()).unwrap()))
}

/// The `vakra run` command of `split` on `root` into `out` with `extra` arguments.
fn run_command(
    root: &Path,
    split: &Path,
    out: &Path,
    url: &str,
    extra: &[&str],
) -> std::process::Command {
    let mut command = vakra();
    command
        .args([
            "run",
            "--quiet",
            "--model",
            "stand-in",
            "--model-url",
            url,
            "--input",
        ])
        .arg(split)
        .arg("--out")
        .arg(out)
        .arg("--root")
        .arg(root)
        .args(extra);
    command
}

/// `vakra run` of `split` on `root` into `out` with `extra` arguments.
fn run(root: &Path, split: &Path, out: &Path, url: &str, extra: &[&str]) -> Output {
    run_command(root, split, out, url, extra).output().unwrap()
}

fn run_ok(root: &Path, split: &Path, out: &Path, url: &str, extra: &[&str]) -> String {
    let output = run(root, split, out, url, extra);
    assert!(
        output.status.success(),
        "vakra run failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs capability 2 of one demo domain with `standin` (no indexes needed); returns the
/// output folder, its records and the stand-in.
fn run_capability_2(
    standin: StandIn,
    domain: &str,
    extra: &[&str],
) -> (tempfile::TempDir, Vec<Value>, Arc<StandIn>) {
    let root = demo_root(false);
    let (url, standin) = serve(standin);
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["--capability", "2", "--domain", domain];
    args.extend_from_slice(extra);
    run_ok(root.path(), &demo_split(), out.path(), &url, &args);
    let records = all_records(out.path());
    (out, records, standin)
}

/// Every prediction record of an output folder, by (capability folder, domain file).
fn records(out: &Path) -> BTreeMap<(String, String), Vec<Value>> {
    let mut all = BTreeMap::new();
    for capability in std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
    {
        for file in std::fs::read_dir(capability.path()).unwrap().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if let Some(domain) = name
                .strip_suffix(".json")
                .filter(|d| !d.ends_with("_tools") && !d.starts_with('.'))
            {
                let Value::Array(items) = read_json(&file.path()) else {
                    panic!("{name}: not a list")
                };
                all.insert(
                    (
                        capability.file_name().to_string_lossy().into_owned(),
                        domain.to_owned(),
                    ),
                    items,
                );
            }
        }
    }
    all
}

/// The tool calls the records keep, all told.
fn recorded_calls(records: &[Value]) -> usize {
    records
        .iter()
        .map(|r| {
            r["output"][0]["sequence"]["tool_call"]
                .as_array()
                .unwrap()
                .len()
        })
        .sum()
}

fn all_records(out: &Path) -> Vec<Value> {
    records(out).into_values().flatten().collect()
}

fn trajectory_lines(out: &Path) -> Vec<Value> {
    let mut lines = Vec::new();
    for capability in std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
    {
        for file in std::fs::read_dir(capability.path()).unwrap().flatten() {
            if file
                .file_name()
                .to_string_lossy()
                .ends_with(".trajectory.jsonl")
            {
                for line in std::fs::read_to_string(file.path()).unwrap().lines() {
                    lines.push(serde_json::from_str(line).expect("complete JSON lines"));
                }
            }
        }
    }
    lines
}

#[test]
fn the_oracle_model_scores_100_on_every_capability_and_the_output_validates() {
    let root = demo_root(true);
    let out = tempfile::tempdir().unwrap();
    let (url, standin) = serve(oracle());
    let stdout = run_ok(
        root.path(),
        &demo_split(),
        out.path(),
        &url,
        &["--jobs", "4"],
    );
    assert!(
        stdout.contains("11 samples run (11 succeeded, 0 failed), 0 already done"),
        "{stdout}"
    );
    let (eval_stdout, report) = run_eval(root.path(), out.path(), &[]);
    assert_eq!(report["leaderboard_score"], 100.0, "{eval_stdout}");
    for n in ["1", "2", "3", "4"] {
        assert_eq!(
            report["capabilities"][n]["score"], 100.0,
            "capability {n}: {eval_stdout}"
        );
    }
    output_ok(
        vakra()
            .args(["validate", "--all", "--output-dir"])
            .arg(out.path()),
    );
    if let (Some(reference), Some(python)) = (
        vakra_test_kit::reference::optional_checkout(
            "the reference's validate_output.py on vakra run's output",
        ),
        std::env::var_os("VAKRA_PYTHON"),
    ) {
        let output = std::process::Command::new(python)
            .arg(reference.join("validate_output.py"))
            .args(["--all", "--output-dir"])
            .arg(out.path())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "validate_output.py: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    let records = all_records(out.path());
    assert_eq!(records.len(), 11);
    let mut usage = (0, 0);
    for record in &records {
        assert_eq!(record["status"], "success", "{record}");
        assert_eq!(record["output"].as_array().unwrap().len(), 1);
        assert!(record["duration_s"].as_f64().unwrap() > 0.0);
        usage.0 += record["usage"]["input_tokens"].as_u64().unwrap();
        usage.1 += record["usage"]["output_tokens"].as_u64().unwrap();
    }
    assert!(usage.0 > 0 && usage.1 > 0, "the stand-in reports usage");
    // One model request per ground-truth call plus the answer.
    let calls = recorded_calls(&records);
    assert_eq!(standin.requests(), calls + records.len());
    // Capability 1 starts from get_data's handle, which the runner calls but does not record.
    let cap1 = record_of(&records, "3ea7e0c0ffee-000000000001");
    assert_eq!(
        cap1["output"][0]["sequence"]["tool_call"][0]["arguments"]["data_label"],
        "retrieved_station_1"
    );

    let lines = trajectory_lines(out.path());
    assert_eq!(lines.len(), 11, "one trajectory line per sample");
    let line = lines
        .iter()
        .find(|l| l["uuid"] == "3ea7e0c0ffee-000000000001")
        .unwrap();
    assert_eq!(
        line["messages"][0]["role"], "system",
        "capability 1 gets a system message"
    );
    assert!(
        line["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("\"retrieved_station_1\"")
    );
    let steps = line["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    assert!(
        steps[0]["calls"][0]["result"]
            .as_str()
            .unwrap()
            .starts_with("{\"handle\": \"filtered_station_1\"")
    );
    assert!(
        steps
            .iter()
            .all(|s| s["model_ms"].as_f64().is_some() && s["input_tokens"].as_u64().unwrap() > 0)
    );
    // Capabilities 2 and 3 have no system message.
    let cap2 = lines.iter().find(|l| l["capability"] == 2).unwrap();
    assert_eq!(cap2["messages"][0]["role"], "user");

    let tools = read_json(
        &out.path()
            .join("capability_2_dashboard_apis/library_tools.json"),
    );
    let entry = &tools[0];
    assert!(entry["all_tools"].as_array().unwrap().len() > 1);
    assert_eq!(
        entry["all_tools"], entry["shortlisted_tools"],
        "no shortlist below 128 tools"
    );

    let run_json = read_json(&out.path().join("run.json"));
    assert_eq!(run_json["summary"]["succeeded"], 11);
    assert_eq!(run_json["summary"]["usage"]["input_tokens"], usage.0);
    let cap3 = &run_json["summary"]["totals"]["capability_3_multihop_reasoning"];
    assert_eq!(cap3["records"], 3);
    let per_domain: u64 = cap3["domains"]
        .as_object()
        .unwrap()
        .values()
        .map(|d| d["usage"]["output_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(per_domain, cap3["usage"]["output_tokens"].as_u64().unwrap());
}

/// The record of `uuid` among `records`.
fn record_of(records: &[Value], uuid: &str) -> Value {
    records
        .iter()
        .find(|r| r["uuid"] == uuid)
        .cloned()
        .unwrap_or_else(|| panic!("no record {uuid}"))
}

#[test]
fn capability_4_policies_reach_multi_turn_items_and_single_turn_ones_only_with_fix_quirks() {
    // The demo's capability-4 items are single-turn: a split with a policy and two turns.
    let split = tempfile::tempdir().unwrap();
    let folder = split.path().join("capability_4_multiturn");
    for part in ["input", "output"] {
        std::fs::create_dir_all(folder.join(part)).unwrap();
    }
    let input = json!([
        {"uuid": "multi", "domain": "weather", "additional_instructions": "Only use retrievers for weather",
         "dialogue": {"turns": [{"turn_id": 0, "query": "Hello?", "answer": ["Hi"]},
                                 {"turn_id": 1, "query": "How is PM2.5 measured at the stations?"}]}},
        {"uuid": "single", "domain": "weather", "additional_instructions": "Only use retrievers for weather",
         "dialogue": {"turns": [{"turn_id": 0, "query": "How is PM2.5 measured at the stations?"}]}}
    ]);
    std::fs::write(folder.join("input/weather.json"), input.to_string()).unwrap();
    let root = demo_root(true);
    let (url, _) = serve(StandIn::new(Behaviour::Text("fine".into())));
    for (fix, single_has_policy) in [(false, false), (true, true)] {
        let out = tempfile::tempdir().unwrap();
        let extra: &[&str] = if fix { &["--fix-quirks"] } else { &[] };
        run_ok(root.path(), split.path(), out.path(), &url, extra);
        let lines = trajectory_lines(out.path());
        let multi = lines.iter().find(|l| l["uuid"] == "multi").unwrap();
        let roles: Vec<&str> = multi["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "user", "assistant"]);
        assert!(
            multi["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("Only use retrievers for weather")
        );
        assert_eq!(
            multi["messages"][2]["content"], "['Hi']",
            "earlier answers as Python's str()"
        );
        let single = lines.iter().find(|l| l["uuid"] == "single").unwrap();
        assert_eq!(
            single["messages"][0]["role"] == "system",
            single_has_policy,
            "fix_quirks={fix}"
        );
    }
}

#[test]
fn a_model_that_never_calls_tools_gets_its_answer_recorded_and_scored() {
    let root = demo_root(true);
    let out = tempfile::tempdir().unwrap();
    let (url, _) = serve(StandIn::new(Behaviour::Text("I cannot tell.".into())));
    run_ok(
        root.path(),
        &demo_split(),
        out.path(),
        &url,
        &["--capability", "2"],
    );
    for record in all_records(out.path()) {
        assert_eq!(record["status"], "success");
        assert_eq!(record["output"][0]["answer"], "I cannot tell.");
        assert_eq!(record["output"][0]["sequence"]["tool_call"], json!([]));
    }
    let (_, report) = run_eval(root.path(), out.path(), &["--capability", "2"]);
    assert_eq!(report["capabilities"]["2"]["score"], 0.0);
}

#[test]
fn malformed_tool_call_arguments_end_the_run_as_langgraph_does_or_are_answered_with_fix_quirks() {
    let root = demo_root(false);
    let (url, _) = serve(StandIn::new(Behaviour::MalformedArguments));
    let out = tempfile::tempdir().unwrap();
    run_ok(
        root.path(),
        &demo_split(),
        out.path(),
        &url,
        &["--capability", "2", "--domain", "library"],
    );
    for record in all_records(out.path()) {
        assert_eq!(record["status"], "success");
        assert_eq!(record["output"][0]["answer"], "Calling a tool.");
        assert_eq!(
            record["output"][0]["sequence"]["tool_call"],
            json!([]),
            "invalid calls are not calls"
        );
    }
    let line = &trajectory_lines(out.path())[0];
    let call = &line["steps"][0]["calls"][0];
    assert_eq!(
        (call["executed"].as_bool(), call["is_error"].as_bool()),
        (Some(false), Some(true))
    );
    assert!(
        call["result"]
            .as_str()
            .unwrap()
            .contains("not a JSON object"),
        "{call}"
    );

    let out = tempfile::tempdir().unwrap();
    run_ok(
        root.path(),
        &demo_split(),
        out.path(),
        &url,
        &[
            "--capability",
            "2",
            "--domain",
            "library",
            "--fix-quirks",
            "--max-steps",
            "3",
        ],
    );
    for record in all_records(out.path()) {
        assert_eq!(record["status"], "error");
        assert!(
            record["error"].as_str().unwrap().contains("--max-steps"),
            "{record}"
        );
    }
    let line = &trajectory_lines(out.path())[0];
    assert_eq!(
        line["steps"].as_array().unwrap().len(),
        3,
        "told of its mistake, the model went on"
    );
    let tool_messages = line["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .count();
    assert_eq!(tool_messages, 3);
}

#[test]
fn a_tool_that_is_not_offered_is_answered_with_the_list_and_the_run_goes_on() {
    let (out, records, standin) =
        run_capability_2(StandIn::new(Behaviour::UnknownTool), "weather", &[]);
    assert_eq!(standin.requests(), 2 * records.len());
    for record in &records {
        assert_eq!(record["status"], "success");
        assert_eq!(record["output"][0]["answer"], "done");
        assert_eq!(
            record["output"][0]["sequence"]["tool_call"],
            json!([{"name": "no_such_tool", "arguments": {}}])
        );
    }
    let line = &trajectory_lines(out.path())[0];
    let result = line["steps"][0]["calls"][0]["result"].as_str().unwrap();
    assert!(
        result.starts_with("Error: no_such_tool is not a valid tool, try one of ["),
        "{result}"
    );
}

#[test]
fn rate_limits_are_waited_out_as_retry_after_asks() {
    let mut standin = oracle();
    standin.failures = Some(Failures {
        count: 2,
        status: 429,
        retry_after: Some(1),
        html: false,
    });
    let started = Instant::now();
    let (_out, records, standin) = run_capability_2(standin, "weather", &["--jobs", "1"]);
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "two Retry-After: 1 waits"
    );
    assert!(records.iter().all(|r| r["status"] == "success"));
    let calls = recorded_calls(&records);
    assert_eq!(
        standin.requests(),
        2 + calls + records.len(),
        "the two 429s were retried"
    );
}

#[test]
fn server_errors_are_retried_then_recorded_and_other_4xx_are_not_retried() {
    let failing = |status| {
        let mut standin = oracle();
        standin.failures = Some(Failures {
            count: usize::MAX,
            status,
            retry_after: None,
            html: status >= 500,
        });
        standin
    };
    let (_out, records, standin) =
        run_capability_2(failing(502), "weather", &["--max-retries", "2"]);
    assert_eq!(
        standin.requests(),
        3 * records.len(),
        "one try and two retries each"
    );
    for record in &records {
        assert_eq!(record["status"], "error");
        let error = record["error"].as_str().unwrap();
        assert!(
            error.contains("HTTP 502") && error.contains("<html>"),
            "{error}"
        );
        assert_eq!(record["output"][0]["answer"], "");
    }
    let (_out, records, standin) = run_capability_2(failing(400), "library", &[]);
    assert_eq!(standin.requests(), records.len(), "a 400 is not retried");
    assert!(
        records
            .iter()
            .all(|r| r["error"].as_str().unwrap().contains("HTTP 400"))
    );
}

#[test]
fn an_answer_that_is_not_json_fails_the_sample_with_its_start_quoted() {
    let (_out, records, standin) =
        run_capability_2(StandIn::new(Behaviour::Garbage), "weather", &[]);
    assert_eq!(standin.requests(), records.len(), "a 200 is not retried");
    for record in records {
        assert_eq!(record["status"], "error");
        let error = record["error"].as_str().unwrap();
        assert!(
            error.contains("not JSON") && error.contains("<html>this is not JSON"),
            "{error}"
        );
    }
}

#[test]
fn a_hanging_model_times_the_sample_out() {
    let started = Instant::now();
    let (_out, records, _) = run_capability_2(
        StandIn::new(Behaviour::Hang),
        "weather",
        &["--timeout", "2"],
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    for record in records {
        assert_eq!(record["status"], "error");
        assert_eq!(record["error"], "Agent timed out after 2.0 seconds");
        assert_eq!(record["output"][0]["sequence"]["tool_call"], json!([]));
    }
}

#[test]
fn a_run_killed_midway_resumes_without_losing_or_repeating_a_sample() {
    let root = demo_root(false);
    let mut slow = oracle();
    slow.latency = Duration::from_millis(150);
    let (url, _) = serve(slow);
    let out = tempfile::tempdir().unwrap();
    let args = |url: &str| -> Vec<String> {
        [
            "run",
            "--quiet",
            "--model",
            "m",
            "--model-url",
            url,
            "--jobs",
            "2",
            "--trials",
            "3",
            "--capability",
            "2",
            "--capability",
            "3",
            "--input",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            demo_split().display().to_string(),
            "--out".into(),
            out.path().display().to_string(),
            "--root".into(),
            root.path().display().to_string(),
        ])
        .collect()
    };
    let mut child = vakra()
        .args(args(&url))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_dir(out.path())
        .map(|_| all_records(out.path()).len())
        .unwrap_or(0)
        < 4
    {
        assert!(Instant::now() < deadline, "no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before: Vec<Value> = all_records(out.path());
    let planned = 6 * 3;
    assert!(
        before.len() < planned,
        "killed mid-way ({} of {planned})",
        before.len()
    );

    let (url, second) = serve(oracle());
    let output = vakra().args(args(&url)).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("{} samples run", planned - before.len())),
        "{stdout}"
    );
    let after = all_records(out.path());
    let keys: BTreeSet<(String, u64)> = after
        .iter()
        .map(|r| {
            (
                r["uuid"].as_str().unwrap().to_owned(),
                r["trial"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        (after.len(), keys.len()),
        (planned, planned),
        "every trial once"
    );
    for record in &before {
        assert!(
            after.contains(record),
            "a finished sample ran again: {record}"
        );
    }
    assert!(second.requests() > 0);
    let lines = trajectory_lines(out.path());
    let line_keys: BTreeSet<(String, u64)> = lines
        .iter()
        .map(|l| {
            (
                l["uuid"].as_str().unwrap().to_owned(),
                l["trial"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(lines.len(), line_keys.len(), "no trajectory twice");
    assert!(line_keys.len() >= planned - 1 && line_keys.is_subset(&keys));

    // Nothing left to do: a third run runs nothing and the evaluator sees three trials.
    let stdout =
        String::from_utf8_lossy(&vakra().args(args(&url)).output().unwrap().stdout).into_owned();
    assert!(
        stdout.contains("0 samples run") && stdout.contains(&format!("{planned} already done")),
        "{stdout}"
    );
    let rendered = tempfile::tempdir().unwrap();
    let (html, markdown) = (rendered.path().join("r.html"), rendered.path().join("r.md"));
    let (eval_stdout, report) = run_eval(
        root.path(),
        out.path(),
        &[
            "--capability",
            "2",
            "--capability",
            "3",
            "--price-in",
            "1",
            "--price-out",
            "2",
            "--html",
            html.to_str().unwrap(),
            "--markdown",
            markdown.to_str().unwrap(),
        ],
    );
    assert!(
        eval_stdout.contains("pass^k 1: 100.00, 2: 100.00, 3: 100.00"),
        "{eval_stdout}"
    );
    let tokens = &report["tokens"];
    let cost = (tokens["input_tokens"].as_f64().unwrap()
        + 2.0 * tokens["output_tokens"].as_f64().unwrap())
        / 1e6;
    assert!((report["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-9);
    for page in [&html, &markdown] {
        let text = std::fs::read_to_string(page).unwrap();
        assert!(
            text.contains("pass^k") && text.contains("Tokens:"),
            "{}",
            page.display()
        );
    }
    let trials = &report["capabilities"]["2"]["trials"];
    assert_eq!(trials["trials"], 3, "{eval_stdout}");
    assert_eq!(trials["pass_hat_k"]["3"], 100.0);
}

/// A data root whose `library` domain lists `extra` more tools than the demo's: copies of its
/// first endpoint under other names and descriptions.
fn crowded_root(extra: usize) -> tempfile::TempDir {
    let root = demo_root(false);
    let openapi = root.path().join("openapi");
    std::fs::remove_file(&openapi).unwrap();
    std::fs::create_dir(&openapi).unwrap();
    let repo_openapi = vakra_test_kit::paths::repo_root().join("openapi");
    for name in ["domains.json", "weather.json", "weather_alerts.json"] {
        std::fs::copy(repo_openapi.join(name), openapi.join(name)).unwrap();
    }
    let mut catalog = read_json(&repo_openapi.join("library.json"));
    let paths = catalog["paths"].as_object_mut().unwrap();
    let template = paths.values().next().unwrap().clone();
    for i in 0..extra {
        let mut op = template.clone();
        op["get"]["operationId"] = json!(format!("get_ledger_metric_{i}"));
        op["get"]["summary"] = json!(format!(
            "Ledger metric number {i} of the network, as audited."
        ));
        paths.insert(format!("/v1/library/ledger_metric_{i}"), op);
    }
    std::fs::write(openapi.join("library.json"), catalog.to_string()).unwrap();
    root
}

#[test]
fn a_session_with_more_than_128_tools_is_shortlisted_and_keeps_the_right_tool() {
    let root = crowded_root(200);
    let split = library_split();
    let (url, _) = serve(StandIn::new(Behaviour::Oracle(
        Oracle::load(split.path()).unwrap(),
    )));
    let out = tempfile::tempdir().unwrap();
    run_ok(
        root.path(),
        split.path(),
        out.path(),
        &url,
        &["--shortlist", "bm25"],
    );
    let tools = read_json(
        &out.path()
            .join("capability_2_dashboard_apis/library_tools.json"),
    );
    let expected = common::demo_ground_truth("capability_2_dashboard_apis", "library");
    for (entry, gt) in tools.as_array().unwrap().iter().zip(&expected) {
        assert!(entry["all_tools"].as_array().unwrap().len() > 200);
        let shortlisted: Vec<&str> = entry["shortlisted_tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(shortlisted.len(), 128);
        for call in gt["output"][0]["sequence"]["tool_call"].as_array().unwrap() {
            assert!(
                shortlisted.contains(&call["name"].as_str().unwrap()),
                "{} dropped",
                call["name"]
            );
        }
        let line = trajectory_lines(out.path())
            .into_iter()
            .find(|l| l["uuid"] == entry["uuid"])
            .unwrap();
        assert_eq!(
            line["offered_tools"], 128,
            "the model is offered the shortlist"
        );
    }
    let (_, report) = run_eval_split(split.path(), root.path(), out.path(), &[]);
    assert_eq!(report["capabilities"]["2"]["score"], 100.0);
    // And with --top-k-tools 0 every tool is offered.
    let all = tempfile::tempdir().unwrap();
    run_ok(
        root.path(),
        split.path(),
        all.path(),
        &url,
        &["--top-k-tools", "0"],
    );
    let line = &trajectory_lines(all.path())[0];
    assert!(line["offered_tools"].as_u64().unwrap() > 200);
}

#[test]
fn bad_arguments_and_inputs_get_clear_errors() {
    let root = demo_root(false);
    let out = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:9/v1";
    let missing = run(root.path(), Path::new("/nonexistent"), out.path(), url, &[]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not a folder"));
    let empty = tempfile::tempdir().unwrap();
    let none = run(root.path(), empty.path(), out.path(), url, &[]);
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("no capability_<n>_<name>/input/"),
        "{none:?}"
    );
    for bad in [
        &["--capability", "5"][..],
        &["--trials", "0"],
        &["--timeout", "-1"],
        &["--price-in", "1"],
    ] {
        let output = run(root.path(), &demo_split(), out.path(), url, bad);
        assert!(!output.status.success(), "{bad:?} accepted");
    }
    let unclosed = run(
        root.path(),
        &demo_split(),
        out.path(),
        url,
        &["--server-command", "vakra mcp --root 'R"],
    );
    let stderr = String::from_utf8_lossy(&unclosed.stderr);
    assert!(
        !unclosed.status.success() && stderr.contains("unclosed quote"),
        "{stderr}"
    );
    // A split whose file is not JSON names it.
    let split = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(split.path().join("capability_2_x/input")).unwrap();
    std::fs::write(split.path().join("capability_2_x/input/d.json"), "{oops").unwrap();
    let broken = run(root.path(), split.path(), out.path(), url, &[]);
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(
        !broken.status.success() && stderr.contains("d.json") && stderr.contains("not valid JSON"),
        "{stderr}"
    );
    // No model listening: every sample records the connection failure, the run finishes.
    let out = tempfile::tempdir().unwrap();
    let stdout = run_ok(
        root.path(),
        &demo_split(),
        out.path(),
        url,
        &[
            "--capability",
            "2",
            "--domain",
            "weather",
            "--max-retries",
            "0",
        ],
    );
    assert!(stdout.contains("1 failed"), "{stdout}");
    let record = &all_records(out.path())[0];
    assert!(
        record["error"]
            .as_str()
            .unwrap()
            .contains("could not be reached"),
        "{record}"
    );
}

#[test]
fn the_api_key_is_sent_but_never_written() {
    // A stand-in that records the Authorization header it receives.
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let record = seen.clone();
    let base = serve_app(axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |headers: axum::http::HeaderMap| {
            let record = record.clone();
            async move {
                let auth = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                record.lock().unwrap().push(auth);
                axum::Json(
                    json!({"choices": [{"message": {"role": "assistant", "content": "ok"}}]}),
                )
            }
        }),
    ));
    let root = demo_root(false);
    let out = tempfile::tempdir().unwrap();
    let output = vakra()
        .args([
            "run",
            "--quiet",
            "--model",
            "m",
            "--capability",
            "2",
            "--domain",
            "weather",
            "--api-key-env",
            "MY_KEY",
            "--model-url",
        ])
        .arg(&base)
        .arg("--input")
        .arg(demo_split())
        .arg("--out")
        .arg(out.path())
        .arg("--root")
        .arg(root.path())
        .env("MY_KEY", "sk-secret-123")
        .output()
        .unwrap();
    assert!(output.status.success());
    let seen = seen.lock().unwrap();
    assert!(
        !seen.is_empty() && seen.iter().all(|a| a == "Bearer sk-secret-123"),
        "{seen:?}"
    );
    let mut written = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    for entry in walk(out.path()) {
        written.push_str(&std::fs::read_to_string(entry).unwrap_or_default());
    }
    assert!(!written.contains("sk-secret-123"));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn shards_split_the_samples_between_them_and_together_make_the_whole_run() {
    let root = demo_root(true);
    let (url, _) = serve(oracle());
    let whole = tempfile::tempdir().unwrap();
    run_ok(root.path(), &demo_split(), whole.path(), &url, &[]);
    let together = tempfile::tempdir().unwrap();
    let mut counts = Vec::new();
    for i in 0..3 {
        let shard = tempfile::tempdir().unwrap();
        run_ok(
            root.path(),
            &demo_split(),
            shard.path(),
            &url,
            &["--shard", &format!("{i}/3")],
        );
        let records = records(shard.path());
        counts.push(records.values().map(Vec::len).sum::<usize>());
        for ((capability, domain), items) in records {
            let dir = together.path().join(capability);
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{domain}.json"));
            let mut all: Vec<Value> = std::fs::read_to_string(&path)
                .map(|t| serde_json::from_str(&t).unwrap())
                .unwrap_or_default();
            all.extend(items);
            std::fs::write(path, Value::Array(all).to_string()).unwrap();
        }
    }
    assert_eq!(counts.iter().sum::<usize>(), 11, "{counts:?}");
    assert!(
        counts.iter().all(|&n| n < 11),
        "every shard has a part: {counts:?}"
    );
    let uuids = |out: &Path| -> BTreeSet<String> {
        all_records(out)
            .iter()
            .map(|r| r["uuid"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(uuids(together.path()), uuids(whole.path()));
    let (_, report) = run_eval(root.path(), together.path(), &[]);
    assert_eq!(report["leaderboard_score"], 100.0);
    let bad = run(
        root.path(),
        &demo_split(),
        together.path(),
        &url,
        &["--shard", "3/3"],
    );
    assert!(!bad.status.success());
}

#[test]
fn sessions_on_a_server_command_give_the_same_predictions_as_in_process() {
    let root = demo_root(false);
    let (url, _) = serve(oracle());
    let in_process = tempfile::tempdir().unwrap();
    let args = ["--capability", "2", "--capability", "3"];
    run_ok(root.path(), &demo_split(), in_process.path(), &url, &args);
    let command = tempfile::tempdir().unwrap();
    let server = format!(
        "{} mcp --root {}",
        env!("CARGO_BIN_EXE_vakra"),
        root.path().display()
    );
    let mut with_command = args.to_vec();
    with_command.extend(["--server-command", &server]);
    run_ok(
        root.path(),
        &demo_split(),
        command.path(),
        &url,
        &with_command,
    );
    let strip = |records: Vec<Value>| -> Vec<Value> {
        records
            .into_iter()
            .map(|mut r| {
                r.as_object_mut().unwrap().remove("duration_s");
                r
            })
            .collect()
    };
    let expected = strip(all_records(in_process.path()));
    assert_eq!(expected.len(), 6);
    assert_eq!(strip(all_records(command.path())), expected);
}

/// A request body with its tool-call ids renumbered by first appearance (the stand-in makes
/// them up).
fn renumbered(body: &str) -> String {
    let mut ids: Vec<String> = Vec::new();
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find("\"call_") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        let end = tail.find('"').unwrap_or(tail.len());
        let id = &tail[..end];
        let n = ids.iter().position(|i| i == id).unwrap_or_else(|| {
            ids.push(id.to_owned());
            ids.len() - 1
        });
        out.push_str(&format!("\"call_{n}"));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The demo's oracle writing every request body into a file; its API base and the file.
fn logging_oracle() -> (String, tempfile::NamedTempFile) {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut standin = oracle();
    standin.log = Some(std::sync::Mutex::new(log.reopen().unwrap()));
    (serve(standin).0, log)
}

/// What the reference's own runner (benchmark_runner.py with LangChain, its pinned
/// requirements) sent the stand-in on the demo's capabilities 2 and 3, captured by
/// `scripts/runner-parity.sh` (the demo's texts and LangChain's; no text of the reference):
/// `vakra run` sends the same bytes.
#[test]
fn requests_are_byte_identical_to_the_reference_runners() {
    for (capability, fixture) in [(2, "capability_2.jsonl"), (3, "capability_3.jsonl")] {
        let expected = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/reference_runner")
                .join(fixture),
        )
        .unwrap();
        let (url, log) = logging_oracle();
        let out = tempfile::tempdir().unwrap();
        let root = demo_root(true);
        let capability = capability.to_string();
        run_ok(
            root.path(),
            &demo_split(),
            out.path(),
            &url,
            &["--capability", &capability, "--jobs", "1"],
        );
        let sent = std::fs::read_to_string(log.path()).unwrap();
        let mut ours: Vec<String> = sent.lines().map(renumbered).collect();
        let mut theirs: Vec<String> = expected.lines().map(renumbered).collect();
        ours.sort();
        theirs.sort();
        assert_eq!(
            ours.len(),
            theirs.len(),
            "capability {capability}: request counts"
        );
        for (a, b) in theirs.iter().zip(&ours) {
            vakra_test_kit::text::assert_text(&format!("capability {capability}"), a, b);
        }
    }
}

#[test]
fn mcp_schemas_are_sent_as_listed_on_request_and_the_run_says_it_is_not_comparable() {
    let (url, log) = logging_oracle();
    let out = tempfile::tempdir().unwrap();
    let root = demo_root(true);
    run_ok(
        root.path(),
        &demo_split(),
        out.path(),
        &url,
        &["--capability", "1", "--tool-schemas", "mcp"],
    );
    // Samples run in parallel; every request that offers `aggregate_data` (the universes of
    // the SLOT-BIRD toolset) offers its listed schema.
    let sent = std::fs::read_to_string(log.path()).unwrap();
    let aggregates: Vec<Value> = sent
        .lines()
        .flat_map(|line| {
            let request: Value = serde_json::from_str(line).unwrap();
            request["tools"].as_array().cloned().unwrap_or_default()
        })
        .filter(|t| t["function"]["name"] == "aggregate_data")
        .collect();
    assert!(
        !aggregates.is_empty(),
        "no request offered aggregate_data: {sent}"
    );
    for aggregate in &aggregates {
        assert!(
            aggregate["function"]["parameters"]["$defs"].is_object(),
            "the listed schema, enums in $defs: {aggregate}"
        );
    }
    let record = read_json(&out.path().join("run.json"))["comparability"].clone();
    assert_eq!(record["tool_schemas"], "mcp");
    assert_eq!(record["capability_1_pandas"], "3.1.1");
    assert_eq!(record["leaderboard_comparable"], false);
    let reasons = record["not_comparable_because"].to_string();
    assert!(
        reasons.contains("mcp schemas") && reasons.contains("built-in"),
        "{reasons}"
    );
    // The evaluator copies the record and warns.
    let (_, report) = run_eval_split(&demo_split(), root.path(), out.path(), &[]);
    assert_eq!(report["comparability"], record);
    assert!(
        report["warnings"]
            .to_string()
            .contains("not comparable with the leaderboard"),
        "{}",
        report["warnings"]
    );
}

/// A split of the demo's capability-2 `library` samples, for roots with more tools.
fn library_split() -> tempfile::TempDir {
    let split = tempfile::tempdir().unwrap();
    let folder = split.path().join("capability_2_dashboard_apis");
    for part in ["input", "output"] {
        std::fs::create_dir_all(folder.join(part)).unwrap();
        std::fs::copy(
            demo_split()
                .join("capability_2_dashboard_apis")
                .join(part)
                .join("library.json"),
            folder.join(part).join("library.json"),
        )
        .unwrap();
    }
    split
}

/// `vakra run` on the crowded root with the Hugging Face cache in `hf_home`, offline, and
/// `model` (if any) in VAKRA_SHORTLIST_MODEL.
fn run_crowded(root: &Path, split: &Path, out: &Path, hf_home: &Path, model: Option<&Path>) {
    let (url, _) = serve(StandIn::new(Behaviour::Oracle(
        Oracle::load(split).unwrap(),
    )));
    let mut command = run_command(root, split, out, &url, &[]);
    command
        .env("HF_HOME", hf_home)
        .env("HF_HUB_OFFLINE", "1")
        .env_remove("HF_HUB_CACHE")
        .env_remove("VAKRA_SHORTLIST_MODEL");
    if let Some(model) = model {
        command.env("VAKRA_SHORTLIST_MODEL", model);
    }
    output_ok(&mut command);
}

#[test]
fn without_a_shortlist_model_samples_that_need_one_fail_saying_where_to_put_it() {
    let root = crowded_root(200);
    let split = library_split();
    let out = tempfile::tempdir().unwrap();
    let hf_home = tempfile::tempdir().unwrap();
    run_crowded(root.path(), split.path(), out.path(), hf_home.path(), None);
    for record in all_records(out.path()) {
        assert_eq!(record["status"], "error");
        let error = record["error"].as_str().unwrap();
        for option in [
            "sentence-transformers/all-MiniLM-L6-v2",
            "--shortlist-model",
            "VAKRA_SHORTLIST_MODEL",
            "HF_HUB_OFFLINE",
        ] {
            assert!(error.contains(option), "{option} not named: {error}");
        }
    }
    // The demo's own domains need no shortlist: the same settings run them.
    let demo_out = tempfile::tempdir().unwrap();
    let demo = demo_root(false);
    run_crowded(
        demo.path(),
        split.path(),
        demo_out.path(),
        hf_home.path(),
        None,
    );
    assert!(
        all_records(demo_out.path())
            .iter()
            .all(|r| r["status"] == "success")
    );
}

/// The reference's shortlist (all-MiniLM-L6-v2; `make test-dense` fetches the model): found
/// through VAKRA_SHORTLIST_MODEL, recorded with its hash, and again from the Hugging Face cache.
#[test]
fn the_reference_shortlist_ranks_with_minilm_from_the_variable_or_the_cache() {
    let Some(model) = vakra_test_kit::model::minilm_dir() else {
        return;
    };
    let root = crowded_root(200);
    let split = library_split();
    let hf_home = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    run_crowded(
        root.path(),
        split.path(),
        out.path(),
        hf_home.path(),
        Some(&model),
    );
    let records = all_records(out.path());
    assert!(
        records.iter().all(|r| r["status"] == "success"),
        "{records:?}"
    );
    let record = read_json(&out.path().join("run.json"))["comparability"].clone();
    assert_eq!(record["shortlist"]["method"], "embeddings");
    assert_eq!(
        record["shortlist"]["model"],
        "sentence-transformers/all-MiniLM-L6-v2"
    );
    assert!(
        record["shortlist"]["model_hash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    let tools = read_json(
        &out.path()
            .join("capability_2_dashboard_apis/library_tools.json"),
    );
    let shortlisted = |tools: &Value| -> Vec<Value> {
        tools
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["shortlisted_tools"].clone())
            .collect()
    };
    // The same model in the Hugging Face cache's layout is found there.
    let repo = hf_home
        .path()
        .join("hub/models--sentence-transformers--all-MiniLM-L6-v2");
    let snapshot = repo.join("snapshots/abc123");
    std::fs::create_dir_all(&snapshot).unwrap();
    for entry in walk(&model) {
        let target = snapshot.join(entry.strip_prefix(&model).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, target).unwrap();
    }
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), "abc123").unwrap();
    let cached = tempfile::tempdir().unwrap();
    run_crowded(
        root.path(),
        split.path(),
        cached.path(),
        hf_home.path(),
        None,
    );
    let again = read_json(
        &cached
            .path()
            .join("capability_2_dashboard_apis/library_tools.json"),
    );
    assert_eq!(shortlisted(&again), shortlisted(&tools));
    assert_eq!(shortlisted(&tools)[0].as_array().unwrap().len(), 128);
}

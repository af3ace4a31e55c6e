//! `vakra eval` and `vakra validate` end to end on the demo split (demo/tasks): the oracle run,
//! wrong and malformed predictions, an LLM judge stand-in on loopback, replay against a server
//! command, and the HTML report rendered in headless Chromium.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{browser_tooling, demo_root, output_ok, repo_root, run_browser_script, vakra};
use serde_json::{Value, json};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn split() -> PathBuf {
    repo_root().join("demo/tasks")
}

fn ground_truth(capability_dir: &str, domain: &str) -> Vec<Value> {
    let path = split()
        .join(capability_dir)
        .join("output")
        .join(format!("{domain}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The ground truth's output files laid out as predictions.
fn oracle_predictions(into: &Path) {
    for entry in std::fs::read_dir(split()).unwrap().flatten() {
        copy_dir(&entry.path().join("output"), &into.join(entry.file_name()));
    }
}

/// Runs `vakra eval`, which must succeed; returns its stdout and the report.
fn eval(root: &Path, predictions: &Path, extra: &[&str]) -> (String, Value) {
    let out = tempfile::tempdir().unwrap();
    let report = out.path().join("report.json");
    let output = output_ok(
        vakra()
            .args(["eval", "--quiet", "--ground-truth"])
            .arg(split())
            .arg("--predictions")
            .arg(predictions)
            .arg("--root")
            .arg(root)
            .arg("--report")
            .arg(&report)
            .args(extra),
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    (stdout, report)
}

fn sample<'a>(report: &'a Value, capability: &str, uuid: &str) -> &'a Value {
    report["capabilities"][capability]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uuid"] == uuid)
        .unwrap_or_else(|| panic!("no sample {uuid} in capability {capability}"))
}

#[test]
fn ground_truth_as_predictions_scores_100_on_every_capability() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let dir = tempfile::tempdir().unwrap();
    let (markdown, html) = (dir.path().join("r.md"), dir.path().join("r.html"));
    let (stdout, report) = eval(
        root.path(),
        predictions.path(),
        &[
            "--markdown",
            markdown.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ],
    );
    assert_eq!(report["leaderboard_score"], json!(100.0), "{stdout}");
    for capability in ["1", "2", "3", "4"] {
        let c = &report["capabilities"][capability];
        assert_eq!(c["score"], json!(100.0), "capability {capability}: {c:#}");
        assert!(c["n_samples"].as_u64().unwrap() >= 2);
        for s in c["samples"].as_array().unwrap() {
            assert!(s["hops"].as_u64().unwrap() >= 1);
            assert_eq!(s["judges"]["exact_match"]["score"], json!(1.0));
            assert_eq!(s["problems"], json!([]), "{s:#}");
        }
    }
    assert_eq!(report["problems"], json!([]));
    assert_eq!(report["settings"]["answer_judge"], "deterministic");
    assert!(
        report["warnings"][0]
            .as_str()
            .unwrap()
            .contains("No LLM judge")
    );
    // Capability 4's library sample uses an API and a retriever in its scored turn.
    assert_eq!(
        sample(&report, "4", "4d1b0c0ffee0-000000000001")["weight"],
        2
    );
    assert!(
        std::fs::read_to_string(markdown)
            .unwrap()
            .contains("**Leaderboard score: 100.00**")
    );
    assert!(
        std::fs::read_to_string(html)
            .unwrap()
            .contains("id=leaderboard>100.00<")
    );
}

/// Writes one domain's predictions in the submission format.
fn write_predictions(dir: &Path, capability_dir: &str, domain: &str, records: &Value) {
    let folder = dir.join(capability_dir);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(format!("{domain}.json")), records.to_string()).unwrap();
}

fn prediction(uuid: &str, turn_id: i64, calls: Value, answer: &str) -> Value {
    json!({"uuid": uuid, "domain": "library", "status": "success", "error": "", "duration_s": 1.0,
           "output": [{"turn_id": turn_id, "query": "q", "answer": answer,
                       "sequence": {"tool_call": calls}}]})
}

#[test]
fn wrong_and_malformed_predictions_are_scored_and_reported() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    let cap2 = "capability_2_dashboard_apis";
    let gt = ground_truth(cap2, "library");
    let late_fee_answer = gt[1]["output"][0]["answer"][0].as_str().unwrap().to_owned();
    write_predictions(
        predictions.path(),
        cap2,
        "library",
        &json!([
            // The legacy FastAPI operation id, arguments as a JSON string with a string number.
            prediction("2d1b0c0ffee0-000000000001", 0,
                json!([{"name": "get_branch_summary_v1_library_branch_summary_get",
                        "arguments": "{\"branch_id\": \"8\"}"}]), "done"),
            // No tool call, but the right answer: the deterministic answer match decides.
            prediction("2d1b0c0ffee0-000000000002", 0, json!([]), &late_fee_answer),
            prediction("not-in-the-ground-truth", 0, json!([]), ""),
            {"domain": "library", "output": []},
        ]),
    );
    write_predictions(
        predictions.path(),
        cap2,
        "weather",
        &json!([prediction(
            "2d1b0c0ffee0-000000000003",
            0,
            json!([{"name": "get_average_pm25_by_country", "arguments": {"country": "Norway"}}]),
            "12"
        )]),
    );
    let cap3 = "capability_3_multihop_reasoning";
    write_predictions(
        predictions.path(),
        cap3,
        "library",
        &json!([{"uuid": "3d1b0c0ffee0-000000000001", "domain": "library", "output": [
            {"turn_id": 5, "query": "q", "answer": "", "sequence": {"tool_call": []}},
            {"turn_id": 6, "query": "q", "answer": "", "sequence": {"tool_call": []}}]}]),
    );
    write_predictions(
        predictions.path(),
        cap3,
        "weather",
        &json!([prediction(
            "3d1b0c0ffee0-000000000002",
            0,
            json!([{"name": "get_elevation_extremes", "arguments": {}},
                   {"name": "get_total_precipitation", "arguments": {"code": "BGO01"}},
                   {"name": "no_such_tool", "arguments": {"x": 1}}]),
            ""
        )]),
    );
    std::fs::write(predictions.path().join(cap3).join("bpo.json"), "{not json").unwrap();

    let (_, report) = eval(
        root.path(),
        predictions.path(),
        &["--capability", "2", "--capability", "3"],
    );
    let legacy = sample(&report, "2", "2d1b0c0ffee0-000000000001");
    assert_eq!(
        legacy["score"], 1.0,
        "legacy id and string arguments: {legacy:#}"
    );
    let answered = sample(&report, "2", "2d1b0c0ffee0-000000000002");
    assert_eq!(answered["score"], 1.0, "{answered:#}");
    assert_eq!(answered["judges"]["exact_match"]["score"], 0.0);
    assert_eq!(answered["judges"]["answer"]["score"], 1.0);
    let wrong_value = sample(&report, "2", "2d1b0c0ffee0-000000000003");
    assert_eq!(wrong_value["score"], 0.0);
    assert_eq!(wrong_value["error_stage"], "argument_values");
    let c2 = &report["capabilities"]["2"];
    assert_eq!(
        c2["extra_prediction_uuids"],
        json!(["not-in-the-ground-truth"])
    );
    assert!((c2["score"].as_f64().unwrap() - 200.0 / 3.0).abs() < 1e-9);

    let mismatch = sample(&report, "3", "3d1b0c0ffee0-000000000001");
    assert_eq!(mismatch["error_stage"], "turn_mismatch");
    let partial = sample(&report, "3", "3d1b0c0ffee0-000000000002");
    assert_eq!(partial["error_stage"], "missing_arguments", "{partial:#}");
    assert_eq!(partial["pred_steps"], 3);
    let bpo = sample(&report, "3", "3d1b0c0ffee0-000000000003");
    assert_eq!(bpo["error_stage"], "no_prediction");
    assert_eq!(
        report["capabilities"]["3"]["missing_prediction_uuids"],
        json!(["3d1b0c0ffee0-000000000003"])
    );
    let problems = report["problems"].to_string();
    assert!(problems.contains("no uuid"), "{problems}");
    assert!(problems.contains("not valid JSON"), "{problems}");
    // Only capabilities 2 and 3 were asked for; the others count 0 on the leaderboard.
    assert!(report["capabilities"].get("1").is_none());
    let expected = (c2["score"].as_f64().unwrap()
        + report["capabilities"]["3"]["score"].as_f64().unwrap())
        / 4.0;
    assert!((report["leaderboard_score"].as_f64().unwrap() - expected).abs() < 1e-9);
}

/// A stand-in OpenAI-compatible endpoint: answers the correctness prompt with `correct` and the
/// groundedness prompt with "yes"; counts requests.
async fn judge_stand_in(correct: &'static str, status: u16) -> (String, Arc<AtomicUsize>) {
    use axum::routing::post;
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |body: String| {
            let seen = Arc::clone(&seen);
            async move {
                seen.fetch_add(1, Ordering::SeqCst);
                let request: Value = serde_json::from_str(&body).unwrap();
                let prompt = request["messages"][0]["content"]
                    .as_str()
                    .unwrap_or_default();
                let content = if prompt.contains("<prediction>") {
                    correct.to_owned()
                } else {
                    "<conclusion>\nyes\nthe document says so\n</conclusion>".to_owned()
                };
                let reply =
                    json!({"choices": [{"message": {"role": "assistant", "content": content}}]});
                (
                    axum::http::StatusCode::from_u16(status).unwrap(),
                    reply.to_string(),
                )
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, count)
}

#[tokio::test(flavor = "multi_thread")]
async fn llm_judges_through_an_openai_compatible_endpoint() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    write_predictions(
        predictions.path(),
        "capability_2_dashboard_apis",
        "library",
        &json!([prediction(
            "2d1b0c0ffee0-000000000001",
            0,
            json!([]),
            "Glebe issued many loans"
        )]),
    );
    let (base, count) = judge_stand_in(r#"{"explanation": "matches", "score": 1}"#, 200).await;
    let (root_path, preds) = (root.path().to_owned(), predictions.path().to_owned());
    let args = [
        "--capability",
        "2",
        "--domain",
        "library",
        "--judge-url",
        &base,
    ];
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (_, report) = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        eval(&root_path, &preds, &args)
    })
    .await
    .unwrap();
    let s = sample(&report, "2", "2d1b0c0ffee0-000000000001");
    assert_eq!(s["judges"]["exact_match"]["score"], 0.0);
    assert_eq!(s["judges"]["answer"]["explanation"], "matches");
    assert_eq!(
        s["judges"]["groundedness"]["explanation"],
        "the document says so"
    );
    assert_eq!(s["score"], 1.0);
    assert_eq!(report["settings"]["answer_judge"], "llm");
    assert_eq!(
        count.load(Ordering::SeqCst),
        2,
        "one correctness and one groundedness call"
    );
    // The other library sample had no prediction: no judge call, score 0.

    let (failing, _) = judge_stand_in("unused", 500).await;
    let (root_path, preds) = (root.path().to_owned(), predictions.path().to_owned());
    let (_, report) = tokio::task::spawn_blocking(move || {
        eval(
            &root_path,
            &preds,
            &[
                "--capability",
                "2",
                "--domain",
                "library",
                "--judge-url",
                &failing,
                "--judge-timeout-secs",
                "5",
            ],
        )
    })
    .await
    .unwrap();
    let s = sample(&report, "2", "2d1b0c0ffee0-000000000001");
    assert_eq!(s["score"], 0.0);
    assert_eq!(
        s["judges"]["answer"]["explanation"], "Judge Error {e}.",
        "the reference's text"
    );
}

#[test]
fn replay_against_a_server_command_scores_as_in_process() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let command = format!(
        "{} mcp --capability {{capability}} --domain {{domain}} --root {}",
        env!("CARGO_BIN_EXE_vakra"),
        root.path().display()
    );
    let (_, report) = eval(
        root.path(),
        predictions.path(),
        &[
            "--capability",
            "1",
            "--capability",
            "3",
            "--server-command",
            &command,
        ],
    );
    assert!(
        report["settings"]["replay"]
            .as_str()
            .unwrap()
            .starts_with("command:")
    );
    assert_eq!(
        report["capabilities"]["1"]["score"], 100.0,
        "{:#}",
        report["capabilities"]["1"]
    );
    assert_eq!(report["capabilities"]["3"]["score"], 100.0);
}

#[test]
fn validate_checks_the_submission_format() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("library.json");
    std::fs::write(
        &good,
        json!([prediction(
            "u",
            0,
            json!([{"name": "t", "arguments": {}}]),
            "a"
        )])
        .to_string(),
    )
    .unwrap();
    std::fs::write(dir.path().join("library_tools.json"), "[]").unwrap();
    let output = vakra().arg("validate").arg(dir.path()).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let bad = dir.path().join("weather.json");
    std::fs::write(
        &bad,
        json!([{"uuid": "u", "output": [{"turn_id": "x"}]}]).to_string(),
    )
    .unwrap();
    let output = vakra().arg("validate").arg(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout.contains("FAIL")
            && stdout.contains("[output -> 0 -> turn_id]: Input should be a valid integer"),
        "{stdout}"
    );
    assert!(stdout.contains("[status]: Field required"), "{stdout}");
    assert!(
        !stdout.contains("library_tools"),
        "tool logs are skipped: {stdout}"
    );
    let output = vakra().arg("validate").output().unwrap();
    assert!(!output.status.success(), "nothing to validate is an error");
    // As the reference's argparse choices: capabilities 1 to 4 only.
    for bad in ["0", "5"] {
        let output = vakra().args(["validate", "-c", bad]).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("1..=4"), "{stderr}");
    }
    let runs = tempfile::tempdir().unwrap();
    let run = runs.path().join("capability_4_nov_24");
    std::fs::create_dir(&run).unwrap();
    std::fs::copy(&good, run.join("library.json")).unwrap();
    let output = vakra()
        .args(["validate", "-c", "4", "--output-dir"])
        .arg(runs.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    // Python's json reads NaN; pydantic accepts it as a float and names the model of a
    // non-object turn.
    std::fs::write(
        &bad,
        r#"[{"uuid": "u", "domain": "d", "status": "success", "error": "", "duration_s": NaN,
             "output": ["turn"]}]"#,
    )
    .unwrap();
    let output = vakra().arg("validate").arg(&bad).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("[output -> 0]: Input should be a valid dictionary or instance of Turn")
            && !stdout.contains("duration_s")
            && !stdout.contains("Invalid JSON"),
        "{stdout}"
    );
}

#[tokio::test]
async fn the_html_report_renders_in_chromium() {
    let Some((chromium, script)) = browser_tooling("report_check.mjs") else {
        return;
    };
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    // One wrong prediction, so that a failed-samples table is rendered too.
    write_predictions(
        predictions.path(),
        "capability_2_dashboard_apis",
        "weather",
        &json!([prediction(
            "2d1b0c0ffee0-000000000003",
            0,
            json!([]),
            "no idea"
        )]),
    );
    let html = Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-report.html");
    let (root_path, preds, html_arg) = (
        root.path().to_owned(),
        predictions.path().to_owned(),
        html.clone(),
    );
    tokio::task::spawn_blocking(move || {
        eval(&root_path, &preds, &["--html", html_arg.to_str().unwrap()])
    })
    .await
    .unwrap();
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-report.png");
    let page = run_browser_script(
        &chromium,
        &script,
        &[html.as_os_str(), screenshot.as_os_str()],
    )
    .await;
    assert_eq!(page["consoleErrors"], json!([]));
    assert_eq!(
        page["sections"],
        json!([
            "capability-1",
            "capability-2",
            "capability-3",
            "capability-4"
        ])
    );
    let leaderboard: f64 = page["leaderboard"].as_str().unwrap().parse().unwrap();
    assert!(leaderboard < 100.0 && leaderboard > 90.0, "{leaderboard}");
    // Bars are drawn to scale: a 100% bar is wider than the bar of a domain below 100%.
    let bars = page["bars"].as_array().unwrap();
    let widths = |label: &str| -> Vec<f64> {
        bars.iter()
            .filter(|b| b["label"] == label)
            .map(|b| b["width"].as_f64().unwrap())
            .collect()
    };
    let weather_low = widths("weather").into_iter().fold(f64::INFINITY, f64::min);
    let library_high = widths("library").into_iter().fold(0.0, f64::max);
    assert!(
        weather_low < library_high && library_high > 100.0,
        "{bars:?}"
    );
    assert!(
        page["screenshotBytes"].as_u64().unwrap() > 20_000,
        "a blank page is smaller"
    );
}

#[test]
fn replay_over_http_against_vakra_serve() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let server = common::Server::start(&["--root", root.path().to_str().unwrap()]);
    let url = format!("{}/mcp/{{capability}}/{{domain}}", server.base);
    let (_, report) = eval(root.path(), predictions.path(), &["--server-url", &url]);
    assert_eq!(
        report["leaderboard_score"], 100.0,
        "{:#}",
        report["problems"]
    );
    assert!(
        report["settings"]["replay"]
            .as_str()
            .unwrap()
            .starts_with("url:")
    );
}

#[test]
fn servers_that_never_answer_are_timed_out_and_reported() {
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let started = std::time::Instant::now();
    let (_, report) = eval(
        &repo_root(),
        predictions.path(),
        &[
            "--capability",
            "2",
            "--server-command",
            "sleep 30",
            "--call-timeout-secs",
            "0.5",
        ],
    );
    assert!(started.elapsed().as_secs() < 20, "timeouts bound the run");
    for s in report["capabilities"]["2"]["samples"].as_array().unwrap() {
        let problems = s["problems"].to_string();
        assert!(problems.contains("no MCP session within"), "{problems}");
    }
}

/// The published sample traces: the capability-4 sample's domain is not in the demo root, so both
/// sides replay to the same error texts and exact match passes, as the reference's rule gives
/// for identical responses; the capability-1 sample (a list-shaped `sequence`), on which the
/// reference evaluator stops with an exception, is scored and its universe problem reported.
#[test]
fn the_published_sample_traces_are_evaluated_without_crashing() {
    let shared = repo_root().join("../shared/reference/sample_data");
    if !shared.is_dir() {
        eprintln!("skipped: {} is missing", shared.display());
        return;
    }
    let split = tempfile::tempdir().unwrap();
    let predictions = tempfile::tempdir().unwrap();
    for name in ["capability_1_bi_apis", "capability_4_multiturn"] {
        for kind in ["input", "output"] {
            let dir = split.path().join(name).join(kind);
            std::fs::create_dir_all(&dir).unwrap();
            let records =
                std::fs::read_to_string(shared.join(name).join(format!("{kind}.json"))).unwrap();
            let domain = serde_json::from_str::<Value>(&records).unwrap()[0]["domain"]
                .as_str()
                .unwrap()
                .to_owned();
            std::fs::write(dir.join(format!("{domain}.json")), &records).unwrap();
            if kind == "output" {
                std::fs::create_dir_all(predictions.path().join(name)).unwrap();
                std::fs::write(
                    predictions.path().join(name).join(format!("{domain}.json")),
                    &records,
                )
                .unwrap();
            }
        }
    }
    let out = tempfile::tempdir().unwrap();
    let report_path = out.path().join("r.json");
    output_ok(
        vakra()
            .args(["eval", "--quiet", "--root"])
            .arg(repo_root())
            .arg("--ground-truth")
            .arg(split.path())
            .arg("--predictions")
            .arg(predictions.path())
            .arg("--report")
            .arg(&report_path),
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(report_path).unwrap()).unwrap();
    let four = &report["capabilities"]["4"]["samples"][0];
    assert_eq!(four["judges"]["exact_match"]["score"], 1.0, "{four:#}");
    let one = &report["capabilities"]["1"]["samples"][0];
    assert!(one["problems"].to_string().contains("replay"), "{one:#}");
}

/// A recorded agent run is scored directly: a traced stdio session, `vakra trace export`, then
/// `vakra eval` on the exported file.
#[test]
fn an_exported_session_trace_is_scored() {
    let root = demo_root(true);
    let traces = tempfile::tempdir().unwrap();
    let mut session = vakra()
        .args(["mcp", "--capability", "2", "--domain", "library", "--root"])
        .arg(root.path())
        .arg("--trace")
        .arg(traces.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
               "capabilities": {}, "clientInfo": {"name": "agent", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_late_fees_by_member", "arguments": {"member_id": 853}}}),
    ];
    let mut stdin = session.stdin.take().unwrap();
    for request in &requests {
        use std::io::Write;
        writeln!(stdin, "{request}").unwrap();
    }
    let mut lines =
        std::io::BufRead::lines(std::io::BufReader::new(session.stdout.take().unwrap()));
    while let Some(Ok(line)) = lines.next() {
        if serde_json::from_str::<Value>(&line).unwrap()["id"] == 2 {
            break;
        }
    }
    drop(stdin);
    assert!(
        session.wait().unwrap().success(),
        "the session ends when its input closes"
    );
    let predictions = tempfile::tempdir().unwrap();
    let folder = predictions.path().join("capability_2_dashboard_apis");
    std::fs::create_dir_all(&folder).unwrap();
    output_ok(
        vakra()
            .args(["trace", "export", "--trace"])
            .arg(traces.path())
            .arg("--out")
            .arg(folder.join("library.json"))
            .args([
                "--uuid",
                "2d1b0c0ffee0-000000000002",
                "--answer",
                "see the tool",
            ]),
    );
    let (_, report) = eval(
        root.path(),
        predictions.path(),
        &["--capability", "2", "--domain", "library"],
    );
    let traced = sample(&report, "2", "2d1b0c0ffee0-000000000002");
    assert_eq!(traced["score"], 1.0, "{traced:#}");
    assert_eq!(traced["pred_steps"], 1);
}

#[test]
fn the_policy_judge_stops_a_turn_that_breaks_its_instructions() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let cap4 = "capability_4_multiturn";
    let mut records = ground_truth(cap4, "library");
    // The instructions allow the library's documents only; search the weather documents too.
    let calls = &mut records[0]["output"][1]["sequence"]["tool_call"];
    calls
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "query_weather", "arguments": {"question": "rain"}}));
    write_predictions(predictions.path(), cap4, "library", &Value::Array(records));
    let uuid = "4d1b0c0ffee0-000000000001";
    let (_, without) = eval(root.path(), predictions.path(), &["--capability", "4"]);
    assert_eq!(
        sample(&without, "4", uuid)["score"],
        1.0,
        "extra calls do not fail exact match"
    );
    let (_, with) = eval(
        root.path(),
        predictions.path(),
        &["--capability", "4", "--policy-judge"],
    );
    let s = sample(&with, "4", uuid);
    assert_eq!(s["score"], 0.0);
    assert_eq!(s["error_stage"], "policy");
    assert!(
        s["judges"]["policy"]["explanation"]
            .as_str()
            .unwrap()
            .contains("query_weather")
    );
    assert_eq!(
        s["judges"]["exact_match"],
        Value::Null,
        "the waterfall stops at the policy"
    );
    let other = sample(&with, "4", "4d1b0c0ffee0-000000000002");
    assert_eq!(
        other["judges"]["policy"],
        Value::Null,
        "no instructions, no policy verdict"
    );
    assert_eq!(other["score"], 1.0);
}

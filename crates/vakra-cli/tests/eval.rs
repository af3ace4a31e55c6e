//! `vakra eval` and `vakra validate` end to end on the demo split (demo/tasks): the oracle run,
//! wrong and malformed predictions, legacy operation ids and map files, capability-4 weighting
//! and the breakdowns, normalized exact match, an LLM judge stand-in on loopback (answering or
//! failing), replay against a server command or URL, slow, silent and dying servers, and the
//! HTML report rendered in headless Chromium.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common;
use crate::common::{
    browser_tooling, demo_ground_truth, demo_root, demo_split, report_sample, run_browser_script,
    run_eval, run_eval_split, vakra,
};
use serde_json::{Value, json};
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::process::output_ok;
use vakra_test_kit::reference;

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

/// The ground truth's output files laid out as predictions.
fn oracle_predictions(into: &Path) {
    for entry in std::fs::read_dir(demo_split()).unwrap().flatten() {
        copy_dir(&entry.path().join("output"), &into.join(entry.file_name()));
    }
}

#[test]
fn ground_truth_as_predictions_scores_100_on_every_capability() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let dir = tempfile::tempdir().unwrap();
    let (markdown, html) = (dir.path().join("r.md"), dir.path().join("r.html"));
    let (stdout, report) = run_eval(
        root.path(),
        predictions.path(),
        &[
            "--markdown",
            markdown.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
            "--include-responses",
        ],
    );
    assert_eq!(report["leaderboard_score"], json!(100.0), "{stdout}");
    // 100% must come from real answers, not from both sides failing alike: every replayed
    // ground-truth response is the one its record stores (for retrievers, the stored
    // documents' texts), and none is an error text.
    let (mut compared, mut all_calls) = (0, 0);
    for entry in std::fs::read_dir(demo_split()).unwrap().flatten() {
        let name = entry.file_name().into_string().unwrap();
        let capability = &name["capability_".len()..][..1];
        for file in std::fs::read_dir(entry.path().join("output"))
            .unwrap()
            .flatten()
        {
            let text = std::fs::read_to_string(file.path()).unwrap();
            for record in serde_json::from_str::<Value>(&text)
                .unwrap()
                .as_array()
                .unwrap()
            {
                let turns = record["output"].as_array().unwrap();
                all_calls += turns
                    .iter()
                    .map(|t| t["sequence"]["tool_call"].as_array().unwrap().len())
                    .sum::<usize>();
                let turn = turns.last().unwrap();
                let calls = turn["sequence"]["tool_call"].as_array().unwrap();
                let stored = turn["sequence"]["tool_response"].as_array().unwrap();
                let s = report_sample(&report, capability, record["uuid"].as_str().unwrap());
                let replayed = s["responses"]["ground_truth"].as_array().unwrap();
                assert_eq!(replayed.len(), stored.len(), "{s:#}");
                for ((call, want), got) in calls.iter().zip(stored).zip(replayed) {
                    let want = if call["name"].as_str().unwrap().contains("query_") {
                        want.as_array()
                            .unwrap()
                            .iter()
                            .map(|document| document["text"].clone())
                            .collect()
                    } else {
                        want.clone()
                    };
                    assert_eq!(got, &want, "{}: {}", record["uuid"], call["name"]);
                    assert!(!got.as_str().is_some_and(|t| t.starts_with("Error")));
                    compared += 1;
                }
                assert_eq!(s["responses"]["prediction"], s["responses"]["ground_truth"]);
            }
        }
    }
    assert_eq!(
        compared, 20,
        "every stored response of the demo's scored turns"
    );
    assert_eq!(report["replay"]["prediction"]["unknown_tools"], 0);
    assert_eq!(report["replay"]["ground_truth"]["failures"], 0);
    assert_eq!(report["replay"]["ground_truth"]["calls"], all_calls);
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
        report_sample(&report, "4", "4d1b0c0ffee0-000000000001")["weight"],
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
    let gt = demo_ground_truth(cap2, "library");
    let late_fee_answer = gt[1]["output"][0]["answer"][0].as_str().unwrap().to_owned();
    write_predictions(
        predictions.path(),
        cap2,
        "library",
        &json!([
            // The legacy FastAPI operation id, arguments as a JSON string with a string number.
            prediction("2d1b0c0ffee0-000000000001", 0,
                json!([{"name": "get_branch_summary_v1_library_branch_summary_get",
                        "arguments": "{\"branch_id\": \"8\"}"}]), "473 loans"),
            // No tool call, but the right answer: the answer match passes it, and the
            // deterministic groundedness judge fails it (nothing supports it).
            prediction("2d1b0c0ffee0-000000000002", 0, json!([]), &late_fee_answer),
            prediction("not-in-the-ground-truth", 0, json!([]), ""),
            {"domain": "library", "output": []},
        ]),
    );
    write_predictions(
        predictions.path(),
        cap2,
        "weather",
        // The right tool under its legacy operation id, with a wrong value.
        &json!([prediction(
            "2d1b0c0ffee0-000000000003",
            0,
            json!([{"name": "get_average_pm25_by_country_v1_weather_average_pm25_by_country_get",
                    "arguments": {"country": "Norway"}}]),
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

    let (_, report) = run_eval(
        root.path(),
        predictions.path(),
        &["--capability", "2", "--capability", "3"],
    );
    let legacy = report_sample(&report, "2", "2d1b0c0ffee0-000000000001");
    assert_eq!(
        legacy["score"], 1.0,
        "legacy id and string arguments: {legacy:#}"
    );
    assert_eq!(
        legacy["decided_by"],
        json!({"judge": "groundedness", "method": "deterministic"})
    );
    let answered = report_sample(&report, "2", "2d1b0c0ffee0-000000000002");
    assert_eq!(answered["score"], 0.0, "{answered:#}");
    assert_eq!(answered["judges"]["exact_match"]["score"], 0.0);
    assert_eq!(answered["judges"]["answer"]["score"], 1.0);
    assert_eq!(answered["judges"]["groundedness"]["score"], 0.0);
    assert!(
        answered["judges"]["groundedness"]["explanation"]
            .as_str()
            .unwrap()
            .starts_with("No tool response supports the answer"),
        "{answered:#}"
    );
    assert_eq!(answered["decided_by"]["judge"], "groundedness");
    assert_eq!(report["settings"]["groundedness_judge"], "deterministic");
    let wrong_value = report_sample(&report, "2", "2d1b0c0ffee0-000000000003");
    assert_eq!(wrong_value["score"], 0.0);
    // The taxonomy compares the names as replayed, so the legacy id is the right tool.
    assert_eq!(wrong_value["error_stage"], "argument_values");
    let c2 = &report["capabilities"]["2"];
    assert_eq!(
        c2["extra_prediction_uuids"],
        json!(["not-in-the-ground-truth"])
    );
    assert!((c2["score"].as_f64().unwrap() - 100.0 / 3.0).abs() < 1e-9);

    let mismatch = report_sample(&report, "3", "3d1b0c0ffee0-000000000001");
    assert_eq!(mismatch["error_stage"], "turn_mismatch");
    let partial = report_sample(&report, "3", "3d1b0c0ffee0-000000000002");
    assert_eq!(partial["error_stage"], "missing_arguments", "{partial:#}");
    assert_eq!(partial["pred_steps"], 3);
    // The unknown tool is called all the same (its answer is scored as the reference scores
    // it) and reported, in the sample and in the run's counts.
    assert!(
        partial["problems"].to_string().contains(
            "prediction replay: unknown tool `no_such_tool`: the server does not list it"
        ),
        "{partial:#}"
    );
    assert_eq!(partial["replay"]["prediction"]["unknown_tools"], 1);
    assert_eq!(partial["replay"]["prediction"]["calls"], 3);
    assert_eq!(partial["replay"]["ground_truth"]["unknown_tools"], 0);
    assert_eq!(report["replay"]["prediction"]["unknown_tools"], 1);
    assert_eq!(report["replay"]["ground_truth"]["unknown_tools"], 0);
    let bpo = report_sample(&report, "3", "3d1b0c0ffee0-000000000003");
    assert_eq!(bpo["error_stage"], "no_prediction");
    assert_eq!(
        report["capabilities"]["3"]["missing_prediction_uuids"],
        json!(["3d1b0c0ffee0-000000000003"])
    );
    // Breakdowns: every capability-2 sample has one hop (one correct, one ungrounded, the
    // third a wrong value); every capability-3 sample has two, none correct, each failing at
    // its own stage.
    assert_eq!(c2["by_hops"]["1"]["n_samples"], 3);
    assert_eq!(c2["by_hops"]["1"]["n_correct"], 1);
    assert_eq!(c2["by_hops"].as_object().unwrap().len(), 1);
    assert_eq!(
        c2["errors"],
        json!({"argument_values": 1, "tool_selection": 1})
    );
    let c3 = &report["capabilities"]["3"];
    assert_eq!(
        c3["by_hops"],
        json!({"2": {"n_samples": 3, "n_correct": 0, "score": 0.0}})
    );
    assert_eq!(
        c3["errors"],
        json!({"turn_mismatch": 1, "missing_arguments": 1, "no_prediction": 1})
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
        run_eval(&root_path, &preds, &args)
    })
    .await
    .unwrap();
    let s = report_sample(&report, "2", "2d1b0c0ffee0-000000000001");
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
    let (output, report) = tokio::task::spawn_blocking(move || {
        run_eval_split(
            &demo_split(),
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
    let s = report_sample(&report, "2", "2d1b0c0ffee0-000000000001");
    assert_eq!(s["score"], 0.0);
    assert_eq!(
        s["judges"]["answer"]["explanation"], "Judge Error {e}.",
        "the reference's text"
    );
    // The real error is not lost: in the sample, and counted in a warning (also on stderr).
    assert!(
        s["problems"]
            .to_string()
            .contains("correctness judge: HTTP 500"),
        "{s:#}"
    );
    let warning = "LLM judge errors: 1; each scored its sample 0 (the samples' problems say \
                   which); the first: HTTP 500";
    assert!(
        report["warnings"].to_string().contains(warning),
        "{report:#}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("warning: {warning}")), "{stderr}");
}

/// With an LLM configured, `--groundedness deterministic` keeps the LLM's correctness verdict
/// and grounds the answer in the prediction's responses: a right answer with no tool call
/// fails, with one LLM call only. `--groundedness llm` needs an LLM.
#[tokio::test(flavor = "multi_thread")]
async fn the_deterministic_groundedness_judge_can_be_chosen_with_an_llm() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    let gt = demo_ground_truth("capability_2_dashboard_apis", "library");
    let uuid = "2d1b0c0ffee0-000000000002";
    let late_fee_answer = gt[1]["output"][0]["answer"][0].as_str().unwrap().to_owned();
    write_predictions(
        predictions.path(),
        "capability_2_dashboard_apis",
        "library",
        &json!([prediction(uuid, 0, json!([]), &late_fee_answer)]),
    );
    let (base, count) = judge_stand_in(r#"{"explanation": "matches", "score": 1}"#, 200).await;
    let (root_path, preds) = (root.path().to_owned(), predictions.path().to_owned());
    let (_, report) = tokio::task::spawn_blocking(move || {
        run_eval(
            &root_path,
            &preds,
            &[
                "--capability",
                "2",
                "--domain",
                "library",
                "--judge-url",
                &base,
                "--groundedness",
                "deterministic",
            ],
        )
    })
    .await
    .unwrap();
    let s = report_sample(&report, "2", uuid);
    assert_eq!(s["judges"]["answer"]["explanation"], "matches");
    assert_eq!(s["judges"]["groundedness"]["score"], 0.0, "{s:#}");
    assert_eq!(
        s["decided_by"],
        json!({"judge": "groundedness", "method": "deterministic"})
    );
    assert_eq!(s["score"], 0.0);
    assert_eq!(report["settings"]["answer_judge"], "llm");
    assert_eq!(report["settings"]["groundedness_judge"], "deterministic");
    assert_eq!(count.load(Ordering::SeqCst), 1, "the correctness call only");

    let output = vakra()
        .args(["eval", "--quiet", "--ground-truth"])
        .arg(demo_split())
        .arg("--predictions")
        .arg(predictions.path())
        .args(["--report", "/dev/null", "--groundedness", "llm"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("--groundedness llm needs an LLM judge (--judge-url)"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
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
    let (_, report) = run_eval(
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
    let (_, report) = tokio::task::spawn_blocking(move || {
        run_eval(&root_path, &preds, &["--html", html_arg.to_str().unwrap()])
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
    // One domain table per capability, listing the report's domains.
    let tables = page["domainTables"].as_array().unwrap();
    assert_eq!(tables.len(), 4, "{tables:?}");
    for table in tables {
        let n = table["section"]
            .as_str()
            .unwrap()
            .trim_start_matches("capability-");
        let domains: Vec<&String> = report["capabilities"][n]["domains"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(table["rows"], json!(domains));
    }
    // The picture, decoded: the page is drawn (a good share of pixels is not background), and
    // the bars are painted in the bar colour over (nearly) all of their area.
    let picture = &page["picture"];
    assert_eq!(page["barColour"], "rgb(47, 122, 229)");
    assert!(
        picture["nonBackgroundShare"].as_f64().unwrap() > 0.05,
        "{picture}"
    );
    let bar_area: f64 = bars
        .iter()
        .map(|b| b["width"].as_f64().unwrap() * b["height"].as_f64().unwrap())
        .sum();
    let painted = picture["barColourPixels"].as_f64().unwrap();
    assert!(
        bar_area > 10_000.0 && painted >= 0.95 * bar_area && painted <= 1.05 * bar_area,
        "{painted} bar-coloured pixels for {bar_area} px² of bars"
    );
}

/// The HTML report's sample explorer in headless Chromium: every filter shows what the report
/// holds, a search finds one sample, and the story of a failing sample shows its verdict, the
/// deciding judge, the error category, both sides' calls with their arguments and responses
/// (differences marked) and both answers, as the report JSON has them.
#[tokio::test]
async fn a_failing_samples_story_is_shown_in_chromium() {
    let Some((chromium, script)) = browser_tooling("report_samples.mjs") else {
        return;
    };
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let uuid = "3d1b0c0ffee0-000000000002";
    // The right tools, one with arguments missing, and a wrong answer.
    write_predictions(
        predictions.path(),
        "capability_3_multihop_reasoning",
        "weather",
        &json!([prediction(
            uuid,
            0,
            json!([{"name": "get_elevation_extremes", "arguments": {}},
                   {"name": "get_total_precipitation", "arguments": {"code": "BGO01"}}]),
            "About 12 mm of rain <fell>."
        )]),
    );
    let html = Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-samples.html");
    let (root_path, preds, html_arg) = (
        root.path().to_owned(),
        predictions.path().to_owned(),
        html.clone(),
    );
    let (_, report) = tokio::task::spawn_blocking(move || {
        run_eval(&root_path, &preds, &["--html", html_arg.to_str().unwrap()])
    })
    .await
    .unwrap();
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("eval-sample-story.png");
    let page = run_browser_script(
        &chromium,
        &script,
        &[html.as_os_str(), screenshot.as_os_str(), uuid.as_ref()],
    )
    .await;
    assert_eq!(page["consoleErrors"], json!([]));
    assert_eq!(page["requests"], json!([]), "one self-contained file");
    // Every filter shows what the report holds.
    let samples: Vec<(&String, &Value)> = report["capabilities"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(n, c)| c["samples"].as_array().unwrap().iter().map(move |s| (n, s)))
        .collect();
    assert_eq!(page["initial"]["rows"], samples.len());
    let count = |f: &dyn Fn(&(&String, &Value)) -> bool| samples.iter().filter(|s| f(s)).count();
    for (capability, rows) in page["byCapability"].as_object().unwrap() {
        assert_eq!(
            rows,
            &json!(count(&|(n, _)| *n == capability)),
            "{capability}"
        );
    }
    assert_eq!(page["byCapability"].as_object().unwrap().len(), 4);
    for (domain, rows) in page["byDomain"].as_object().unwrap() {
        assert_eq!(
            rows,
            &json!(count(&|(_, s)| s["domain"] == domain.as_str()))
        );
    }
    let stages = page["byStage"].as_object().unwrap();
    assert!(!stages.is_empty());
    for (stage, rows) in stages {
        assert_eq!(
            rows,
            &json!(count(&|(_, s)| s["error_stage"] == stage.as_str()))
        );
    }
    let failing: Vec<&Value> = samples
        .iter()
        .filter(|(_, s)| s["score"] == 0.0)
        .map(|(_, s)| &s["uuid"])
        .collect();
    assert_eq!(page["failing"], json!(failing));
    assert_eq!(page["search"], json!([uuid]));
    // The story, against the report.
    let s = report_sample(&report, "3", uuid);
    let story = &page["story"];
    assert_eq!(page["storyVisible"], true);
    assert_eq!(story["verdict"], "fail");
    assert_eq!(
        story["decidedBy"],
        format!(
            "{} ({})",
            s["decided_by"]["judge"].as_str().unwrap(),
            s["decided_by"]["method"].as_str().unwrap()
        )
    );
    assert_eq!(story["errorStage"], s["error_stage"]);
    assert_eq!(s["error_stage"], "missing_arguments");
    assert_eq!(story["query"], s["query"]);
    assert_eq!(story["predAnswer"], "About 12 mm of rain <fell>.");
    assert_eq!(story["predAnswer"], s["pred_answer"]);
    assert_eq!(story["gtAnswer"], s["gt_answer"]);
    let judges: Vec<(Value, f64, Value)> = ["policy", "exact_match", "answer", "groundedness"]
        .iter()
        .filter(|name| !s["judges"][**name].is_null())
        .map(|name| {
            let verdict = &s["judges"][*name];
            (
                json!(name),
                verdict["score"].as_f64().unwrap(),
                verdict["explanation"].clone(),
            )
        })
        .collect();
    let shown: Vec<(Value, f64, Value)> = story["judges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["name"].clone(),
                j["score"].as_f64().unwrap(),
                j["explanation"].clone(),
            )
        })
        .collect();
    assert_eq!(shown, judges);
    let calls = story["calls"].as_array().unwrap();
    let (gt_calls, pred_calls) = (
        s["calls"]["ground_truth"].as_array().unwrap(),
        s["calls"]["prediction"].as_array().unwrap(),
    );
    assert_eq!(calls.len(), 2);
    for (i, shown) in calls.iter().enumerate() {
        let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap();
        assert_eq!(shown["gtCall"], gt_calls[i]["name"]);
        assert_eq!(shown["gtArgs"], pretty(&gt_calls[i]["arguments"]));
        assert_eq!(shown["predCall"], pred_calls[i]["name"]);
        assert_eq!(shown["predArgs"], pretty(&pred_calls[i]["arguments"]));
        assert_eq!(shown["gtResponse"], s["responses"]["ground_truth"][i]);
        assert_eq!(shown["predResponse"], s["responses"]["prediction"][i]);
    }
    // The first call is the ground truth's, and so is its response; the second lacks arguments
    // and its response is not the ground truth's.
    assert_eq!(calls[0]["predDiffers"], false);
    assert_eq!(calls[0]["gtFound"], true);
    assert_eq!(calls[1]["predDiffers"], true);
    assert_eq!(calls[1]["gtFound"], false);
    assert_ne!(calls[1]["gtResponse"], calls[1]["predResponse"]);
    let picture = std::fs::read(&screenshot).unwrap();
    assert!(
        picture.starts_with(b"\x89PNG") && picture.len() > 10_000,
        "a screenshot of the story"
    );
}

#[test]
fn replay_over_http_against_vakra_serve() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let server = common::Server::start(&["--root", root.path().to_str().unwrap()]);
    let url = format!("{}/mcp/{{capability}}/{{domain}}", server.base);
    let (_, report) = run_eval(root.path(), predictions.path(), &["--server-url", &url]);
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
    let (_, report) = run_eval(
        &repo_root(),
        predictions.path(),
        &[
            "--capability",
            "2",
            // Quoted as in a shell; the server leaves a process of its own behind, which
            // must not hold `vakra eval`'s output open once it is done.
            "--server-command",
            "sh -c 'sleep 25 & exec sleep 25'",
            "--call-timeout-secs",
            "0.5",
        ],
    );
    assert!(started.elapsed().as_secs() < 20, "timeouts bound the run");
    for s in report["capabilities"]["2"]["samples"].as_array().unwrap() {
        let problems = s["problems"].to_string();
        assert!(problems.contains("no MCP session within"), "{problems}");
    }
    let gt = &report["replay"]["ground_truth"];
    assert_eq!(gt["failures"], gt["calls"]);
    assert_eq!(gt["calls"], 3, "one call in each capability-2 sample");
}

/// The published sample traces: the capability-4 sample's domain is not in the demo root, so both
/// sides replay to the same error texts and exact match passes, as the reference's rule gives
/// for identical responses; the capability-1 sample (a list-shaped `sequence`), on which the
/// reference evaluator stops with an exception, is scored and its universe problem reported.
#[test]
fn the_published_sample_traces_are_evaluated_without_crashing() {
    let Some(shared) = reference::file("sample_data") else {
        return;
    };
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
                "The member owes 11.6 in late fees.",
            ]),
    );
    let (_, report) = run_eval(
        root.path(),
        predictions.path(),
        &["--capability", "2", "--domain", "library"],
    );
    let traced = report_sample(&report, "2", "2d1b0c0ffee0-000000000002");
    assert_eq!(traced["score"], 1.0, "{traced:#}");
    assert_eq!(traced["pred_steps"], 1);
}

#[test]
fn the_policy_judge_stops_a_turn_that_breaks_its_instructions() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let cap4 = "capability_4_multiturn";
    let mut records = demo_ground_truth(cap4, "library");
    // The instructions allow the library's documents only; search the weather documents too.
    let calls = &mut records[0]["output"][1]["sequence"]["tool_call"];
    calls
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "query_weather", "arguments": {"question": "rain"}}));
    write_predictions(predictions.path(), cap4, "library", &Value::Array(records));
    let uuid = "4d1b0c0ffee0-000000000001";
    let (_, without) = run_eval(root.path(), predictions.path(), &["--capability", "4"]);
    assert_eq!(
        report_sample(&without, "4", uuid)["score"],
        1.0,
        "extra calls do not fail exact match"
    );
    let (_, with) = run_eval(
        root.path(),
        predictions.path(),
        &["--capability", "4", "--policy-judge"],
    );
    let s = report_sample(&with, "4", uuid);
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
    let other = report_sample(&with, "4", "4d1b0c0ffee0-000000000002");
    assert_eq!(
        other["judges"]["policy"],
        Value::Null,
        "no instructions, no policy verdict"
    );
    assert_eq!(other["score"], 1.0);
}

/// A legacy operation id whose tool name was shortened (so no listed name is its prefix) is
/// translated through a map file in the reference's form; without the map it is an unknown tool,
/// reported as such.
#[test]
fn legacy_operation_ids_are_translated_through_the_reference_map_file() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    let legacy = "get_branch_summary_statistics_for_branch_v1_library_branch_summary_get";
    let uuid = "2d1b0c0ffee0-000000000001";
    write_predictions(
        predictions.path(),
        "capability_2_dashboard_apis",
        "library",
        // A second call with an argument the tool refuses: an error answer (isError).
        &json!([prediction(
            uuid,
            0,
            json!([{"name": legacy, "arguments": {"branch_id": 8}},
                   {"name": "get_late_fees_by_member", "arguments": {"member_id": "eight"}}]),
            "473 loans, 86 members"
        )]),
    );
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("all_operation_id_mappings.json");
    std::fs::write(
        &map,
        json!({"total_files": 1, "total_mappings": 1,
               "files": {"library.py": {legacy: "get_branch_summary"}}})
        .to_string(),
    )
    .unwrap();
    let only = ["--capability", "2", "--domain", "library"];
    let (_, mapped) = run_eval(
        root.path(),
        predictions.path(),
        &[&only[..], &["--operation-id-map", map.to_str().unwrap()]].concat(),
    );
    let s = report_sample(&mapped, "2", uuid);
    assert_eq!(s["score"], 1.0, "{s:#}");
    assert_eq!(s["judges"]["exact_match"]["score"], 1.0);
    let problems = s["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{s:#}");
    assert!(
        problems[0].as_str().unwrap().starts_with(
            "prediction replay: get_late_fees_by_member: isError: Input validation error:"
        ),
        "{s:#}"
    );
    assert_eq!(
        mapped["replay"]["prediction"],
        json!({"calls": 2, "unknown_tools": 0, "error_results": 1, "failures": 0})
    );

    let markdown = dir.path().join("report.md");
    let (_, unmapped) = run_eval(
        root.path(),
        predictions.path(),
        &[&only[..], &["--markdown", markdown.to_str().unwrap()]].concat(),
    );
    let s = report_sample(&unmapped, "2", uuid);
    assert_eq!(s["score"], 0.0);
    assert_eq!(s["error_stage"], "tool_selection");
    assert!(
        s["problems"]
            .to_string()
            .contains(&format!("unknown tool `{legacy}`")),
        "{s:#}"
    );
    assert_eq!(unmapped["replay"]["prediction"]["unknown_tools"], 1);
    let markdown = std::fs::read_to_string(markdown).unwrap();
    assert!(
        markdown.contains("prediction 2 calls: 1 to unknown tools, 1 error answers, 0 without"),
        "{markdown}"
    );
}

/// Capability 4 weighs multi-source samples (the scored turn calls a retriever and an API)
/// double: with the multi-source sample wrong and the single-source one right, `score` and
/// `unweighted_score` part.
#[test]
fn capability_4_weighs_multi_source_samples_double() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let cap4 = "capability_4_multiturn";
    let mut records = demo_ground_truth(cap4, "library");
    let scored = records[0]["output"]
        .as_array_mut()
        .unwrap()
        .last_mut()
        .unwrap();
    scored["answer"] = json!("no idea");
    scored["sequence"]["tool_call"] =
        json!([{"name": "get_branch_summary", "arguments": {"branch_id": 3}}]);
    let wrong_uuid = records[0]["uuid"].as_str().unwrap().to_owned();
    write_predictions(predictions.path(), cap4, "library", &Value::Array(records));
    let (_, report) = run_eval(root.path(), predictions.path(), &["--capability", "4"]);
    let c4 = &report["capabilities"]["4"];

    // The expected scores, from the ground truth and the definition.
    let (mut weighted, mut weights, mut correct, mut n) = (0.0, 0.0, 0.0, 0.0);
    for domain in ["library", "weather"] {
        for record in demo_ground_truth(cap4, domain) {
            let calls =
                record["output"].as_array().unwrap().last().unwrap()["sequence"]["tool_call"]
                    .as_array()
                    .unwrap()
                    .clone();
            let retrievers = calls
                .iter()
                .filter(|c| c["name"].as_str().unwrap().contains("query_"))
                .count();
            let weight = if retrievers > 0 && retrievers < calls.len() {
                2.0
            } else {
                1.0
            };
            let score = if record["uuid"] == wrong_uuid.as_str() {
                0.0
            } else {
                1.0
            };
            weighted += weight * score;
            weights += weight;
            correct += score;
            n += 1.0;
        }
    }
    assert_eq!(
        weights, 3.0,
        "one multi-source and one single-source sample"
    );
    let (score, unweighted) = (100.0 * weighted / weights, 100.0 * correct / n);
    assert!(
        (c4["score"].as_f64().unwrap() - score).abs() < 1e-9,
        "{c4:#}"
    );
    assert!((c4["unweighted_score"].as_f64().unwrap() - unweighted).abs() < 1e-9);
    assert!((score - 100.0 / 3.0).abs() < 1e-9 && unweighted == 50.0);
    assert_eq!(c4["by_source"]["multi_source"]["n_correct"], 0);
    assert_eq!(c4["by_source"]["single_source"]["n_correct"], 1);
    assert_eq!(c4["by_hops"]["2"]["n_correct"], 0);
    assert_eq!(c4["by_hops"]["1"]["n_correct"], 1);
    // The retriever was never called.
    assert_eq!(c4["errors"], json!({"tool_selection": 1}));
    assert!((report["leaderboard_score"].as_f64().unwrap() - score / 4.0).abs() < 1e-9);
}

/// `--exact-match normalized` through the command line: a capability-1 trace that filters
/// twice names its table `filtered_book_2` where the ground truth has `filtered_book_1`; the
/// reference's rule fails it, the normalized one (the `handle` field left out) passes it.
#[test]
fn normalized_exact_match_leaves_generated_table_names_out() {
    let root = demo_root(true);
    let predictions = tempfile::tempdir().unwrap();
    let cap1 = "capability_1_bi_apis";
    let uuid = "11b7a0c0ffee-000000000001";
    let filter = |genre: &str| {
        json!({"name": "filter_data", "arguments": {"data_label": "retrieved_book_1",
               "key_name": "genre", "value": genre, "condition": "equal_to"}})
    };
    let calls = json!([
        {"name": "get_data", "arguments": {"tool_universe_id": uuid}},
        filter("Travel"),
        filter("Fantasy"),
        {"name": "aggregate_data", "arguments": {"data_label": "filtered_book_2",
         "key_name": "price", "aggregation_operation": "mean"}},
    ]);
    write_predictions(
        predictions.path(),
        cap1,
        "library",
        &json!([prediction(uuid, 0, calls, "27.65")]),
    );
    let only = ["--capability", "1", "--domain", "library"];
    let (_, reference) = run_eval(root.path(), predictions.path(), &only);
    let s = report_sample(&reference, "1", uuid);
    assert_eq!(s["judges"]["exact_match"]["score"], 0.0, "{s:#}");
    assert!(
        s["judges"]["exact_match"]["explanation"]
            .as_str()
            .unwrap()
            .contains("filtered_book_1")
    );
    assert_eq!(s["score"], 0.0);
    let (_, normalized) = run_eval(
        root.path(),
        predictions.path(),
        &[&only[..], &["--exact-match", "normalized"]].concat(),
    );
    assert_eq!(normalized["settings"]["exact_match"], "normalized");
    let s = report_sample(&normalized, "1", uuid);
    assert_eq!(s["judges"]["exact_match"]["score"], 1.0, "{s:#}");
    assert_eq!(s["score"], 1.0);
    assert_eq!(s["problems"], json!([]));
}

/// A split of one capability-2 sample of the synthetic `slow` domain: the ground truth counts
/// to 10, the prediction to 10^12, which takes the server minutes.
fn slow_split() -> (tempfile::TempDir, tempfile::TempDir) {
    let split = tempfile::tempdir().unwrap();
    let predictions = tempfile::tempdir().unwrap();
    let record = |n: u64, answer: Value| {
        json!([{"uuid": "slow-1", "domain": "slow", "status": "success", "error": "",
                "duration_s": 1.0, "output": [{"turn_id": 0, "query": "count", "answer": answer,
                "sequence": {"tool_call": [{"name": "get_count_to", "arguments": {"n": n}}]}}]}])
    };
    let output = split.path().join("capability_2_dashboard_apis/output");
    std::fs::create_dir_all(&output).unwrap();
    std::fs::write(
        output.join("slow.json"),
        record(10, json!(["10"])).to_string(),
    )
    .unwrap();
    write_predictions(
        predictions.path(),
        "capability_2_dashboard_apis",
        "slow",
        &record(1_000_000_000_000, json!("")),
    );
    (split, predictions)
}

#[test]
fn a_call_slower_than_the_call_timeout_is_reported_not_waited_for() {
    let root = common::slow_root();
    let (split, predictions) = slow_split();
    let command = format!(
        "{} mcp --capability {{capability}} --domain {{domain}} --root {}",
        env!("CARGO_BIN_EXE_vakra"),
        root.path().display()
    );
    let started = std::time::Instant::now();
    let (_, report) = run_eval_split(
        split.path(),
        root.path(),
        predictions.path(),
        &["--server-command", &command, "--call-timeout-secs", "1"],
    );
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    let s = report_sample(&report, "2", "slow-1");
    assert!(
        s["problems"]
            .to_string()
            .contains("prediction replay: get_count_to: no answer within 1s"),
        "{s:#}"
    );
    assert_eq!(s["replay"]["prediction"]["failures"], 1);
    assert_eq!(s["replay"]["ground_truth"]["failures"], 0);
    assert_eq!(report["replay"]["prediction"]["failures"], 1);
    assert_eq!(s["score"], 0.0);
    assert_eq!(s["error_stage"], "argument_values");
}

/// A server that dies at the first tool call: both sides' calls fail at once (no wait for the
/// call timeout) and are reported.
#[test]
fn a_server_that_exits_mid_session_is_reported() {
    let root = demo_root(false);
    let predictions = tempfile::tempdir().unwrap();
    oracle_predictions(predictions.path());
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("dying-server");
    // `vakra mcp` answers the handshake and the tool list through a pipe; at the first
    // tools/call the server is killed and the script exits, closing the session.
    std::fs::write(
        &script,
        r#"#!/bin/bash
fifo="$(dirname "$0")/in-$$"
mkfifo "$fifo"
"$1" mcp --capability "$CAPABILITY_ID" --domain "$MCP_DOMAIN" --root "$2" < "$fifo" &
server=$!
exec 3> "$fifo"
while IFS= read -r line; do
  case "$line" in *'"tools/call"'*) kill "$server"; wait "$server"; exit 0 ;; esac
  printf '%s\n' "$line" >&3
done
"#,
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let command = format!(
        "{} {} {}",
        script.display(),
        env!("CARGO_BIN_EXE_vakra"),
        root.path().display()
    );
    let started = std::time::Instant::now();
    let (_, report) = run_eval(
        root.path(),
        predictions.path(),
        &[
            "--capability",
            "2",
            "--domain",
            "library",
            "--server-command",
            &command,
        ],
    );
    assert!(
        started.elapsed().as_secs() < 30,
        "a closed session is not waited out: {:?}",
        started.elapsed()
    );
    let samples = report["capabilities"]["2"]["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 2);
    for s in samples {
        // Both sides answer the same error text, which the reference's exact-match rule
        // matches; the report says why that means little, and the deterministic groundedness
        // judge fails the answer: no tool response supports it.
        assert_eq!(s["judges"]["exact_match"]["score"], 1.0, "{s:#}");
        assert_eq!(s["judges"]["groundedness"]["score"], 0.0, "{s:#}");
        assert_eq!(s["score"], 0.0, "{s:#}");
        let problems = s["problems"].as_array().unwrap();
        for side in ["prediction replay: get_", "ground-truth replay: get_"] {
            assert!(
                problems
                    .iter()
                    .any(|p| p.as_str().unwrap().starts_with(side)),
                "{s:#}"
            );
        }
        assert!(
            !s["problems"].to_string().contains("no answer within"),
            "{s:#}"
        );
    }
    assert_eq!(report["replay"]["prediction"]["failures"], 2);
    assert_eq!(report["replay"]["ground_truth"]["failures"], 2);
    assert!(
        report["warnings"]
            .to_string()
            .contains("2 of 2 ground-truth calls failed or named an unknown tool"),
        "{:#}",
        report["warnings"]
    );
}

#[test]
fn time_limits_a_duration_cannot_hold_are_refused() {
    let predictions = tempfile::tempdir().unwrap();
    let eval = |flag: &str, bad: &str| {
        let mut command = vakra();
        command
            .args(["eval", "--quiet", "--ground-truth"])
            .arg(demo_split())
            .arg("--predictions")
            .arg(predictions.path())
            .args(["--report", "/dev/null", flag, bad]);
        command
    };
    let server = |subcommand: &str, bad: &str| {
        let mut command = vakra();
        command.arg(subcommand);
        if subcommand == "mcp" {
            command.args(["--capability", "2", "--domain", "library"]);
        }
        command
            .arg("--root")
            .arg(repo_root())
            .args(["--sql-time-limit", bad])
            .stdin(std::process::Stdio::null());
        command
    };
    for bad in ["1e30", "-1", "NaN", "0", "inf", "soon"] {
        for (flag, mut command) in [
            ("--call-timeout-secs", eval("--call-timeout-secs", bad)),
            ("--sql-time-limit", eval("--sql-time-limit", bad)),
            ("--sql-time-limit", server("mcp", bad)),
            ("--sql-time-limit", server("serve", bad)),
        ] {
            let output = command.output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{command:?}: {stderr}");
            assert!(
                stderr.contains("invalid value") && stderr.contains(flag),
                "{command:?}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{command:?}: {stderr}");
        }
    }
}

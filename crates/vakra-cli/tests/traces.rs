//! Session traces (`--trace DIR`) of real MCP sessions over stdio and streamable HTTP: one file
//! per session, a header line, one line per call with exactly what the client got; a trace
//! that cannot be written does not fail calls; `vakra trace export` turns traces into
//! prediction records of the benchmark's format.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::{
    Server, demo_ground_truth, demo_root, http_client, report_sample, run_eval, stdio_client, vakra,
};
use serde_json::{Value, json};
use vakra_test_kit::mcp::{McpClient, call_tool};
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::process::output_ok;

/// A capability-2 `library` session over stdio, traced to `dir`.
async fn library_session(dir: &Path) -> McpClient {
    let root = repo_root();
    let mut args = vec!["--capability", "2", "--domain", "library", "--root"];
    args.extend([root.to_str().unwrap(), "--trace", dir.to_str().unwrap()]);
    stdio_client(&args).await
}

fn trace_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks a trace file against the calls a client made and what it got back.
fn check_trace(path: &Path, capability: u64, domain: &str, calls: &[(&str, Value, String, bool)]) {
    let lines = lines(path);
    let header = &lines[0];
    assert_eq!(header["type"], "session");
    assert_eq!(header["capability"], capability);
    assert_eq!(header["domains"], json!([domain]));
    assert_eq!(header["vakra_version"], env!("CARGO_PKG_VERSION"));
    let id = header["session_id"].as_str().unwrap();
    assert_eq!(
        path.file_name().unwrap().to_str().unwrap(),
        format!("{id}.jsonl")
    );
    let started = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    let session_start = started(&header["started_at"]);
    assert_eq!(lines.len(), calls.len() + 1, "{}", path.display());
    let mut previous = session_start;
    for (line, (tool, arguments, text, is_error)) in lines[1..].iter().zip(calls) {
        assert_eq!(line["type"], "call");
        assert_eq!(line["tool"], *tool);
        assert_eq!(line["arguments"], *arguments);
        assert_eq!(line["text"], json!(text), "{tool}: the text the client got");
        assert_eq!(line["is_error"], *is_error, "{tool}");
        let at = started(&line["started_at"]);
        assert!(at >= previous, "{tool}: calls in order");
        previous = at;
        let ms = line["duration_ms"].as_f64().unwrap();
        assert!((0.0..60_000.0).contains(&ms), "{tool}: {ms} ms");
    }
}

/// Makes calls and returns them with what the client got.
async fn run_calls(
    client: &McpClient,
    calls: &[(&'static str, Value)],
) -> Vec<(&'static str, Value, String, bool)> {
    let mut seen = Vec::new();
    for (tool, arguments) in calls {
        let (text, is_error) = call_tool(client, tool, arguments.clone()).await;
        seen.push((*tool, arguments.clone(), text, is_error));
    }
    seen
}

#[tokio::test]
async fn stdio_and_http_sessions_are_traced_and_exported() {
    let root = repo_root();
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("traces");
    let client = library_session(&traces).await;
    let stdio_calls = run_calls(
        &client,
        &[
            ("get_book_count_by_genre", json!({"genre": "Fantasy"})),
            ("get_titles_by_author", json!({"first_name": "Ada"})),
            ("get_book_count_by_genre", json!({"genre": "Nope\u{e9}"})),
        ],
    )
    .await;
    assert!(stdio_calls[1].3, "a validation error is an isError result");
    client.cancel().await.unwrap();
    let files = trace_files(&traces);
    assert_eq!(files.len(), 1, "{files:?}");
    check_trace(&files[0], 2, "library", &stdio_calls);
    let stdio_id = lines(&files[0])[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::remove_file(&files[0]).unwrap();

    let server = Server::start(&[
        "--root",
        root.to_str().unwrap(),
        "--trace",
        traces.to_str().unwrap(),
    ]);
    let one = http_client(&server.base, "1", "weather").await;
    let two = http_client(&server.base, "3", "bpo").await;
    let one_calls = run_calls(
        &one,
        &[
            ("get_data", json!({"tool_universe_id": "3ea7e0c0ffee-000000000002"})),
            (
                "compute_data_max",
                json!({"data_label": "retrieved_observations_1", "key_name": "observations_temp_max"}),
            ),
            ("get_stations_names", json!({"data_label": "no_such_handle"})),
        ],
    )
    .await;
    let two_calls = run_calls(
        &two,
        &[
            (
                "candidate_source_sla_per_source",
                json!({"requisition_id": "DMO0001"}),
            ),
            ("candidate_source_sla_per_source", json!({})),
        ],
    )
    .await;
    one.cancel().await.unwrap();
    two.cancel().await.unwrap();
    let files = trace_files(&traces);
    assert_eq!(files.len(), 2, "one file per HTTP session: {files:?}");
    let by_capability = |n: u64| {
        files
            .iter()
            .find(|f| lines(f)[0]["capability"] == n)
            .unwrap()
            .clone()
    };
    check_trace(&by_capability(1), 1, "weather", &one_calls);
    check_trace(&by_capability(3), 3, "bpo", &two_calls);
    let bpo_id = lines(&by_capability(3))[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(bpo_id, stdio_id);

    // export: capability 1's uuid is its universe; the other session gets the given uuid/answer
    let out = dir.path().join("predictions.json");
    let output = output_ok(
        vakra()
            .args(["trace", "export", "--trace"])
            .arg(&traces)
            .arg("--out")
            .arg(&out)
            .args(["--uuid", &format!("{bpo_id}=task-7")])
            .args(["--answer", &format!("{bpo_id}=42")]),
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("exported 2 sessions"));
    let records: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let records = records.as_array().unwrap();
    assert_eq!(records.len(), 2);
    for record in records {
        let turns = record["output"].as_array().unwrap();
        assert_eq!(turns.len(), 1, "the evaluator wants exactly one turn");
        assert_eq!(turns[0]["turn_id"], 0);
        assert_eq!(record["status"], "success");
        assert!(record["duration_s"].as_f64().unwrap() >= 0.0);
        let (uuid, domain, answer, calls) = if record["domain"] == "weather" {
            ("3ea7e0c0ffee-000000000002", "weather", "", &one_calls)
        } else {
            ("task-7", "bpo", "42", &two_calls)
        };
        assert_eq!(record["uuid"], uuid);
        assert_eq!(record["domain"], domain);
        assert_eq!(turns[0]["answer"], answer);
        let want: Vec<Value> = calls
            .iter()
            .map(|(tool, arguments, _, _)| json!({"name": tool, "arguments": arguments}))
            .collect();
        assert_eq!(turns[0]["sequence"]["tool_call"], json!(want));
    }
}

/// An agent's run of a demo task, traced and exported, is scored by `vakra eval` as the task's
/// ground truth is: capability 1, whose uuid the export takes from `get_data`, and capability 4,
/// whose exported turn is the dialogue's last (`--turn-id`).
#[tokio::test]
async fn exported_traces_of_capabilities_1_and_4_score_as_their_ground_truth() {
    let root = demo_root(true);
    let traces = tempfile::tempdir().unwrap();
    let predictions = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for (capability, folder) in [
        ("1", "capability_1_bi_apis"),
        ("4", "capability_4_multiturn"),
    ] {
        let task = &demo_ground_truth(folder, "library")[0];
        let turn = task["output"].as_array().unwrap().last().unwrap();
        let calls = turn["sequence"]["tool_call"].as_array().unwrap();
        let dir = traces.path().join(capability);
        let client = stdio_client(&[
            "--capability",
            capability,
            "--domain",
            "library",
            "--root",
            root.path().to_str().unwrap(),
            "--trace",
            dir.to_str().unwrap(),
        ])
        .await;
        for call in calls {
            let name = call["name"].as_str().unwrap();
            let (text, is_error) = call_tool(&client, name, call["arguments"].clone()).await;
            assert!(!is_error, "{name}: {text}");
        }
        client.cancel().await.unwrap();

        let out = predictions.path().join(folder).join("library.json");
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let uuid = task["uuid"].as_str().unwrap();
        let answer = turn["answer"][0].as_str().unwrap();
        let mut export = vakra();
        export
            .args(["trace", "export", "--trace"])
            .arg(&dir)
            .arg("--out")
            .arg(&out)
            .args(["--answer", answer, "--turn-id"])
            .arg(turn["turn_id"].to_string());
        if capability != "1" {
            export.args(["--uuid", uuid]);
        }
        output_ok(&mut export);
        expected.push((capability, uuid.to_owned(), calls.len()));
    }

    let (_, report) = run_eval(root.path(), predictions.path(), &["--domain", "library"]);
    for (capability, uuid, steps) in expected {
        let sample = report_sample(&report, capability, &uuid);
        assert_eq!(sample["score"], 1.0, "{sample:#}");
        assert_eq!(sample["judges"]["exact_match"]["score"], 1.0, "{sample:#}");
        assert_eq!(sample["pred_steps"], steps, "{sample:#}");
    }
}

#[tokio::test]
async fn an_unwritable_trace_directory_does_not_fail_calls() {
    // /proc/self exists, but no file can be created in it, not even by root
    let client = library_session(Path::new("/proc/self")).await;
    for _ in 0..2 {
        let (text, is_error) = call_tool(
            &client,
            "get_book_count_by_genre",
            json!({"genre": "Fantasy"}),
        )
        .await;
        assert_eq!((text.as_str(), is_error), ("{\n  \"count\": 102\n}", false));
    }
    client.cancel().await.unwrap();
}

#[test]
fn bad_trace_options_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let output = vakra()
        .args(["mcp", "--capability", "2", "--domain", "library", "--trace"])
        .arg(&file)
        .arg("--root")
        .arg(repo_root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot create the directory"), "{stderr}");

    let export = |args: &[&str]| {
        let output = vakra()
            .args(["trace", "export", "--out"])
            .arg(dir.path().join("out.json"))
            .args(args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = export(&["--trace", empty.to_str().unwrap()]);
    assert!(e.contains("no trace files"), "{e}");
    let e = export(&["--trace", file.to_str().unwrap()]);
    assert!(e.contains("a-file:1:"), "{e}");
    let e = export(&["--trace", dir.path().join("missing").to_str().unwrap()]);
    assert!(e.contains("missing"), "{e}");
    assert!(!dir.path().join("out.json").exists());
}

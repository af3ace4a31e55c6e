//! The BPO domain (capability 3, `bpo`) over real MCP sessions: `vakra mcp` over stdio and
//! `vakra serve` over streamable HTTP, on a data root holding the reference's BPO data
//! (`../shared/reference/environment/bpo/data`, which CI has). The 43 tool results recorded in
//! the reference's six task files must come back byte for byte, each file replayed in a fresh
//! session; the listing, per-session state and bad input are checked on the same sessions.

mod common;
#[allow(dead_code)]
#[path = "../../vakra-bpo/tests/common/recorded.rs"]
mod recorded;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::{Server, repo_root};
use recorded::{RECORDED_RESULTS, Recorded, recorded_sessions};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value, json};

type Client = RunningService<RoleClient, ()>;

/// The reference's BPO data folder beside the repository.
fn reference_dir() -> PathBuf {
    repo_root().join("../shared/reference/environment/bpo/data")
}

/// A data root whose `bpo/` holds the reference's data files (copied) and the demo's
/// descriptions (the reference's prose is not in the repository; result texts do not depend on
/// it). With `rest`, also the demo's catalogs and databases, which `vakra serve` needs.
fn reference_root(rest: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let bpo = dir.path().join("bpo");
    std::fs::create_dir(&bpo).unwrap();
    for file in ["candidate_data.parquet", "large_response_fixture.json"] {
        let from = reference_dir().join(file);
        std::fs::copy(&from, bpo.join(file)).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (these tests need ../shared beside the repository)",
                from.display()
            )
        });
    }
    std::fs::copy(
        repo_root().join("bpo/descriptions.json"),
        bpo.join("descriptions.json"),
    )
    .unwrap();
    if rest {
        for folder in ["openapi", "databases"] {
            std::os::unix::fs::symlink(repo_root().join(folder), dir.path().join(folder)).unwrap();
        }
    }
    dir
}

async fn stdio_client(root: &Path, domain: &str) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vakra"));
    command
        .args(["mcp", "--capability", "3", "--domain", domain, "--root"])
        .arg(root)
        .stderr(Stdio::null());
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

async fn http_client(server: &Server) -> Client {
    let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp/3/bpo", server.base));
    ().serve(transport).await.unwrap()
}

/// A tool call as an agent sees it: the text (none when the result has no content) and
/// `isError`.
async fn call(
    client: &Client,
    tool: &str,
    arguments: Map<String, Value>,
) -> (Option<String>, bool) {
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{tool}: the call failed at the protocol level: {e}"));
    assert!(
        result.content.len() <= 1,
        "{tool}: one text block at most, got {:?}",
        result.content
    );
    let text = result.content.first().map(|c| {
        c.as_text()
            .unwrap_or_else(|| panic!("{tool}: a text block, got {c:?}"))
            .text
            .clone()
    });
    (text, result.is_error.unwrap_or(false))
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

/// Replays one task file's calls on `client`; returns how many matched (all, or it panics).
async fn replay(client: &Client, calls: &[Recorded]) -> usize {
    for call_ in calls {
        let context = call_.context();
        let (text, is_error) = call(client, &call_.tool, call_.args.clone()).await;
        let (expected, expected_error) = call_.expected();
        assert_eq!(is_error, expected_error, "{context}: isError");
        if text != expected {
            let shorten = |t: &Option<String>| {
                t.as_deref()
                    .map(|t| t.chars().take(600).collect::<String>())
            };
            panic!(
                "{context}: texts differ\nexpected {:?}\n     got {:?}",
                shorten(&expected),
                shorten(&text)
            );
        }
    }
    calls.len()
}

#[tokio::test]
async fn recorded_results_over_stdio() {
    let root = reference_root(false);
    let sessions = recorded_sessions(&reference_dir());
    assert_eq!(sessions.len(), 6, "six task files");
    let mut matched = 0;
    for (_, calls) in &sessions {
        // A fresh process per task file, as the reference's results were recorded.
        let client = stdio_client(root.path(), "bpo").await;
        matched += replay(&client, calls).await;
        client.cancel().await.unwrap();
    }
    assert_eq!(matched, RECORDED_RESULTS);
}

#[tokio::test]
async fn recorded_results_over_http() {
    let root = reference_root(true);
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let mut matched = 0;
    for (_, calls) in &recorded_sessions(&reference_dir()) {
        // Each HTTP session has its own state, as each reference process does.
        let client = http_client(&server).await;
        matched += replay(&client, calls).await;
        client.cancel().await.unwrap();
    }
    assert_eq!(matched, RECORDED_RESULTS);
}

/// The simulated 404s of `candidate_source_candidate_pipeline_status` follow a random
/// generator seeded per process: the second call of a session fails, the first call of the
/// next session succeeds again. The same over stdio processes and HTTP sessions.
#[tokio::test]
async fn state_is_per_session() {
    let root = reference_root(true);
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let tool = "candidate_source_candidate_pipeline_status";
    let arguments = args(json!({"requisition_id": "05958BR"}));
    for transport in ["stdio", "http"] {
        let mut first_texts = Vec::new();
        for _ in 0..2 {
            let client = match transport {
                "stdio" => stdio_client(root.path(), "bpo").await,
                _ => http_client(&server).await,
            };
            let (first, first_error) = call(&client, tool, arguments.clone()).await;
            assert!(!first_error, "{transport}: first call {first:?}");
            let first = first.expect("a text");
            assert!(first.contains("\"pipeline\""), "{transport}: {first}");
            let (second, second_error) = call(&client, tool, arguments.clone()).await;
            let second = second.expect("a text");
            assert!(
                second_error,
                "{transport}: the second call is a 404: {second}"
            );
            assert!(
                second.starts_with(&format!("Error calling tool '{tool}': "))
                    && second.contains("404"),
                "{transport}: {second}"
            );
            first_texts.push(first);
            client.cancel().await.unwrap();
        }
        assert_eq!(first_texts[0], first_texts[1], "{transport}");
    }
}

#[tokio::test]
async fn listing_and_bad_input() {
    let root = reference_root(false);
    let client = stdio_client(root.path(), "bpo").await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("bpo_benchmark")
    );

    // 32 tools, in the descriptions file's order and with its texts.
    let descriptions: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("bpo/descriptions.json")).unwrap(),
    )
    .unwrap();
    let described: Vec<(String, String)> = descriptions["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["description"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let tools = client.list_all_tools().await.unwrap();
    let listed: Vec<(String, String)> = tools
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.description.as_deref().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(listed.len(), 32);
    assert_eq!(listed, described);
    // Every tool but one takes a requisition id; that one takes no argument at all.
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        assert_eq!(schema["type"], "object", "{}", tool.name);
        if tool.name == "skills_successful_posting_criteria" {
            assert_eq!(schema, json!({"type": "object", "properties": {}}));
            continue;
        }
        assert!(
            schema["required"]
                .as_array()
                .is_some_and(|r| r.contains(&json!("requisition_id"))),
            "{}: {schema}",
            tool.name
        );
    }

    // An unknown requisition: the reference's payload with four fuzzy suggestions.
    let (text, is_error) = call(
        &client,
        "skills_data_sources_used",
        args(json!({"requisition_id": "05960BR"})),
    )
    .await;
    assert!(!is_error);
    let value: Value = serde_json::from_str(text.as_deref().unwrap()).unwrap();
    assert_eq!(
        value["suggested_requisition_ids"],
        json!(["05956BR", "05962BR", "05963BR", "05952BR"]),
        "{value}"
    );

    // Missing and mistyped arguments (pydantic's messages), unknown tools: error results, and
    // the session goes on.
    for (tool, arguments, start) in [
        (
            "skills_data_sources_used",
            json!({}),
            "1 validation error for call[skills_data_sources_used]\nrequisition_id\n  Missing required argument",
        ),
        (
            "skills_data_sources_used",
            json!({"requisition_id": 5}),
            "1 validation error for call[skills_data_sources_used]\nrequisition_id\n  Input should be a valid string",
        ),
        (
            "skills_data_sources_used",
            json!({"requisition_id": ["05958BR"]}),
            "1 validation error for call[skills_data_sources_used]\nrequisition_id\n  Input should be a valid string",
        ),
        (
            "skills_skill_impact_sla",
            json!({"requisition_id": "05958BR"}),
            "1 validation error for call[skills_skill_impact_sla]\nskill_name\n  Missing required argument",
        ),
        (
            "no_such_tool",
            json!({"requisition_id": "05958BR"}),
            "Unknown tool: no_such_tool",
        ),
    ] {
        let (text, is_error) = call(&client, tool, args(arguments.clone())).await;
        let text = text.unwrap_or_default();
        assert!(is_error, "{tool}({arguments}): {text}");
        assert!(text.starts_with(start), "{tool}({arguments}): {text}");
    }
    let (text, is_error) = call(
        &client,
        "skills_data_sources_used",
        args(json!({"requisition_id": "05958BR"})),
    )
    .await;
    assert!(!is_error && text.is_some_and(|t| t.contains("05958BR")));
    client.cancel().await.unwrap();
}

#[test]
fn a_root_without_bpo_data_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let output = common::vakra()
        .args(["mcp", "--capability", "3", "--domain", "bpo", "--root"])
        .arg(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("bpo") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

//! The BPO domain (capability 3, `bpo`) over real MCP sessions: `vakra mcp` over stdio and
//! `vakra serve` over streamable HTTP, on a data root holding the reference's BPO data
//! (the reference's `environment/bpo/data`, found by `vakra_test_kit::reference`). The 43 tool results recorded in
//! the reference's six task files must come back byte for byte, each file replayed in a fresh
//! session; the listing, per-session state and bad input are checked on the same sessions.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common;
use crate::common::Server;
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};
use vakra_test_kit::bpo_recorded::{RECORDED_RESULTS, Recorded, recorded_sessions};
use vakra_test_kit::mcp::McpClient as Client;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::reference;

/// The reference's BPO data folder ([`reference::file`]); `None` skips the test.
fn reference_dir() -> Option<PathBuf> {
    reference::file("environment/bpo/data")
}

/// A data root whose `bpo/` holds the reference's data files (copied) and the demo's
/// descriptions (the reference's prose is not in the repository; result texts do not depend on
/// it). With `rest`, also the demo's catalogs and databases, which `vakra serve` needs. `None`
/// without the reference's files: the test is skipped.
fn reference_root(rest: bool) -> Option<tempfile::TempDir> {
    let reference = reference_dir()?;
    let dir = tempfile::tempdir().unwrap();
    let bpo = dir.path().join("bpo");
    std::fs::create_dir(&bpo).unwrap();
    for file in ["candidate_data.parquet", "large_response_fixture.json"] {
        let from = reference.join(file);
        std::fs::copy(&from, bpo.join(file)).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
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
    Some(dir)
}

/// A `vakra mcp` session of the BPO domain on `root`.
async fn stdio_client(root: &Path) -> Client {
    let root = root.to_str().expect("a UTF-8 temporary path");
    common::stdio_client(&["--capability", "3", "--domain", "bpo", "--root", root]).await
}

/// An HTTP session of the BPO domain on `server`.
async fn http_client(server: &Server) -> Client {
    common::http_client(&server.base, "3", "bpo").await
}

/// What a client receives for one `tools/call`.
#[derive(Debug)]
struct Reply {
    /// The one text block; none when the result has no content.
    text: Option<String>,
    is_error: bool,
    structured_content: Option<Value>,
}

/// A tool call as a client sees it.
async fn call(client: &Client, tool: &str, arguments: Map<String, Value>) -> Reply {
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
    Reply {
        text,
        is_error: result.is_error.unwrap_or(false),
        structured_content: result.structured_content,
    }
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

/// The tools whose reference function is annotated with a union or non-object return type
/// (`environment/bpo/mcp/server.py`): the twelve core tools returning
/// `Union[<Model>, RequisitionNotFoundResponse]`, and `skills_skill_summary -> str`. FastMCP 2.x
/// lists an output schema marked `x-fastmcp-wrap-result` for them and sends
/// `{"result": <value>}` as structuredContent (spec §5.5).
const WRAPPED_RESULT: [&str; 13] = [
    "candidate_source_sla_per_source",
    "candidate_source_total_hires_by_source",
    "candidate_source_candidate_volume_by_source",
    "candidate_source_funnel_conversion_by_source",
    "candidate_source_metadata_and_timeframe",
    "candidate_source_definitions_and_methodology",
    "candidate_source_source_recommendation_summary",
    "skills_skill_analysis",
    "skills_skill_impact_fill_rate",
    "skills_skill_impact_sla",
    "skills_skill_relevance_justification",
    "skills_data_sources_used",
    "skills_skill_summary",
];

/// The one tool annotated with a plain pydantic model (`-> SuccessfulPostingResponse`): an
/// output schema without the wrap marker, and the object itself as structuredContent. The other
/// 18 tools have no annotation: no output schema, a dict result mirrored as structuredContent,
/// any other value (string, int, `None`) none. A raised error has none either.
const MODEL_RESULT: &str = "skills_successful_posting_criteria";

/// FastMCP 2.x's structuredContent for a recorded call, by the rules above.
fn expected_structured_content(recorded: &Recorded) -> Option<Value> {
    let (_, raised) = recorded.expected();
    let value = recorded.result.clone();
    if raised {
        None
    } else if WRAPPED_RESULT.contains(&recorded.tool.as_str()) {
        Some(json!({ "result": value }))
    } else if recorded.tool == MODEL_RESULT {
        Some(value)
    } else {
        value.is_object().then_some(value)
    }
}

/// How many replayed calls had each kind of structuredContent.
#[derive(Debug, Default, PartialEq)]
struct StructuredKinds {
    wrapped: usize,
    object: usize,
    none: usize,
}

/// Replays one task file's calls on `client`, checking text, `isError` and structuredContent
/// (it panics on the first difference); counts the kinds of structuredContent seen.
async fn replay(client: &Client, calls: &[Recorded], kinds: &mut StructuredKinds) -> usize {
    for call_ in calls {
        let context = call_.context();
        let reply = call(client, &call_.tool, call_.args.clone()).await;
        let (expected, expected_error) = call_.expected();
        assert_eq!(reply.is_error, expected_error, "{context}: isError");
        if reply.text != expected {
            let shorten = |t: &Option<String>| {
                t.as_deref()
                    .map(|t| t.chars().take(600).collect::<String>())
            };
            panic!(
                "{context}: texts differ\nexpected {:?}\n     got {:?}",
                shorten(&expected),
                shorten(&reply.text)
            );
        }
        let expected_structured = expected_structured_content(call_);
        assert!(
            reply.structured_content == expected_structured,
            "{context}: structuredContent differs\nexpected {}\n     got {}",
            shorten_json(expected_structured.as_ref()),
            shorten_json(reply.structured_content.as_ref())
        );
        match &expected_structured {
            None => kinds.none += 1,
            Some(v) if WRAPPED_RESULT.contains(&call_.tool.as_str()) => {
                assert!(v.get("result").is_some());
                kinds.wrapped += 1;
            }
            Some(_) => kinds.object += 1,
        }
    }
    calls.len()
}

fn shorten_json(value: Option<&Value>) -> String {
    value.map_or_else(
        || "none".to_owned(),
        |v| v.to_string().chars().take(600).collect(),
    )
}

/// The kinds of structuredContent among the 43 recorded calls (counted from the task files by
/// the rules above): 25 results of the 13 annotated tools wrapped; 14 dicts of unannotated tools
/// mirrored; none for the bare int of `candidate_source_source_sla_score`, the `None` of
/// `candidate_source_inactive_sources` and the two raised errors (500, 503). This pins that
/// every rule was exercised.
const RECORDED_KINDS: StructuredKinds = StructuredKinds {
    wrapped: 25,
    object: 14,
    none: 4,
};

#[tokio::test]
async fn recorded_results_over_stdio() {
    let Some(root) = reference_root(false) else {
        return;
    };
    let sessions = recorded_sessions(&reference_dir().expect("found by reference_root"));
    assert_eq!(sessions.len(), 6, "six task files");
    let mut matched = 0;
    let mut kinds = StructuredKinds::default();
    for (_, calls) in &sessions {
        // A fresh process per task file, as the reference's results were recorded.
        let client = stdio_client(root.path()).await;
        matched += replay(&client, calls, &mut kinds).await;
        client.cancel().await.unwrap();
    }
    assert_eq!(matched, RECORDED_RESULTS);
    assert_eq!(kinds, RECORDED_KINDS);
}

#[tokio::test]
async fn recorded_results_over_http() {
    let Some(root) = reference_root(true) else {
        return;
    };
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let mut matched = 0;
    let mut kinds = StructuredKinds::default();
    for (_, calls) in &recorded_sessions(&reference_dir().expect("found by reference_root")) {
        // Each HTTP session has its own state, as each reference process does.
        let client = http_client(&server).await;
        matched += replay(&client, calls, &mut kinds).await;
        client.cancel().await.unwrap();
    }
    assert_eq!(matched, RECORDED_RESULTS);
    assert_eq!(kinds, RECORDED_KINDS);
}

/// The simulated 404s of `candidate_source_candidate_pipeline_status` follow a random
/// generator seeded per process: the second call of a session fails, the first call of the
/// next session succeeds again. The same over stdio processes and HTTP sessions.
#[tokio::test]
async fn state_is_per_session() {
    let Some(root) = reference_root(true) else {
        return;
    };
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let tool = "candidate_source_candidate_pipeline_status";
    let arguments = args(json!({"requisition_id": "05958BR"}));
    for transport in ["stdio", "http"] {
        let mut first_texts = Vec::new();
        for _ in 0..2 {
            let client = match transport {
                "stdio" => stdio_client(root.path()).await,
                _ => http_client(&server).await,
            };
            let first = call(&client, tool, arguments.clone()).await;
            assert!(!first.is_error, "{transport}: first call {first:?}");
            let first = first.text.expect("a text");
            assert!(first.contains("\"pipeline\""), "{transport}: {first}");
            let second = call(&client, tool, arguments.clone()).await;
            assert!(
                second.is_error,
                "{transport}: the second call is a 404: {second:?}"
            );
            assert_eq!(second.structured_content, None, "{transport}");
            let second = second.text.expect("a text");
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

/// The text of the simulated 429 of `candidate_source_bulk_source_data` (spec §5.5: the
/// raised `json.dumps` payload behind FastMCP's prefix).
const BULK_429: &str = "Error calling tool 'candidate_source_bulk_source_data': \
    {\"status_code\": 429, \"error\": true, \"message\": \"Rate limit exceeded. Maximum 3 calls per \
    session.\", \"retry_after_seconds\": 60, \"limit\": 3, \"remaining\": 0}";

/// `candidate_source_bulk_source_data` counts its calls per server process (spec §5.6): calls
/// 1–3 of a session answer with their `call_number`, the 4th and later are the 429 error, and a
/// new session starts over. The same over stdio processes and HTTP sessions.
#[tokio::test]
async fn bulk_source_data_is_rate_limited_per_session() {
    let Some(root) = reference_root(true) else {
        return;
    };
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let tool = "candidate_source_bulk_source_data";
    let arguments = args(json!({"requisition_id": "05958BR"}));
    for transport in ["stdio", "http"] {
        let mut first_answers = Vec::new();
        for session in 0..2 {
            let client = match transport {
                "stdio" => stdio_client(root.path()).await,
                _ => http_client(&server).await,
            };
            let context = format!("{transport} session {session}");
            for number in 1..=3 {
                let reply = call(&client, tool, arguments.clone()).await;
                assert!(!reply.is_error, "{context} call {number}: {reply:?}");
                let value: Value = serde_json::from_str(reply.text.as_deref().unwrap())
                    .unwrap_or_else(|e| panic!("{context} call {number}: {e}: {reply:?}"));
                assert_eq!(value["call_number"], number, "{context}: {value}");
                assert_eq!(value["requisition_id"], "05958BR", "{context}");
                // Unannotated tool: the dict is mirrored as structuredContent.
                assert_eq!(reply.structured_content.as_ref(), Some(&value), "{context}");
                if number == 1 {
                    first_answers.push(value);
                }
            }
            for number in 4..=5 {
                let reply = call(&client, tool, arguments.clone()).await;
                assert!(reply.is_error, "{context} call {number}: {reply:?}");
                assert_eq!(
                    reply.text.as_deref(),
                    Some(BULK_429),
                    "{context} call {number}"
                );
                assert_eq!(reply.structured_content, None, "{context} call {number}");
            }
            // Other tools are not limited by it.
            let other = call(
                &client,
                "skills_data_sources_used",
                args(json!({"requisition_id": "05958BR"})),
            )
            .await;
            assert!(!other.is_error, "{context}: {other:?}");
            client.cancel().await.unwrap();
        }
        assert_eq!(first_answers[0], first_answers[1], "{transport}");
    }
}

#[tokio::test]
async fn listing_and_bad_input() {
    let Some(root) = reference_root(false) else {
        return;
    };
    let client = stdio_client(root.path()).await;
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
    // Output schemas: for the annotated tools only, marked as wrapping for all but the model.
    for tool in &tools {
        let name = tool.name.as_ref();
        let schema = tool.output_schema.as_deref();
        let annotated = WRAPPED_RESULT.contains(&name) || name == MODEL_RESULT;
        assert_eq!(
            schema.is_some(),
            annotated,
            "{name}: outputSchema {schema:?}"
        );
        if let Some(schema) = schema {
            assert_eq!(schema.get("type"), Some(&json!("object")), "{name}");
            let wrap = schema.get("x-fastmcp-wrap-result");
            if name == MODEL_RESULT {
                assert_eq!(wrap, None, "{name}");
            } else {
                assert_eq!(wrap, Some(&json!(true)), "{name}");
                assert_eq!(schema.get("required"), Some(&json!(["result"])), "{name}");
            }
        }
    }

    // The model-annotated tool sends its object itself as structuredContent (its constant
    // answer, spec §5.3).
    let criteria = json!({
        "criteria": {
            "time_to_fill_threshold_days": 90,
            "offer_acceptance_rate_min": 50,
            "sla_compliance_min": 80,
            "candidate_quality_rating_avg": 3.5
        },
        "justification": "Based on historical performance benchmarks and industry standards"
    });
    let reply = call(&client, MODEL_RESULT, Map::new()).await;
    assert!(!reply.is_error, "{reply:?}");
    assert_eq!(reply.text.as_deref(), Some(criteria.to_string().as_str()));
    assert_eq!(reply.structured_content, Some(criteria));

    // An unknown requisition: the reference's payload with four fuzzy suggestions, wrapped.
    let reply = call(
        &client,
        "skills_data_sources_used",
        args(json!({"requisition_id": "05960BR"})),
    )
    .await;
    assert!(!reply.is_error);
    let value: Value = serde_json::from_str(reply.text.as_deref().unwrap()).unwrap();
    assert_eq!(
        value["suggested_requisition_ids"],
        json!(["05956BR", "05962BR", "05963BR", "05952BR"]),
        "{value}"
    );
    assert_eq!(reply.structured_content, Some(json!({ "result": value })));

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
        let reply = call(&client, tool, args(arguments.clone())).await;
        assert_eq!(reply.structured_content, None, "{tool}({arguments})");
        let text = reply.text.unwrap_or_default();
        assert!(reply.is_error, "{tool}({arguments}): {text}");
        assert!(text.starts_with(start), "{tool}({arguments}): {text}");
    }
    let reply = call(
        &client,
        "skills_data_sources_used",
        args(json!({"requisition_id": "05958BR"})),
    )
    .await;
    assert!(!reply.is_error && reply.text.is_some_and(|t| t.contains("05958BR")));
    client.cancel().await.unwrap();
}

/// The tool descriptions of the importer's `bpo` fixture (`crates/vakra-import/tests/fixtures/bpo`,
/// prose written for vakra-rs) as FastMCP 2.x lists them: the cleaned docstrings of the decorated
/// functions, whole; a tool without docstring, and every tool the fixture does not declare, has
/// an empty description.
const FIXTURE_DESCRIPTIONS: [(&str, &str); 4] = [
    (
        "candidate_source_sla_per_source",
        "Tells, channel by channel, how often applicants were looked at before the deadline.\n\n\
         Args:\n    requisition_id: The opening whose look-alikes are counted, such as \"05958BR\".\n\n\
         Returns:\n    One share per channel, the slowest channel first.",
    ),
    (
        "candidate_source_candidate_volume_by_source",
        "Counts applicants per channel over the look-alike openings.\n\nArgs:\n    \
         requisition_id: The opening to start from.\n    sources: Channels to keep (spelled \
         exactly);\n        every channel when left out.\n\nReturns:\n    The counts, each with \
         its share of all applicants.",
    ),
    (
        "skills_successful_posting_criteria",
        "Thresholds a posting has to meet to count as a success.",
    ),
    (
        "skills_skill_impact_sla",
        "Compares review punctuality with and without one skill.\n\nArgs:\n    requisition_id: \
         The opening to start from.\n    skill_name: The skill to split applicants by.",
    ),
];

/// `vakra import` on a checkout made of the importer's `bpo` fixture (server and schema source
/// with this project's docstrings) and the reference's BPO data files writes a data root whose
/// BPO domain lists the fixture's descriptions, tool and model ones, and answers calls.
#[tokio::test]
async fn an_imported_root_serves_the_checkouts_descriptions() {
    use std::os::unix::fs::symlink;
    let Some(reference) = reference_dir() else {
        return;
    };
    let fixture = repo_root().join("crates/vakra-import/tests/fixtures/bpo/environment");
    let checkout = tempfile::tempdir().unwrap();
    let environment = checkout.path().join("environment");
    std::fs::create_dir_all(environment.join("bpo/data")).unwrap();
    symlink(fixture.join("m3"), environment.join("m3")).unwrap();
    for part in ["mcp", "api"] {
        symlink(
            fixture.join("bpo").join(part),
            environment.join("bpo").join(part),
        )
        .unwrap();
    }
    for file in ["candidate_data.parquet", "large_response_fixture.json"] {
        symlink(
            reference.join(file),
            environment.join("bpo/data").join(file),
        )
        .unwrap();
    }
    let root = tempfile::tempdir().unwrap();
    vakra_test_kit::process::output_ok(
        common::vakra()
            .args(["import", "--vakra-repo"])
            .arg(checkout.path())
            .arg("--out")
            .arg(root.path()),
    );

    let client = stdio_client(root.path()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 32);
    for tool in &tools {
        let expected = FIXTURE_DESCRIPTIONS
            .iter()
            .find(|(name, _)| *name == tool.name)
            .map_or("", |(_, text)| text);
        assert_eq!(
            tool.description.as_deref().unwrap_or_default(),
            expected,
            "{}",
            tool.name
        );
    }
    // Model descriptions: the documented classes carry theirs, the undocumented one none.
    let sla = tools
        .iter()
        .find(|t| t.name == "candidate_source_sla_per_source")
        .unwrap();
    let schema = Value::Object((*sla.output_schema.clone().expect("an output schema")).clone());
    let variants = &schema["properties"]["result"]["anyOf"];
    assert_eq!(
        variants[0]["description"],
        "Review punctuality of every channel.\n\n    Ordered from the least to the most punctual."
    );
    assert_eq!(
        variants[0]["properties"]["metrics"]["items"]["description"],
        "One channel and the share of its applicants reviewed in time."
    );
    assert!(variants[1].get("properties").is_some() && variants[1].get("description").is_none());

    // A call answers from the copied data (spec §5.3's vector for 05958BR).
    let reply = call(
        &client,
        "candidate_source_sla_per_source",
        args(json!({"requisition_id": "05958BR"})),
    )
    .await;
    assert!(!reply.is_error, "{reply:?}");
    let value: Value = serde_json::from_str(reply.text.as_deref().unwrap()).unwrap();
    assert_eq!(
        value["metrics"][0],
        json!({"source_name": "CyberSec Jobs", "sla_percentage": 67})
    );
    assert_eq!(value["metrics"].as_array().map(Vec::len), Some(7));
    assert_eq!(reply.structured_content, Some(json!({ "result": value })));
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

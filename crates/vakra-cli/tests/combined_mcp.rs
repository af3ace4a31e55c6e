//! The capability-4 combined server over real MCP sessions (`vakra mcp` over stdio, `vakra
//! serve` over streamable HTTP) on a copy of the demo data root: the domain's REST-BIRD tools
//! followed by the `query_<domain>` tools of the domain and its distractors, their calls and
//! result shape, bad input, a root without indexes and with a damaged one, and the tool
//! checksums of capability 4.

use std::path::Path;
use std::process::Stdio;

use crate::common::{
    Server, assert_three_checksums_match, demo_root, http_client, python_tool_checksum, vakra,
};
use rmcp::ServiceExt;
use rmcp::model::Tool;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};
use vakra_test_kit::mcp::call_tool;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::reference;
use vakra_test_kit::text::read_json;

type Client = RunningService<RoleClient, ()>;

const DOMAINS: [&str; 3] = ["library", "weather", "weather_alerts"];

async fn stdio_client(root: &Path, capability: &str, domain: &str) -> Client {
    stdio_client_with(root, capability, domain, &[], &[]).await
}

/// A stdio session with extra command-line arguments and environment variables.
async fn stdio_client_with(
    root: &Path,
    capability: &str,
    domain: &str,
    args: &[&std::ffi::OsStr],
    envs: &[(&str, &str)],
) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vakra"));
    command
        .args([
            "mcp",
            "--capability",
            capability,
            "--domain",
            domain,
            "--root",
        ])
        .arg(root)
        .args(args)
        .envs(envs.iter().copied())
        .stderr(Stdio::null());
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

/// Name, description and input schema of each listed tool.
fn listed(tools: &[Tool]) -> Vec<(String, String, Value)> {
    tools
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.description.as_deref().unwrap_or_default().to_owned(),
                Value::Object((*t.input_schema).clone()),
            )
        })
        .collect()
}

/// The retriever tools a session on `domain` must list: the negatives file's domains in its
/// order (the demo root has no Chroma store to take another order from), described by the
/// descriptions file, with the flattened `QueryRequest` schema.
fn expected_retriever_tools(root: &Path, domain: &str) -> Vec<(String, String, Value)> {
    let negatives = read_json(&root.join("retrievers/domain_negatives.json"));
    let descriptions = read_json(&root.join("retrievers/domain_description_dict.json"));
    negatives[domain]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let d = d.as_str().unwrap();
            (
                format!("query_{d}"),
                descriptions[d]["description"].as_str().unwrap().to_owned(),
                json!({
                    "type": "object",
                    "properties": {
                        "question": {"type": "string", "title": "Question"},
                        "n_results": {"type": "integer", "title": "N Results", "default": 10}
                    },
                    "required": ["question"]
                }),
            )
        })
        .collect()
}

/// A capability-4 listing is the capability-2 listing of the same domain (same derivation and
/// prefix filter) followed by the retriever tools.
async fn check_listing(
    client: &Client,
    rest_tools: &[(String, String, Value)],
    root: &Path,
    domain: &str,
) {
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("capability-4-combined-mcp")
    );
    let tools = client.list_all_tools().await.unwrap();
    let got = listed(&tools);
    assert!(!rest_tools.is_empty());
    let mut expected = rest_tools.to_vec();
    expected.extend(expected_retriever_tools(root, domain));
    assert_eq!(got, expected, "{domain}: tools/list");
    for tool in tools.iter().filter(|t| t.name.starts_with("query_")) {
        let keys: Vec<&String> = tool.input_schema.keys().collect();
        assert_eq!(keys, ["type", "properties", "required"], "{}", tool.name);
        let properties: Vec<&String> = tool.input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(properties, ["question", "n_results"], "{}", tool.name);
    }
}

async fn rest_tools(root: &Path, domain: &str) -> Vec<(String, String, Value)> {
    let client = stdio_client(root, "2", domain).await;
    let tools = listed(&client.list_all_tools().await.unwrap());
    client.cancel().await.unwrap();
    tools
}

/// Documents of a demo collection by id: (text, metadata).
fn collection(domain: &str) -> std::collections::HashMap<String, (String, Value)> {
    std::fs::read_to_string(repo_root().join(format!("documents/{domain}.jsonl")))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            (
                v["id"].as_str().unwrap().to_owned(),
                (
                    v["text"].as_str().unwrap().to_owned(),
                    v["metadata"].clone(),
                ),
            )
        })
        .collect()
}

/// Checks a successful `query_*` text against the reference's shape and the collection, and
/// returns the result ids in order.
fn check_results(text: &str, domain: &str) -> Vec<String> {
    assert!(
        text.starts_with("{\n  \"results\": ["),
        "json.dumps(indent=2): {text:.200}"
    );
    assert!(text.is_ascii(), "json.dumps escapes non-ASCII characters");
    let value: Value = serde_json::from_str(text).unwrap();
    assert_eq!(value.as_object().unwrap().len(), 1, "only `results`");
    let documents = collection(domain);
    let mut ids = Vec::new();
    let mut previous = f64::NEG_INFINITY;
    for result in value["results"].as_array().unwrap() {
        let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "text", "distance", "metadata"]);
        let id = result["id"].as_str().unwrap();
        let (doc_text, metadata) = documents
            .get(id)
            .unwrap_or_else(|| panic!("{id} is not a document of {domain}"));
        assert_eq!(result["text"].as_str(), Some(doc_text.as_str()), "{id}");
        assert_eq!(&result["metadata"], metadata, "{id}");
        let meta_keys: Vec<&String> = result["metadata"].as_object().unwrap().keys().collect();
        assert_eq!(meta_keys, ["doc_id", "from_clapnq"]);
        let distance = result["distance"].as_f64().expect("a number");
        assert!(
            distance.is_finite() && distance >= previous,
            "ascending distances"
        );
        previous = distance;
        ids.push(id.to_owned());
    }
    ids
}

fn http_500(domain: &str) -> String {
    http_500_at("http://localhost:8001", domain)
}

/// The wrapper's text for a 500 from the retriever at `base` (its `RETRIEVER_BASE_URL`).
fn http_500_at(base: &str, domain: &str) -> String {
    format!(
        "Error calling API: Server error '500 Internal Server Error' for url '{base}/{domain}/query'\n\
         For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/500"
    )
}

/// Calls and bad input on one session of the `library` domain.
async fn check_calls(client: &Client) {
    // Default n_results 10, explicit counts, more than the collection holds.
    let (text, is_error) = call_tool(
        client,
        "query_library",
        json!({"question": "branch history"}),
    )
    .await;
    assert!(!is_error, "{text}");
    assert_eq!(check_results(&text, "library").len(), 10);
    let (text, _) = call_tool(
        client,
        "query_library",
        json!({"question": "branch history", "n_results": 3}),
    )
    .await;
    assert_eq!(check_results(&text, "library").len(), 3);
    let (text, _) = call_tool(
        client,
        "query_library",
        json!({"question": "branch history", "n_results": 1000}),
    )
    .await;
    let mut ids = check_results(&text, "library");
    assert_eq!(ids.len(), 30, "every document once");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 30);
    // A distractor domain's tool searches that domain.
    let (text, _) = call_tool(
        client,
        "query_weather_alerts",
        json!({"question": "severity levels"}),
    )
    .await;
    assert_eq!(check_results(&text, "weather_alerts").len(), 10);

    // Empty and enormous questions still answer.
    let (text, is_error) = call_tool(client, "query_library", json!({"question": ""})).await;
    assert!(!is_error);
    assert_eq!(check_results(&text, "library").len(), 10);
    let huge = "glebe streetcar depot branch history ".repeat(30_000);
    let (text, is_error) = call_tool(
        client,
        "query_library",
        json!({"question": huge, "n_results": 3}),
    )
    .await;
    assert!(!is_error);
    assert_eq!(check_results(&text, "library")[0], "branch-glebe_7");

    // n_results Chroma refuses: the wrapper's text for the retriever's 500, not an MCP error.
    for n in [json!(0), json!(-1), json!(4_294_967_296u64)] {
        let (text, is_error) = call_tool(
            client,
            "query_library",
            json!({"question": "q", "n_results": n}),
        )
        .await;
        assert_eq!(
            (text.as_str(), is_error),
            (http_500("library").as_str(), false),
            "{n}"
        );
    }
    // Beyond 64 bits an agent's integer is a Python int, which pydantic accepts and Chroma
    // refuses: the retriever's 500.
    let (text, is_error) = call_tool(
        client,
        "query_library",
        json!({"question": "q", "n_results": 1e20}),
    )
    .await;
    assert_eq!(
        (text.as_str(), is_error),
        (http_500("library").as_str(), false)
    );

    // The SDK's argument validation.
    for (arguments, message) in [
        (json!({}), "'question' is a required property"),
        (json!({"question": 5}), "5 is not of type 'string'"),
        (
            json!({"question": "q", "n_results": "3"}),
            "'3' is not of type 'integer'",
        ),
        (
            json!({"question": "q", "n_results": 2.5}),
            "2.5 is not of type 'integer'",
        ),
    ] {
        let (text, is_error) = call_tool(client, "query_library", arguments.clone()).await;
        assert_eq!(
            (text.as_str(), is_error),
            (format!("Input validation error: {message}").as_str(), true),
            "{arguments}"
        );
    }
    // Unknown tools, including a retriever domain this session does not offer.
    for tool in ["query_nowhere", "query_", "no_such_tool"] {
        let (text, is_error) = call_tool(client, tool, json!({"question": "q"})).await;
        assert_eq!(
            (text.as_str(), is_error),
            (format!("Tool '{tool}' not found").as_str(), true)
        );
    }
    // REST tools answer in the same session.
    let (text, is_error) = call_tool(client, "get_most_borrowed_books", json!({"limit": 2})).await;
    assert!(!is_error && text.contains("\"books\": ["), "{text}");
}

#[tokio::test]
async fn stdio_sessions_list_and_search() {
    let root = demo_root(true);
    for domain in DOMAINS {
        let rest = rest_tools(root.path(), domain).await;
        let client = stdio_client(root.path(), "4", domain).await;
        check_listing(&client, &rest, root.path(), domain).await;
        client.cancel().await.unwrap();
    }
    let client = stdio_client(root.path(), "4", "library").await;
    check_calls(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_sessions_list_and_search() {
    let root = demo_root(true);
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    for domain in DOMAINS {
        let rest = rest_tools(root.path(), domain).await;
        let client = http_client(&server.base, "4", domain).await;
        check_listing(&client, &rest, root.path(), domain).await;
        client.cancel().await.unwrap();
    }
    let client = http_client(&server.base, "4", "library").await;
    check_calls(&client).await;
    client.cancel().await.unwrap();
    for bad in ["/mcp/4/nope", "/mcp/4/..%2F.."] {
        let (status, _, body) = vakra_test_kit::http::get(&format!("{}{bad}", server.base)).await;
        assert_eq!(status, 404, "{bad}: {body}");
    }
}

/// The demo questions: `{"domain", "question", "gold_id", …}` each.
fn demo_questions() -> Vec<Value> {
    std::fs::read_to_string(repo_root().join("demo/documents/questions.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Asks every demo question over stdio sessions started with `args`, checks that its gold chunk
/// is among the ten results of its domain's tool, and returns the first result's distance of
/// each (the recall figures of docs/benchmarks.md).
async fn ask_demo_questions(root: &Path, args: &[&std::ffi::OsStr]) -> Vec<f64> {
    let questions = demo_questions();
    assert!(questions.len() >= 20);
    let mut first_distances = Vec::new();
    for domain in DOMAINS {
        let client = stdio_client_with(root, "4", domain, args, &[]).await;
        for q in questions.iter().filter(|q| q["domain"] == domain) {
            let (text, is_error) = call_tool(
                &client,
                &format!("query_{domain}"),
                json!({"question": q["question"]}),
            )
            .await;
            assert!(!is_error, "{text}");
            let ids = check_results(&text, domain);
            assert_eq!(ids.len(), 10);
            let gold = q["gold_id"].as_str().unwrap();
            assert!(
                ids.iter().any(|id| id == gold),
                "{args:?}: {}: {gold} not in {ids:?}",
                q["question"]
            );
            let value: Value = serde_json::from_str(&text).unwrap();
            first_distances.push(value["results"][0]["distance"].as_f64().unwrap());
        }
        client.cancel().await.unwrap();
    }
    assert_eq!(first_distances.len(), questions.len());
    first_distances
}

/// The API hop of every demo question: its `api_call` runs in a capability-4 session of its
/// domain (the REST-BIRD tools of capability 2, listed first) and answers data, not an error
/// text, an MCP error or an empty result.
#[tokio::test]
async fn demo_questions_api_calls_answer_data() {
    let root = demo_root(true);
    let questions = demo_questions();
    let mut called = 0;
    for domain in DOMAINS {
        let client = stdio_client(root.path(), "4", domain).await;
        let listed = listed(&client.list_all_tools().await.unwrap());
        for q in questions.iter().filter(|q| q["domain"] == domain) {
            let call = &q["api_call"];
            assert_eq!(call["domain"], domain, "{}", q["id"]);
            let tool = call["tool"].as_str().expect("api_call.tool");
            assert!(
                listed.iter().any(|(name, _, _)| name == tool),
                "{}: {tool} is not listed",
                q["id"]
            );
            let (text, is_error) = call_tool(&client, tool, call["arguments"].clone()).await;
            assert!(!is_error, "{}: {tool}: {text}", q["id"]);
            assert!(!text.starts_with("Error"), "{}: {tool}: {text}", q["id"]);
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: {tool}: not JSON ({e}): {text}", q["id"]));
            let empty = match &value {
                Value::Null => true,
                Value::Array(items) => items.is_empty(),
                Value::Object(fields) => {
                    fields.is_empty()
                        || fields.contains_key("error")
                        || fields.contains_key("detail")
                        || fields.values().all(|v| v.is_null() || *v == json!([]))
                }
                _ => false,
            };
            assert!(!empty, "{}: {tool}: no data: {text}", q["id"]);
            called += 1;
        }
        client.cancel().await.unwrap();
    }
    assert_eq!(called, questions.len());
}

#[tokio::test]
async fn demo_questions_find_their_gold_documents() {
    let root = demo_root(true);
    // BM25: 1 / (1 + score), in (0, 1].
    let distances = ask_demo_questions(root.path(), &[]).await;
    assert!(
        distances.iter().all(|d| *d > 0.0 && *d <= 1.0),
        "{distances:?}"
    );
}

/// Before `vakra index` the tools are listed all the same; searches say what is missing, REST
/// tools work. A damaged index is a clear text too, and other domains are unaffected.
#[tokio::test]
async fn missing_and_damaged_indexes() {
    let root = demo_root(false);
    let rest = rest_tools(root.path(), "library").await;
    let client = stdio_client(root.path(), "4", "library").await;
    check_listing(&client, &rest, root.path(), "library").await;
    let (text, is_error) =
        call_tool(&client, "query_weather", json!({"question": "station"})).await;
    assert_eq!(
        (text.as_str(), is_error),
        (
            "Error: the document index of domain 'weather' has not been built (run `vakra index`)",
            false
        )
    );
    let (_, is_error) = call_tool(&client, "get_most_borrowed_books", json!({"limit": 2})).await;
    assert!(!is_error);
    client.cancel().await.unwrap();

    let root = demo_root(true);
    std::fs::write(root.path().join("indexes/library/meta.json"), "garbage").unwrap();
    let client = stdio_client(root.path(), "4", "library").await;
    let (text, is_error) = call_tool(&client, "query_library", json!({"question": "branch"})).await;
    assert_eq!(
        (text.as_str(), is_error),
        (
            "Error: the document index of domain 'library' is damaged or incompatible (rebuild it with `vakra index`)",
            false
        )
    );
    let (text, _) = call_tool(&client, "query_weather", json!({"question": "station"})).await;
    assert_eq!(check_results(&text, "weather").len(), 10);
    client.cancel().await.unwrap();
}

#[test]
fn unknown_domains_are_refused() {
    let root = demo_root(false);
    for domain in ["nope", "../library"] {
        let output = vakra()
            .args(["mcp", "--capability", "4", "--domain", domain, "--root"])
            .arg(root.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success()
                && stderr.contains("unknown domain")
                && !stderr.contains("panicked"),
            "{domain}: {stderr}"
        );
    }
}

/// The retriever HTTP API of `vakra serve` answers as the tools do.
#[tokio::test]
async fn retriever_http_api() {
    let root = demo_root(true);
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let (status, _, body) =
        vakra_test_kit::http::get(&format!("{}/retriever/health", server.base)).await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    let (status, _, body) =
        vakra_test_kit::http::get(&format!("{}/retriever/domains", server.base)).await;
    assert_eq!(status, 200);
    let domains: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(domains["count"], 3, "{body}");
    let client = reqwest::Client::new();
    let response = client
        .post(format!("{}/retriever/library/query", server.base))
        .json(&json!({"question": "branch history", "n_results": 4}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.unwrap();
    let text = vakra_pytext::dumps(&body, &vakra_pytext::DumpOptions::indent2()).unwrap();
    assert_eq!(check_results(&text, "library").len(), 4);
    let response = client
        .post(format!("{}/retriever/library/query", server.base))
        .json(&json!({"n_results": 4}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 422);
    let response = client
        .post(format!("{}/retriever/nowhere/query", server.base))
        .json(&json!({"question": "q"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
}

/// `vakra tools checksums` on capability 4 agrees with the reference's checksum algorithm
/// (restated in Python) applied to what an MCP session lists.
#[tokio::test]
async fn checksums_of_capability_4_sessions() {
    let root = demo_root(false);
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Map::new();
    for domain in DOMAINS {
        let client = stdio_client(root.path(), "4", domain).await;
        let tools: Vec<Value> = client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| json!({"name": t.name, "inputSchema": Value::Object((*t.input_schema).clone())}))
            .collect();
        client.cancel().await.unwrap();
        let listing = dir.path().join(format!("{domain}.json"));
        std::fs::write(&listing, serde_json::to_string(&tools).unwrap()).unwrap();
        let digest = python_tool_checksum(&listing);
        expected.insert(domain.to_owned(), Value::String(digest));
    }
    assert_three_checksums_match(&json!({"4": expected}), root.path());
}

/// With a reference checkout ([`reference::checkout`], as `make conformance` uses): a data root
/// imported from it lists, for capability 4, the tools the reference's `tool_checksums.json` records,
/// for all 41 domains but the two entries recorded before the reference shortened six operation
/// ids (`docs/compatibility.md`, "Tool checksums"). Skipped without a checkout, failed
/// instead with `VAKRA_REQUIRE_REF_CHECKOUT=1` (`scripts/conformance.sh` runs it so).
#[test]
fn reference_checksums_of_capability_4() {
    let Some(checkout) = reference::checkout("capability-4 tool checksums") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let output = vakra()
        .args(["import", "--vakra-repo"])
        .arg(&checkout)
        .arg("--out")
        .arg(root.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let Some(checksums) = reference::file("tool_checksums.json") else {
        return;
    };
    let output = vakra()
        .args(["tools", "checksums"])
        .arg(&checksums)
        .arg("--root")
        .arg(root.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut matched = 0;
    let mut mismatched = Vec::new();
    for line in stdout.lines() {
        let mut words = line.split_whitespace();
        let (Some(verdict), Some("capability"), Some("4"), Some(domain)) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            continue;
        };
        match verdict {
            "match" => matched += 1,
            "MISMATCH" => mismatched.push(domain.to_owned()),
            other => panic!("{other}: {line}"),
        }
    }
    assert_eq!(matched, 39, "{stdout}");
    assert_eq!(mismatched, ["food_inspection", "world"], "{stdout}");
}

/// `RETRIEVER_BASE_URL` is the retriever URL quoted in `Error calling API` texts, as in the
/// reference's combined server; `M3_REST_BASE_URL` stays the REST tools' own.
#[tokio::test]
async fn the_retriever_base_url_comes_from_the_environment() {
    let root = demo_root(true);
    let client = stdio_client_with(
        root.path(),
        "4",
        "library",
        &[],
        &[("RETRIEVER_BASE_URL", "http://retriever.test:9001/api")],
    )
    .await;
    let (text, is_error) = call_tool(
        &client,
        "query_weather",
        json!({"question": "station", "n_results": 0}),
    )
    .await;
    assert_eq!(
        (text.as_str(), is_error),
        (
            http_500_at("http://retriever.test:9001/api", "weather").as_str(),
            false
        )
    );
    client.cancel().await.unwrap();
}

/// Runs `vakra` with `args` on no input; returns whether it succeeded and its stderr.
fn run_vakra(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let output = vakra().args(args).stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output.status.success(), stderr)
}

/// `vakra ARGS --root ROOT`.
fn on_root<'a>(args: &[&'static str], root: &'a std::ffi::OsStr) -> Vec<&'a std::ffi::OsStr> {
    let mut command: Vec<&'a std::ffi::OsStr> =
        args.iter().copied().map(std::ffi::OsStr::new).collect();
    command.extend([std::ffi::OsStr::new("--root"), root]);
    command
}

/// A capability-4 `vakra mcp` session on `library` in `mode`, without a model.
fn mcp_in_mode<'a>(mode: &'static str, root: &'a std::ffi::OsStr) -> Vec<&'a std::ffi::OsStr> {
    on_root(
        &[
            "mcp",
            "--capability",
            "4",
            "--domain",
            "library",
            "--search-mode",
            mode,
        ],
        root,
    )
}

/// `vakra index`, `vakra mcp` (hybrid) and `vakra serve` (dense) on `root` with an embedding
/// model folder: the commands that load a model.
fn model_commands<'a>(
    root: &'a std::ffi::OsStr,
    model: &'a std::ffi::OsStr,
) -> Vec<Vec<&'a std::ffi::OsStr>> {
    let serve = ["serve", "--listen", "127.0.0.1:0", "--search-mode", "dense"];
    let mut commands = vec![
        on_root(&["index"], root),
        mcp_in_mode("hybrid", root),
        on_root(&serve, root),
    ];
    for command in &mut commands {
        command.extend([std::ffi::OsStr::new("--embedding-model"), model]);
    }
    commands
}

/// `vakra index --embedding-model` on a copy of the demo root, then
/// hybrid and dense sessions over stdio that find every demo question's gold chunk in their
/// top ten, with the reference's result shape; and clear start-up errors for a missing or
/// corrupt model folder.
mod dense {
    use std::ffi::OsStr;
    use std::path::Path;

    use serde_json::json;

    use super::{
        ask_demo_questions, call_tool, check_results, demo_root, mcp_in_mode, model_commands,
        repo_root, run_vakra, stdio_client_with,
    };
    use crate::common::{index, vakra};
    use std::process::Stdio;
    use vakra_test_kit::model::minilm_dir;

    /// The session arguments of `mode` with `model`.
    fn mode_args<'a>(mode: &'a str, model: &'a Path) -> [&'a OsStr; 4] {
        [
            OsStr::new("--search-mode"),
            OsStr::new(mode),
            OsStr::new("--embedding-model"),
            model.as_os_str(),
        ]
    }

    /// An index whose vectors file was cut short is damaged: dense and hybrid searches of it
    /// answer the documented text (`docs/compatibility.md`, "Missing or damaged index"), and
    /// the other domains keep answering.
    #[tokio::test]
    async fn a_truncated_vectors_file_is_a_damaged_index() {
        let Some(model) = minilm_dir() else { return };
        let root = demo_root_with_vectors(&model);
        let vectors = root.path().join("indexes/library/vectors.f32");
        let length = std::fs::metadata(&vectors).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&vectors)
            .unwrap()
            .set_len(length - 6)
            .unwrap();
        for mode in ["dense", "hybrid"] {
            let args = mode_args(mode, &model);
            let client = stdio_client_with(root.path(), "4", "library", &args, &[]).await;
            let (text, is_error) =
                call_tool(&client, "query_library", json!({"question": "branch"})).await;
            assert_eq!(
                (text.as_str(), is_error),
                (
                    "Error: the document index of domain 'library' is damaged or incompatible (rebuild it with `vakra index`)",
                    false
                ),
                "{mode}"
            );
            let (text, _) =
                call_tool(&client, "query_weather", json!({"question": "station"})).await;
            assert_eq!(check_results(&text, "weather").len(), 10, "{mode}");
            client.cancel().await.unwrap();
        }
    }

    /// An index embedded with one model is refused by sessions with another (here the tiny
    /// ModernBERT fixture), with the documented text naming both models.
    #[tokio::test]
    async fn an_index_of_another_model_is_refused() {
        let Some(model) = minilm_dir() else { return };
        let root = demo_root_with_vectors(&model);
        let other = repo_root().join("crates/vakra-embed/tests/fixtures/modernbert-tiny/cls");
        let name = |dir: &Path| dir.file_name().unwrap().to_string_lossy().into_owned();
        let expected = format!(
            "Error: the index of domain \"weather\" was embedded with model \"{}\", not with \"{}\"; rebuild it",
            name(&model),
            name(&other)
        );
        for mode in ["dense", "hybrid"] {
            let args = mode_args(mode, &other);
            let client = stdio_client_with(root.path(), "4", "weather", &args, &[]).await;
            let (text, is_error) =
                call_tool(&client, "query_weather", json!({"question": "station"})).await;
            assert_eq!(
                (text.as_str(), is_error),
                (expected.as_str(), false),
                "{mode}"
            );
            client.cancel().await.unwrap();
        }
    }

    /// Every demo question over sessions in `mode` with `model`.
    async fn ask_all(root: &Path, model: &Path, mode: &str) -> Vec<f64> {
        let args = [
            OsStr::new("--search-mode"),
            OsStr::new(mode),
            OsStr::new("--embedding-model"),
            model.as_os_str(),
        ];
        ask_demo_questions(root, &args).await
    }

    #[tokio::test]
    async fn hybrid_and_dense_sessions_find_the_gold_documents() {
        let Some(model) = minilm_dir() else { return };
        let root = demo_root(false);
        let summary = index(
            root.path(),
            &[OsStr::new("--embedding-model"), model.as_os_str()],
        );
        assert!(summary.contains("with document vectors"), "{summary}");
        // Hybrid: 1 - rrf / rrf_max, in [0, 1).
        let hybrid = ask_all(root.path(), &model, "hybrid").await;
        assert!(hybrid.iter().all(|d| (0.0..1.0).contains(d)), "{hybrid:?}");
        // Dense: squared L2 distance of unit vectors, in [0, 4].
        let dense = ask_all(root.path(), &model, "dense").await;
        assert!(dense.iter().all(|d| (0.0..=4.0).contains(d)), "{dense:?}");
    }

    /// Without `--search-mode`, sessions search as the reference does wherever they can: dense
    /// over an index with vectors when the model can be had (here through
    /// `VAKRA_EMBEDDING_MODEL`), the same answers as `--search-mode dense`; when it cannot
    /// (offline, nothing cached), BM25 with a warning saying why, the same answers as
    /// `--search-mode bm25`.
    #[tokio::test]
    async fn the_default_search_is_dense_when_the_model_can_be_had() {
        let Some(model) = minilm_dir() else { return };
        let root = demo_root_with_vectors(&model);
        let cache = tempfile::tempdir().unwrap();
        let cache = cache.path().to_str().unwrap();
        let model_dir = model.to_str().unwrap();
        let with_model = [
            ("VAKRA_EMBEDDING_MODEL", model_dir),
            ("HF_HUB_OFFLINE", "1"),
        ];
        let without = [
            ("VAKRA_EMBEDDING_MODEL", ""),
            ("HF_HUB_OFFLINE", "1"),
            ("HF_HOME", cache),
            ("HF_HUB_CACHE", ""),
        ];
        let default_dense = ask_weather(root.path(), &[], &with_model).await;
        let dense = ask_weather(root.path(), &["--search-mode", "dense"], &with_model).await;
        assert_eq!(default_dense, dense);
        let default_bm25 = ask_weather(root.path(), &[], &without).await;
        let bm25 = ask_weather(root.path(), &["--search-mode", "bm25"], &without).await;
        assert_eq!(default_bm25, bm25);
        assert_ne!(
            dense, bm25,
            "the two rankings must differ for this question"
        );
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_vakra"))
            .args([
                "tools",
                "list",
                "--capability",
                "4",
                "--domain",
                "weather",
                "--root",
            ])
            .arg(root.path())
            .envs(without.iter().copied())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("capability 4 searches by BM25, not as the reference: the embedding model could not be had")
                && stderr.contains("HF_HUB_OFFLINE is set"),
            "{stderr}"
        );
    }

    /// A copy of the demo root indexed with `model`'s embeddings of its chunks.
    fn demo_root_with_vectors(model: &Path) -> tempfile::TempDir {
        let root = demo_root(false);
        index(
            root.path(),
            &[OsStr::new("--embedding-model"), model.as_os_str()],
        );
        root
    }

    /// `query_weather`'s answer to one question in a session with `args` and `envs`.
    async fn ask_weather(root: &Path, args: &[&str], envs: &[(&str, &str)]) -> String {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let client = stdio_client_with(root, "4", "weather", &args, envs).await;
        let question = json!({"question": "Which station is the highest?"});
        let (text, _) = call_tool(&client, "query_weather", question).await;
        client.cancel().await.unwrap();
        text
    }

    #[test]
    fn missing_and_corrupt_models_are_refused_at_start() {
        let Some(model) = minilm_dir() else { return };
        let root = demo_root(false);
        let root_arg = root.path().as_os_str();
        let scratch = tempfile::tempdir().unwrap();
        // A copy of the model whose weights file is not safetensors.
        let corrupt = scratch.path().join("corrupt");
        std::fs::create_dir(&corrupt).unwrap();
        for entry in std::fs::read_dir(&model).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, corrupt.join(path.file_name().unwrap())).unwrap();
            }
        }
        let pooling = model.join("1_Pooling/config.json");
        std::fs::create_dir(corrupt.join("1_Pooling")).unwrap();
        std::fs::copy(&pooling, corrupt.join("1_Pooling/config.json")).unwrap();
        std::fs::write(corrupt.join("model.safetensors"), b"not safetensors").unwrap();
        let missing = scratch.path().join("missing");
        for (folder, expected) in [
            (&missing, "not a sentence-transformers model folder"),
            (&corrupt, "model.safetensors"),
        ] {
            for args in model_commands(root_arg, folder.as_os_str()) {
                let (ok, stderr) = run_vakra(&args);
                assert!(
                    !ok && stderr.contains(&*folder.to_string_lossy()) && stderr.contains(expected),
                    "{args:?}: {stderr}"
                );
            }
        }
        // A dense mode asked for needs a model: none found (offline, an empty cache), the error
        // names every way to give one.
        let output = vakra()
            .args(mcp_in_mode("dense", root_arg))
            .env("HF_HUB_OFFLINE", "1")
            .env("HF_HOME", scratch.path())
            .env_remove("HF_HUB_CACHE")
            .env_remove("VAKRA_EMBEDDING_MODEL")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success()
                && [
                    "--embedding-model",
                    "VAKRA_EMBEDDING_MODEL",
                    "HF_HUB_OFFLINE is set"
                ]
                .iter()
                .all(|part| stderr.contains(part)),
            "{stderr}"
        );
    }
}

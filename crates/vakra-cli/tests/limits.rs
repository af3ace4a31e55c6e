//! The server's limits, each with its clear error: SQL time, result size, number of MCP
//! sessions and their idle expiry, request body and header sizes.

use std::time::{Duration, Instant};

use crate::common::{Server, demo_root, http_session, slow_root, try_call};
use serde_json::json;
use vakra_test_kit::http::{raw_http, raw_post, session_id};

fn serve(root: &tempfile::TempDir, extra: &[&str]) -> Server {
    let mut args = vec!["--root", root.path().to_str().unwrap()];
    args.extend_from_slice(extra);
    Server::start(&args)
}

const HTTP_500: &str = "Error calling API: Server error '500 Internal Server Error' for url 'http://localhost:8000/v1/slow/count_to?n=1000000000000'";

#[tokio::test]
async fn slow_statements_are_interrupted() {
    let root = slow_root();
    let server = serve(&root, &["--sql-time-limit", "0.5"]);
    let (status, _, body) =
        vakra_test_kit::http::get(&format!("{}/v1/slow/count_to?n=1000", server.base)).await;
    assert_eq!((status, body.as_str()), (200, r#"{"count":1000}"#));

    // A count to 10^12 would run for hours; it is stopped at the limit with the reference's 500.
    let started = Instant::now();
    let url = format!("{}/v1/slow/count_to?n=1000000000000", server.base);
    let (status, _, body) = vakra_test_kit::http::get(&url).await;
    assert_eq!((status, body.as_str()), (500, "Internal Server Error"));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );

    // The same through an MCP tool: the wrapper's text for a 500 (a normal result, as there).
    let client = http_session(&server, "2", "slow").await;
    let (text, _) = try_call(&client, "get_count_to", json!({"n": 1_000_000_000_000u64}))
        .await
        .unwrap();
    assert!(text.starts_with(HTTP_500), "{text}");
    // The pooled connection works again afterwards.
    let (text, _) = try_call(&client, "get_count_to", json!({"n": 7}))
        .await
        .unwrap();
    assert!(text.contains("\"count\": 7"), "{text}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn long_results_are_refused_with_a_clear_error() {
    let root = slow_root();
    let server = serve(&root, &["--max-result-bytes", "2000"]);
    let client = http_session(&server, "2", "slow").await;
    let (text, is_error) = try_call(&client, "get_numbers", json!({"n": 10}))
        .await
        .unwrap();
    assert!(!is_error && text.contains("\"numbers\": ["), "{text}");
    let (text, is_error) = try_call(&client, "get_numbers", json!({"n": 5000}))
        .await
        .unwrap();
    assert!(is_error, "{text}");
    assert!(
        text.starts_with("Error: the result of this call is ")
            && text.contains("more than this server's limit of 2000 bytes (--max-result-bytes)"),
        "{text}"
    );
    client.cancel().await.unwrap();

    // The default leaves results of this size alone.
    let server = serve(&root, &[]);
    let client = http_session(&server, "2", "slow").await;
    let (text, is_error) = try_call(&client, "get_numbers", json!({"n": 100_000}))
        .await
        .unwrap();
    assert!(!is_error && text.len() > 500_000, "{}", text.len());
    client.cancel().await.unwrap();
}

fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string()
}

/// A raw `initialize` POST: the status and the response text.
fn raw_initialize(server: &Server, path: &str) -> (u16, String) {
    raw_post(&server.base, path, &initialize_body())
}

#[tokio::test]
async fn sessions_are_capped_and_idle_ones_expire() {
    let root = demo_root(false);
    let server = serve(
        &root,
        &[
            "--max-sessions",
            "2",
            "--max-client-sessions",
            "2",
            "--session-idle-secs",
            "1",
            "--call-time-limit",
            "0.5",
        ],
    );
    let first = http_session(&server, "2", "library").await;
    let second = http_session(&server, "1", "library").await;
    let (peek, _) = try_call(&second, "get_data", json!({})).await.unwrap();
    assert!(peek.starts_with("{\"handle\": "), "{peek}");

    // A third session, at any endpoint, is refused while two are open.
    let (status, text) = raw_initialize(&server, "/mcp/4/library");
    assert_eq!(status, 503, "{text}");
    assert!(
        text.contains(
            "too many MCP sessions: this server keeps at most 2 at once (--max-sessions)"
        ),
        "{text}"
    );
    // Ending a session frees its place.
    first.cancel().await.unwrap();
    let mut third = None;
    for _ in 0..50 {
        let (status, text) = raw_initialize(&server, "/mcp/1/library");
        if status == 200 {
            third = Some(session_id(&text));
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let third = third.expect("a closed session's place is given back");
    // The raw session works while it is used …
    let (status, text) = raw_session_post(&server, "/mcp/1/library", &third, INITIALIZED);
    assert_eq!(status, 202, "{text}");
    let (status, text) = raw_session_post(&server, "/mcp/1/library", &third, &get_data(2));
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("retrieved_book_1"), "{text}");

    // … and after a second without calls it has expired with its handles: its id is unknown,
    // and the places of both sessions are free again.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, text) = raw_session_post(&server, "/mcp/1/library", &third, &get_data(3));
    assert_eq!(status, 404, "{text}");
    let a = http_session(&server, "1", "library").await;
    let b = http_session(&server, "1", "library").await;
    let (peek, _) = try_call(&b, "get_data", json!({})).await.unwrap();
    assert!(peek.starts_with("{\"handle\": "), "{peek}");
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn get_data(id: u32) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "get_data", "arguments": {}}})
    .to_string()
}

/// A raw JSON-RPC POST within the session `id`.
fn raw_session_post(server: &Server, path: &str, id: &str, body: &str) -> (u16, String) {
    raw_http(
        &server.base,
        format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
}

#[test]
fn oversized_bodies_and_headers_are_refused() {
    let root = demo_root(true);
    let server = serve(&root, &["--max-body-bytes", "10000"]);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"pad":"{}"}}}}"#,
        "x".repeat(20_000)
    );
    for path in ["/mcp/2/library", "/retriever/library/query"] {
        let (status, text) = raw_post(&server.base, path, &big);
        assert_eq!(status, 413, "{path}: {text}");
    }
    // A request head beyond 64 KiB is refused with 431; one of 32 KiB is served.
    let padded = |pad: usize| {
        raw_http(
            &server.base,
            format!(
                "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: {}\r\nConnection: close\r\n\r\n",
                "y".repeat(pad)
            )
            .as_bytes(),
        )
    };
    let (status, text) = padded(32 << 10);
    assert_eq!(status, 200, "{}", &text[..text.len().min(300)]);
    let (status, text) = padded(80 << 10);
    assert!(
        text.starts_with("HTTP/1.1 431 Request Header Fields Too Large"),
        "{}",
        &text[..text.len().min(300)]
    );
    assert_eq!(status, 431);
    let (status, _) = padded(1 << 20);
    assert_eq!(status, 431);
    // So are too many headers.
    let many: String = (0..200).map(|i| format!("X-H{i}: v\r\n")).collect();
    let (status, _) = raw_http(
        &server.base,
        format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n{many}Connection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(status, 431);
    // The server goes on serving.
    let (status, text) = vakra_test_kit::http::raw_get(&server.base, "/healthz");
    assert_eq!(status, 200, "{text}");
}

/// A table name for the hidden `initialize_active_data` that would close the reference's
/// backticks and join an endless recursive CTE.
const ENDLESS_TABLE: &str = "books` JOIN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c) AS `q";

#[tokio::test]
async fn direct_table_loads_are_bounded() {
    let root = demo_root(false);
    let server = serve(&root, &["--sql-time-limit", "0.5", "--sql-threads", "2"]);
    let db = root.path().join("databases/library/library.sqlite");
    let initialize = |aliases: serde_json::Value, conditions: serde_json::Value| {
        json!({"alias_to_table_dict": aliases, "condition_sequence": conditions,
            "database_path": db.display().to_string()})
    };
    let endless = initialize(
        json!({"": {"modified_table_name": "b", "original_table_name": ENDLESS_TABLE}}),
        json!([]),
    );
    // A join that multiplies rows (every book with every book of its genre, three times).
    let aliases: serde_json::Map<String, serde_json::Value> = ["a", "b", "c"]
        .iter()
        .map(|a| {
            (
                a.to_string(),
                json!({"modified_table_name": a, "original_table_name": "books"}),
            )
        })
        .collect();
    let exploding = initialize(
        serde_json::Value::Object(aliases),
        json!([
            ["a.genre", "b.genre", "inner"],
            ["b.genre", "c.genre", "inner"]
        ]),
    );

    // Several at once, more than there are SQL threads: each is answered within the limit.
    let started = Instant::now();
    let mut calls = Vec::new();
    for i in 0..4 {
        let client = http_session(&server, "1", "library").await;
        let args = if i % 2 == 0 {
            endless.clone()
        } else {
            exploding.clone()
        };
        calls.push(tokio::spawn(async move {
            let answer = try_call(&client, "initialize_active_data", args).await;
            client.cancel().await.unwrap();
            answer
        }));
    }
    for (i, call) in calls.into_iter().enumerate() {
        let (text, _) = call.await.unwrap().unwrap();
        if i % 2 == 0 {
            assert!(
                text.starts_with(&format!(
                    "Input validation error: Did not find table '{ENDLESS_TABLE}' in connection. Only found <StringArray>\n['"
                )),
                "{text}"
            );
        } else {
            assert!(
                text == "Input validation error: statement interrupted after 500ms (time limit)"
                    || text.starts_with("Input validation error: the result holds more than "),
                "{text}"
            );
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // The server goes on serving, the same session type included.
    let client = http_session(&server, "1", "library").await;
    let books = initialize(
        json!({"": {"modified_table_name": "books", "original_table_name": "books"}}),
        json!([]),
    );
    let (text, _) = try_call(&client, "initialize_active_data", books)
        .await
        .unwrap();
    assert!(text.contains("\"num_records\": 1168"), "{text}");
    let (status, _, _) = vakra_test_kit::http::get(&format!("{}/healthz", server.base)).await;
    assert_eq!(status, 200);
    client.cancel().await.unwrap();
}

/// A BPO call over HTTP: its text's length and its structured content's JSON length.
async fn bpo_sizes(server: &Server) -> (String, usize, usize) {
    let client = http_session(server, "3", "bpo").await;
    let mut arguments = serde_json::Map::new();
    arguments.insert("requisition_id".into(), json!("05960BR"));
    let result = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("skills_data_sources_used")
                .with_arguments(arguments),
        )
        .await
        .unwrap();
    client.cancel().await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    let structured = result
        .structured_content
        .as_ref()
        .map_or(0, |v| serde_json::to_string(v).unwrap().len());
    let length = text.len();
    (text, length, structured)
}

#[tokio::test]
async fn structured_content_counts_toward_the_result_limit() {
    let root = demo_root(false);
    let (_, text, structured) = bpo_sizes(&serve(&root, &[])).await;
    assert!(structured > 0, "BPO answers carry structured content");
    // A limit the text alone fits, but not with its structured content.
    let limit = (text + structured - 1).to_string();
    let (answer, _, structured_after) =
        bpo_sizes(&serve(&root, &["--max-result-bytes", &limit])).await;
    assert_eq!(
        answer,
        format!(
            "Error: the result of this call is {} bytes, more than this server's limit of {limit} bytes (--max-result-bytes); ask for less data",
            text + structured
        )
    );
    assert_eq!(
        structured_after, 0,
        "the error carries no structured content"
    );
}

//! Capability 1 on the demo data root: answers checked against SQLite itself, bad input, the
//! session memory cap, the quirk switch, and the official Python client over stdio and HTTP.

use std::process::Stdio;

use crate::common::official_client_check;
use serde_json::{Value, json};
use vakra_test_kit::mcp::{McpClient as Client, call_tool, stdio_client};
use vakra_test_kit::paths::repo_root;

async fn client(domain: &str, extra: &[&str]) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vakra"));
    command
        .args(["mcp", "--capability", "1", "--domain", domain, "--root"])
        .arg(repo_root())
        .args(extra)
        .env_remove("MCP_SERVER_TYPE")
        .stderr(Stdio::null());
    stdio_client(command).await
}

fn handle(peek: &str) -> String {
    vakra_chaining::handle_of_peek(peek).unwrap_or_else(|| panic!("not a peek: {peek}"))
}

fn library_db() -> rusqlite::Connection {
    let path = repo_root().join("databases/library/library.sqlite");
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap()
}

#[tokio::test]
async fn demo_answers_match_sqlite() {
    let c = client("library", &[]).await;
    let names: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "aggregate_data",
            "Calculator",
            "concatenate_data",
            "filter_data",
            "retrieve_data",
            "select_unique_values",
            "sort_data",
            "transform_data",
            "get_data"
        ]
    );
    let (peek, _) = call_tool(&c, "get_data", json!({})).await;
    let all = handle(&peek);
    assert_eq!(all, "retrieved_book_1");
    let (peek, _) = call_tool(
        &c,
        "filter_data",
        json!({"data_label": all, "key_name": "genre", "value": "Fantasy", "condition": "equal_to"}),
    )
    .await;
    let fantasy = handle(&peek);
    assert_eq!(fantasy, "filtered_book_1");
    let db = library_db();
    let (count, avg): (i64, f64) = db
        .query_row(
            "SELECT COUNT(*), AVG(price) FROM books WHERE genre = 'Fantasy'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(count > 0);
    let (text, _) = call_tool(
        &c,
        "aggregate_data",
        json!({"data_label": fantasy, "key_name": "book_id", "aggregation_operation": "count"}),
    )
    .await;
    assert_eq!(text, count.to_string());
    let (text, _) = call_tool(
        &c,
        "aggregate_data",
        json!({"data_label": fantasy, "key_name": "price", "aggregation_operation": "mean"}),
    )
    .await;
    assert!(
        (text.parse::<f64>().unwrap() - avg).abs() < 1e-9,
        "{text} vs {avg}"
    );
    // the joined universe: columns prefixed by table, counters reset by the switch
    let (peek, _) = call_tool(
        &c,
        "get_data",
        json!({"tool_universe_id": "11b7a0c0ffee-000000000002"}),
    )
    .await;
    assert_eq!(handle(&peek), "retrieved_books_1");
    assert!(peek.contains("\"authors_country\""), "{peek}");
    let joined: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM books JOIN authors USING (author_id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        peek.contains(&format!("\"num_records\": {joined},")),
        "{peek}"
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_input_gets_the_reference_texts() {
    let c = client("library", &[]).await;
    let (peek, _) = call_tool(&c, "get_data", json!({})).await;
    let all = handle(&peek);
    let (text, is_error) = call_tool(&c, "get_data", json!({"tool_universe_id": "nope"})).await;
    assert!(!is_error && text.starts_with("{\"error\": \"Error: Unknown universe ID 'nope'. Available IDs (first 10): ['11b7a0c0ffee-000000000001'"), "{text}");
    let (text, is_error) = call_tool(
        &c,
        "filter_data",
        json!({"data_label": "gone_1", "key_name": "genre", "value": "x", "condition": "equal_to"}),
    )
    .await;
    assert!(!is_error);
    assert_eq!(
        text,
        "Input validation error: 1 validation error for FilterDataInput\ndata\n  Input should be a valid dictionary [type=dict_type, input_value='gone_1', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.14/v/dict_type"
    );
    let (text, is_error) = call_tool(
        &c,
        "filter_data",
        json!({"data_label": all, "key_name": "genre", "value": true, "condition": "equal_to"}),
    )
    .await;
    assert!(is_error);
    assert_eq!(
        text,
        "Input validation error: True is not valid under any of the given schemas"
    );
    let (text, _) = call_tool(
        &c,
        "filter_data",
        json!({"data_label": all, "key_name": "Genre", "value": "x", "condition": "equal_to"}),
    )
    .await;
    assert!(text.starts_with("{\"error\": \"Invalid key_name ['Genre']. Valid keys in current universe ('11b7a0c0ffee-000000000001'): ['book_id', 'title',"), "{text}");
    let (text, _) = call_tool(
        &c,
        "filter_data",
        json!({"data_label": all, "key_name": "title", "value": "(", "condition": "contains"}),
    )
    .await;
    assert_eq!(
        text,
        "Input validation error: missing ), unterminated subpattern at position 0"
    );
    let (text, _) = call_tool(
        &c,
        "Calculator",
        json!({"input_1": 3, "input_2": 0, "operation": "divide"}),
    )
    .await;
    assert_eq!(text, "nan");
    let (peek, _) = call_tool(
        &c,
        "filter_data",
        json!({"data_label": all, "key_name": "genre", "value": "no such genre", "condition": "equal_to"}),
    )
    .await;
    assert!(peek.contains("\"num_records\": 0"), "{peek}");
    let (text, _) = call_tool(
        &c,
        "filter_data",
        json!({"data_label": handle(&peek), "key_name": "genre", "value": "x", "condition": "equal_to"}),
    )
    .await;
    assert_eq!(text, "Input validation error: list index out of range");
    let (peek, _) = call_tool(
        &c,
        "retrieve_data",
        json!({"data_label": all, "key_name": "genre", "limit": 1_000_000_000_000_000_i64}),
    )
    .await;
    assert!(
        peek.starts_with("{\"handle\": \"retrieved_data_2\""),
        "{peek}"
    );
    // Integers beyond 64 bits act as Python's do: a limit beyond the column keeps all of it,
    // a negative one is no limit.
    let records = |peek: &str| -> Value {
        serde_json::from_str::<Value>(peek).unwrap()["num_records"].clone()
    };
    let (whole, _) = call_tool(
        &c,
        "retrieve_data",
        json!({"data_label": all, "key_name": "genre"}),
    )
    .await;
    let beyond: Value = serde_json::from_str("18446744073709551616").unwrap();
    let below: Value = serde_json::from_str("-18446744073709551616").unwrap();
    for limit in [json!(u64::MAX), beyond, below] {
        let (peek, is_error) = call_tool(
            &c,
            "retrieve_data",
            json!({"data_label": all, "key_name": "genre", "limit": limit}),
        )
        .await;
        assert!(
            !is_error && peek.contains("\"handle\": \"retrieved_data_"),
            "{limit}: {peek}"
        );
        assert_eq!(records(&peek), records(&whole), "{limit}: {peek}");
    }
    let (text, is_error) = call_tool(&c, "select_data_equal_to", json!({})).await;
    assert!(is_error);
    assert_eq!(text, "Unknown tool: select_data_equal_to");
    c.cancel().await.unwrap();

    for domain in ["nope", "../library", "library/../x"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vakra"))
            .args(["mcp", "--capability", "1", "--domain", domain, "--root"])
            .arg(repo_root())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{domain} started");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("No tool universes found for domain"),
            "{domain}: {stderr}"
        );
    }
}

#[tokio::test]
async fn a_session_holds_bounded_data() {
    let c = client("library", &["--session-memory-mib", "0"]).await;
    let (peek, _) = call_tool(&c, "get_data", json!({})).await;
    let (text, _) = call_tool(
        &c,
        "sort_data",
        json!({"data_label": handle(&peek), "key_name": "price"}),
    )
    .await;
    assert!(
        text.starts_with("{\"error\": \"Session data limit reached"),
        "{text}"
    );
    // stored data is the universe's own table: get_data keeps working
    let (peek, _) = call_tool(&c, "get_data", json!({})).await;
    assert_eq!(handle(&peek), "retrieved_book_2");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_nonzero_cap_accepts_tables_until_it_is_reached() {
    let c = client("library", &["--session-memory-mib", "1"]).await;
    let (peek, _) = call_tool(&c, "get_data", json!({})).await;
    let sort = json!({"data_label": handle(&peek), "key_name": "price"});
    // Copies of the universe's table (some hundred KiB each) are stored until 1 MiB is
    // reached; the one that would go beyond is refused with the documented error.
    let mut stored = Vec::new();
    let refusal = loop {
        let (text, _) = call_tool(&c, "sort_data", sort.clone()).await;
        if !text.starts_with("{\"handle\": ") {
            break text;
        }
        stored.push(handle(&text));
        assert!(stored.len() < 10, "1 MiB holds ten copies: {text}");
    };
    assert!(!stored.is_empty(), "the first copy fits: {refusal}");
    assert!(
        refusal.starts_with("{\"error\": \"Session data limit reached: storing this result ("),
        "{refusal}"
    );
    assert!(
        refusal.ends_with(" bytes) would exceed the limit of 1048576 bytes for this session's handles. Switch universes with get_data to start over.\"}"),
        "{refusal}"
    );
    // The refused table was not stored, the accepted ones still are.
    let (again, _) = call_tool(&c, "sort_data", sort).await;
    assert_eq!(again, refusal);
    let last = stored.last().unwrap();
    assert_eq!(last, &format!("sorted_book_{}", stored.len()));
    let (values, _) = call_tool(
        &c,
        "retrieve_data",
        json!({"data_label": last, "key_name": "price", "limit": 1}),
    )
    .await;
    assert!(!values.contains("error"), "{values}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn the_quirk_switch_lists_startup_getters() {
    let default = client("weather", &[]).await;
    let quirky = default.list_all_tools().await.unwrap();
    assert!(
        !quirky
            .iter()
            .any(|t| t.name.starts_with("get_") && t.name != "get_data")
    );
    assert!(
        quirky
            .iter()
            .all(|t| t.name == "get_data" || t.description.as_deref() == Some(""))
    );
    default.cancel().await.unwrap();
    let fixed = client("weather", &["--fix-quirks"]).await;
    let tools = fixed.list_all_tools().await.unwrap();
    assert_eq!(tools[0].name, "get_station_ids");
    assert!(
        tools
            .iter()
            .all(|t| !t.description.as_deref().unwrap_or_default().is_empty())
    );
    fixed.cancel().await.unwrap();
}

#[test]
fn official_python_client() {
    official_client_check("cap1_client_check.py", "--base");
}

/// `vakra mcp --capability 1` with `args`; its exit failed and stderr is returned.
fn failed_start(domain: &str, root: &std::path::Path, extra: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vakra"))
        .args(["mcp", "--capability", "1", "--domain", domain, "--root"])
        .arg(root)
        .arg("--db-root")
        .arg(repo_root().join("databases"))
        .args(extra)
        .env_remove("MCP_SERVER_TYPE")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success(), "{domain} started");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn broken_setups_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let stderr = failed_start("library", root, &[]);
    assert!(
        stderr.contains("universes.json") && stderr.contains("vakra import"),
        "{stderr}"
    );
    std::fs::create_dir_all(root.join("capability1")).unwrap();
    std::fs::write(
        root.join("capability1/universes.json"),
        "{\"u\": {\"domain\": 5}}",
    )
    .unwrap();
    let stderr = failed_start("library", root, &[]);
    assert!(stderr.contains("not a universe mapping"), "{stderr}");
    std::fs::copy(
        repo_root().join("capability1/universes.json"),
        root.join("capability1/universes.json"),
    )
    .unwrap();
    std::fs::write(root.join("capability1/texts.json"), "[1, 2").unwrap();
    let stderr = failed_start("library", root, &[]);
    assert!(stderr.contains("texts.json"), "{stderr}");
    let stderr = failed_start("library,weather", &repo_root(), &[]);
    assert!(stderr.contains("one domain at a time"), "{stderr}");
    let stderr = failed_start("library", &repo_root(), &["--server-type", "bogus"]);
    assert!(stderr.contains("Unknown server_type: bogus"), "{stderr}");
    // a universe whose table is missing from the database stops the server at start
    let mapping = std::fs::read_to_string(repo_root().join("capability1/universes.json")).unwrap();
    std::fs::write(
        root.join("capability1/universes.json"),
        mapping.replace(
            "\"original_table_name\": \"books\"",
            "\"original_table_name\": \"nope\"",
        ),
    )
    .unwrap();
    std::fs::copy(
        repo_root().join("capability1/texts.json"),
        root.join("capability1/texts.json"),
    )
    .unwrap();
    let stderr = failed_start("library", root, &[]);
    assert!(stderr.contains("Did not find table 'nope'"), "{stderr}");
}

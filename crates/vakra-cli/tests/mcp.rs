//! MCP sessions against `vakra mcp` (stdio) and `vakra serve` (streamable HTTP), with the rmcp
//! client and with the official Python client.

use std::process::Stdio;

use crate::common::{
    Server, assert_three_checksums_match, official_client_check, python_tool_checksum,
    stdio_client, vakra,
};
use rmcp::ServiceExt;
use rmcp::model::Tool;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Map, Value, json};
use vakra_test_kit::http::get;
use vakra_test_kit::mcp::{McpClient as Client, call_tool};
use vakra_test_kit::paths::repo_root;

/// What the reference's wrapper lists for a domain: one tool per catalog path with the prefix.
fn catalog_tools(prefix: &str) -> Vec<(String, String, Value)> {
    let mut tools = Vec::new();
    for domain in ["library", "weather", "weather_alerts"] {
        let doc: Value = serde_json::from_str(
            &std::fs::read_to_string(repo_root().join(format!("openapi/{domain}.json"))).unwrap(),
        )
        .unwrap();
        for (path, item) in doc["paths"].as_object().unwrap() {
            if !path.starts_with(&format!("/v1/{prefix}")) {
                continue;
            }
            let op = &item["get"];
            let mut properties = Map::new();
            let mut required = Vec::new();
            for p in op["parameters"].as_array().into_iter().flatten() {
                properties.insert(
                    p["name"].as_str().unwrap().into(),
                    json!({"type": p["schema"]["type"], "description": p["description"]}),
                );
                if p["required"] == true {
                    required.push(p["name"].clone());
                }
            }
            tools.push((
                op["operationId"].as_str().unwrap().to_owned(),
                op["summary"].as_str().unwrap().to_owned(),
                json!({"type": "object", "properties": properties, "required": required}),
            ));
        }
    }
    tools
}

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

async fn check_session(client: &Client, rest_base: &str) {
    let tools = client.list_all_tools().await.unwrap();
    let got = listed(&tools);
    assert_eq!(
        got,
        catalog_tools("library"),
        "tools/list differs from the catalog"
    );
    for tool in &tools {
        let keys: Vec<&String> = tool.input_schema.keys().collect();
        assert_eq!(
            keys,
            ["type", "properties", "required"],
            "{}: schema key order",
            tool.name
        );
        assert!(tool.title.is_none() && tool.output_schema.is_none() && tool.annotations.is_none());
    }

    let (text, is_error) = call_tool(client, "get_most_borrowed_books", json!({"limit": 3})).await;
    let (_, _, body) = get(&format!(
        "{rest_base}/v1/library/most_borrowed_books?limit=3"
    ))
    .await;
    let body: Value = serde_json::from_str(&body).unwrap();
    assert!(!is_error);
    assert_eq!(
        text,
        vakra_pytext::dumps(&body, &vakra_pytext::DumpOptions::indent2()).unwrap()
    );

    // JSON 3.0 is an integer for jsonschema and becomes "3.0" in the URL, which FastAPI accepts
    let (same, _) = call_tool(client, "get_most_borrowed_books", json!({"limit": 3.0})).await;
    assert_eq!(same, text);

    let (text, is_error) = call_tool(client, "get_book_count_by_genre", json!({})).await;
    assert_eq!(
        (text.as_str(), is_error),
        (
            "Input validation error: 'genre' is a required property",
            true
        )
    );
    let (text, is_error) =
        call_tool(client, "get_most_borrowed_books", json!({"limit": "3"})).await;
    assert_eq!(
        (text.as_str(), is_error),
        ("Input validation error: '3' is not of type 'integer'", true)
    );
    let (text, is_error) = call_tool(client, "get_book_count_by_genre", json!({"genre": 5})).await;
    assert_eq!(
        (text.as_str(), is_error),
        ("Input validation error: 5 is not of type 'string'", true)
    );
    let (text, is_error) = call_tool(client, "no_such_tool", json!({})).await;
    assert_eq!(
        (text.as_str(), is_error),
        ("Tool no_such_tool not found", true)
    );

    // 1e20 passes jsonschema's integer check but not FastAPI's: the wrapper reports the 422
    let (text, is_error) =
        call_tool(client, "get_most_borrowed_books", json!({"limit": 1e20})).await;
    assert!(
        !is_error,
        "HTTP errors are successful tool results in the reference"
    );
    assert_eq!(
        text,
        "Error calling API: Client error '422 Unprocessable Entity' for url \
         'http://localhost:8000/v1/library/most_borrowed_books?limit=1e%2B20'\n\
         For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/422"
    );
}

#[tokio::test]
async fn stdio_session_matches_the_reference_wrapper() {
    let root = repo_root();
    let server = Server::start(&["--root", root.to_str().unwrap()]);
    let client = stdio_client(&[
        "--capability",
        "2",
        "--domain",
        "library",
        "--root",
        root.to_str().unwrap(),
    ])
    .await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("fastapi-mcp-wrapper")
    );
    assert_eq!(
        info.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed),
        Some(false)
    );
    check_session(&client, &server.base).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_session_matches_the_reference_wrapper() {
    let root = repo_root();
    let server = Server::start(&["--root", root.to_str().unwrap()]);
    let transport =
        StreamableHttpClientTransport::from_uri(format!("{}/mcp/2/library", server.base));
    let client = ().serve(transport).await.unwrap();
    check_session(&client, &server.base).await;
    client.cancel().await.unwrap();

    for bad in [
        "/mcp/9/library",
        "/mcp/2/nope",
        "/mcp/2/..%2F..",
        "/mcp/1/nope",
    ] {
        let (status, _, body) = get(&format!("{}{bad}", server.base)).await;
        assert_eq!(status, 404, "{bad}: {body}");
        assert!(body.contains("error"), "{bad}: {body}");
    }
}

#[tokio::test]
async fn domain_prefix_quirk_and_its_fix() {
    let root = repo_root();
    let root = root.to_str().unwrap();
    // the reference's filter is a raw prefix: `weather` also lists `weather_alerts`
    let client = stdio_client(&["--capability", "3", "--domain", "weather", "--root", root]).await;
    let names: Vec<String> = listed(&client.list_all_tools().await.unwrap())
        .into_iter()
        .map(|t| t.0)
        .collect();
    let expected: Vec<String> = catalog_tools("weather").into_iter().map(|t| t.0).collect();
    assert_eq!(names, expected);
    assert!(
        expected.len() > catalog_tools("weather/").len(),
        "the demo must exercise the quirk"
    );
    client.cancel().await.unwrap();

    let client = stdio_client(&[
        "--capability",
        "2",
        "--domain",
        "weather",
        "--root",
        root,
        "--fix-quirks",
    ])
    .await;
    let names: Vec<String> = listed(&client.list_all_tools().await.unwrap())
        .into_iter()
        .map(|t| t.0)
        .collect();
    let exact: Vec<String> = catalog_tools("weather/").into_iter().map(|t| t.0).collect();
    assert_eq!(names, exact);
    client.cancel().await.unwrap();
}

#[test]
fn refuses_unknown_domains_and_capabilities() {
    let root = repo_root();
    let run = |args: &[&str]| {
        let output = vakra()
            .arg("mcp")
            .args(args)
            .args(["--root", root.to_str().unwrap()])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (ok, stderr) = run(&["--capability", "2", "--domain", "nope"]);
    assert!(
        !ok && stderr.contains("unknown domain \"nope\"") && stderr.contains("library"),
        "{stderr}"
    );
    let (ok, stderr) = run(&["--capability", "7", "--domain", "library"]);
    assert!(
        !ok && stderr.contains("capability must be one of 1, 2, 3, 4"),
        "{stderr}"
    );
    let (ok, stderr) = run(&["--capability", "2", "--domain", "../library"]);
    assert!(!ok && stderr.contains("unknown domain"), "{stderr}");
}

#[test]
fn reference_environment_variables_select_the_session() {
    let root = repo_root();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vakra"))
        .arg("mcp")
        .env("CAPABILITY_ID", "2")
        .env("MCP_DOMAIN", "weather_alerts")
        .env("MCP_DB_ROOT", root.join("databases"))
        .env("VAKRA_ROOT", &root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::{BufRead, BufReader, Write};
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"0"}}}}}}"#).unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut tools = None;
    for line in lines.by_ref() {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["id"] == 2 {
            tools = Some(message["result"]["tools"].as_array().unwrap().len());
            break;
        }
    }
    drop(stdin);
    let _ = child.wait();
    assert_eq!(tools, Some(catalog_tools("weather_alerts").len()));
}

#[test]
fn checksums_agree_with_the_reference_algorithm_in_python() {
    let root = repo_root();
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Map::new();
    for (capability, domain) in [("2", "library"), ("3", "weather"), ("2", "weather_alerts")] {
        let output = vakra()
            .args([
                "tools",
                "list",
                "--json",
                "--capability",
                capability,
                "--domain",
                domain,
                "--root",
            ])
            .arg(&root)
            .output()
            .unwrap();
        assert!(output.status.success());
        let listing = dir.path().join(format!("{capability}-{domain}.json"));
        std::fs::write(&listing, &output.stdout).unwrap();
        let digest = python_tool_checksum(&listing);
        expected
            .entry(capability.to_owned())
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .unwrap()
            .insert(domain.to_owned(), Value::String(digest));
    }
    assert_three_checksums_match(&Value::Object(expected), &root);
}

#[test]
fn official_python_client() {
    official_client_check("mcp_client_check.py", "--rest");
}

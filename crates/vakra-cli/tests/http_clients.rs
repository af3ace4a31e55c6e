//! What clients nobody here wrote meet over HTTP and stdio: session DELETE answered as the
//! Python SDK expects (200, 404 for unknown ids), every MCP endpoint also at a path ending in
//! `/mcp`, plain logs without the protocol-version probe warning, a clear error outside a data
//! root, the official Python SDK closing sessions with nothing logged, and the MCP Inspector CLI
//! (npm, pinned in tests/inspector) over stdio and streamable HTTP.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::common::{Server, vakra};
use vakra_test_kit::http::{raw_http, raw_post, session_id};
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::python::run_check;
use vakra_test_kit::switches::skip_or_fail;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

fn delete(server: &Server, path: &str, id: &str) -> (u16, String) {
    raw_http(
        &server.base,
        format!(
            "DELETE {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: {id}\r\n\
             Mcp-Protocol-Version: 2025-06-18\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    )
}

fn demo_server() -> Server {
    Server::start(&["--root", repo_root().to_str().unwrap()])
}

#[test]
fn session_delete_answers_as_the_sdk_expects() {
    let server = demo_server();
    for path in ["/mcp/2/library", "/mcp/1/library/mcp"] {
        let (status, text) = raw_post(&server.base, path, INITIALIZE);
        assert_eq!(status, 200, "{text}");
        let id = session_id(&text);
        let (status, text) = delete(&server, path, &id);
        assert_eq!(status, 200, "{path}: {text}");
        // The session is gone: a second DELETE, like one of an id never issued, is a 404.
        let (status, text) = delete(&server, path, &id);
        assert_eq!(status, 404, "{path}: {text}");
        assert!(text.contains("Session not found"), "{text}");
        let (status, _) = delete(&server, path, "no-such-session");
        assert_eq!(status, 404);
    }
}

#[test]
fn logs_are_plain_and_the_version_probe_is_quiet() {
    let log_of = |rust_log: Option<&str>| {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("serve.log");
        let mut command = vakra();
        command
            .args(["serve", "--root", repo_root().to_str().unwrap()])
            .args(["--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap());
        match rust_log {
            Some(level) => command.env("RUST_LOG", level),
            None => command.env_remove("RUST_LOG"),
        };
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let base = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap()
            .to_owned();
        // What every `mcp` 2.x client sends first: a discovery at a version not spoken here.
        let probe = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let (status, text) = raw_http(
            &base,
            format!(
                "POST /mcp/2/library HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
                 Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                 Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n\
                 Content-Length: {}\r\n\r\n{probe}",
                probe.len()
            )
            .as_bytes(),
        );
        assert_eq!(status, 400, "{text}");
        assert!(text.contains("-32022"), "{text}");
        std::thread::sleep(std::time::Duration::from_millis(300));
        let _ = child.kill();
        let _ = child.wait();
        std::fs::read_to_string(&log).unwrap()
    };
    let quiet = log_of(None);
    assert!(quiet.contains(" INFO serving "), "{quiet}");
    assert!(
        !quiet.contains('\u{1b}'),
        "colour codes in a log file: {quiet:?}"
    );
    assert!(!quiet.contains("WARN"), "{quiet}");
    let debug = log_of(Some("debug"));
    assert!(debug.contains("Unsupported protocol version"), "{debug}");
}

#[test]
fn servers_outside_a_data_root_say_so() {
    let empty = tempfile::tempdir().unwrap();
    for args in [
        &["mcp", "--capability", "2"][..],
        &["serve", "--listen", "127.0.0.1:0"],
    ] {
        let output = vakra()
            .args(args)
            .current_dir(empty.path())
            .env_remove("VAKRA_ROOT")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success());
        assert!(
            stderr.contains(
                "is not a data root: it has no openapi/domains.json, capability1/ or bpo/"
            ) && stderr.contains("pass --root DIR (or set VAKRA_ROOT)"),
            "{stderr}"
        );
    }
}

#[test]
fn the_python_sdk_closes_sessions_with_nothing_logged() {
    let server = demo_server();
    run_check(
        "http_close_check.py",
        ["--base", &server.base],
        "4 passed, 0 failed",
    );
}

/// The Inspector's CLI, or `None` (after saying why) when `make inspector` has not run;
/// required when `VAKRA_REQUIRE_INSPECTOR` is set.
fn inspector() -> Option<PathBuf> {
    let cli = repo_root().join("tests/inspector/node_modules/.bin/mcp-inspector");
    if cli.is_file() {
        return Some(cli);
    }
    skip_or_fail(
        "VAKRA_REQUIRE_INSPECTOR",
        &format!(
            "{} is missing (`make inspector` installs it)",
            cli.display()
        ),
    );
    None
}

/// Runs the Inspector CLI on `target` with `args`; its JSON answer.
fn inspect(cli: &PathBuf, target: &[&str], args: &[&str]) -> serde_json::Value {
    let catalog = tempfile::tempdir().unwrap();
    let output = Command::new(cli)
        .arg("--cli")
        .args(target)
        .args(args)
        .env("MCP_CATALOG_PATH", catalog.path().join("mcp.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{target:?} {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn the_mcp_inspector_cli_reaches_every_transport() {
    let Some(cli) = inspector() else { return };
    let server = demo_server();
    let url = format!("{}/mcp/1/library/mcp", server.base);
    let root = repo_root();
    let stdio = [
        env!("CARGO_BIN_EXE_vakra"),
        "mcp",
        "--capability",
        "2",
        "--domain",
        "library",
        "--root",
        root.to_str().unwrap(),
    ];
    // Streamable HTTP, the transport detected from the path.
    let listed = inspect(&cli, &[&url], &["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.last(), Some(&"get_data"), "{names:?}");
    let called = inspect(
        &cli,
        &[&url],
        &["--method", "tools/call", "--tool-name", "get_data"],
    );
    let text = called["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("{\"handle\": \"retrieved_book_1\""),
        "{text}"
    );
    // Stdio.
    let listed = inspect(&cli, &stdio, &["--method", "tools/list"]);
    assert_eq!(listed["tools"].as_array().unwrap().len(), 21, "{listed}");
    let called = inspect(
        &cli,
        &stdio,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "get_book_count_by_genre",
            "--tool-arg",
            "genre=Fantasy",
        ],
    );
    let text = called["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("count"), "{text}");
}

/// Counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct ListChanges(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl rmcp::ClientHandler for ListChanges {
    async fn on_tool_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The demo's `library` has universes of both toolsets: switching from SLOT-BIRD to SEL-BIRD
/// is announced with `notifications/tools/list_changed`, over HTTP as over stdio.
#[tokio::test]
async fn a_demo_domain_switches_toolsets_with_list_changed() {
    use rmcp::ServiceExt;
    let server = demo_server();
    let changes = ListChanges::default();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(format!(
        "{}/mcp/1/library",
        server.base
    ));
    let client = changes.clone().serve(transport).await.unwrap();
    let names = |tools: Vec<rmcp::model::Tool>| -> Vec<String> {
        tools.into_iter().map(|t| t.name.to_string()).collect()
    };
    let slot = names(client.list_all_tools().await.unwrap());
    assert!(slot.contains(&"filter_data".to_owned()), "{slot:?}");
    let arguments = serde_json::json!({"tool_universe_id": "11b7a0c0ffee-000000000003"});
    let request = rmcp::model::CallToolRequestParams::new("get_data")
        .with_arguments(arguments.as_object().unwrap().clone());
    let result = client.call_tool(request).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    for _ in 0..50 {
        if changes.0.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(changes.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    let selection = names(client.list_all_tools().await.unwrap());
    assert!(
        selection.contains(&"select_data_equal_to".to_owned())
            && !selection.contains(&"filter_data".to_owned()),
        "{selection:?}"
    );
    client.cancel().await.unwrap();
}

/// A body that is not JSON, or JSON that is not JSON-RPC, is answered as the Python SDK does:
/// 400 with a JSON-RPC parse (-32700) or validation (-32602) error.
#[test]
fn malformed_json_rpc_is_answered_as_the_sdk_does() {
    let server = demo_server();
    for (body, code) in [
        (r#"{"jsonrpc":"2.0","id":1,"#, -32700),
        (r#"{"foo":1}"#, -32602),
    ] {
        let (status, text) = raw_post(&server.base, "/mcp/2/library", body);
        assert_eq!(status, 400, "{text}");
        let json = &text[text.find("{\"").unwrap()..];
        let answer: serde_json::Value = serde_json::from_str(json.lines().next().unwrap())
            .unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(answer["id"], "server-error", "{text}");
        assert_eq!(answer["error"]["code"], code, "{text}");
    }
}

//! A call whose client goes away is stopped: over HTTP, closing the connection of a
//! `tools/call` POST cancels the call (as `notifications/cancelled` would), its work stops
//! costing CPU within 2 s, and the session's next call is answered at once instead of waiting
//! behind it.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vakra_test_kit::http::raw_http;

use crate::common::{Server, busy_core_turn, demo_root};

/// The CPU time (user and system) the process `pid` used so far.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf only reads a system setting.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap();
    Duration::from_millis(ticks * 1000 / per_second)
}

/// The CPU time `pid` uses in the next `window`.
fn cpu_use(pid: u32, window: Duration) -> Duration {
    let before = cpu_time(pid);
    std::thread::sleep(window);
    cpu_time(pid) - before
}

fn post(path: &str, session: Option<&str>, body: &Value) -> Vec<u8> {
    let body = body.to_string();
    let session = session.map_or(String::new(), |id| {
        format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n")
    });
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         {session}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The JSON-RPC message of an event-stream or JSON answer.
fn message_of(response: &str) -> Value {
    let body = response.split("\r\n\r\n").nth(1).unwrap();
    let json = body
        .lines()
        .find_map(|line| line.strip_prefix("data: ").filter(|d| !d.is_empty()))
        .unwrap_or(body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {response}"))
}

/// An initialized session on `path`: its id.
fn open_session(server: &Server, path: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let (status, response) = raw_http(&server.base, &post(path, None, &initialize));
    assert_eq!(status, 200, "{response}");
    let id = response
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _) = raw_http(&server.base, &post(path, Some(&id), &initialized));
    assert_eq!(status, 202);
    id
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

/// The text of a call's answer.
fn call_text(server: &Server, path: &str, session: &str, tool: &str, arguments: Value) -> String {
    let (status, response) = raw_http(
        &server.base,
        &post(path, Some(session), &call(tool, arguments)),
    );
    assert_eq!(status, 200, "{response}");
    let message = message_of(&response);
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{message}"))
        .to_owned()
}

fn handle(peek: &str) -> String {
    let value: Value = serde_json::from_str(peek).unwrap_or_else(|e| panic!("{e}: {peek}"));
    value["handle"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_dropped_http_connection_cancels_its_call() {
    let _turn = busy_core_turn().await;
    let root = demo_root(false);
    let server = Server::start(&[
        "--root",
        root.path().to_str().unwrap(),
        "--call-time-limit",
        "30",
    ]);
    let path = "/mcp/1/library";
    let session = open_session(&server, path);
    let mut books = handle(&call_text(&server, path, &session, "get_data", json!({})));
    for _ in 0..2 {
        let peek = call_text(
            &server,
            path,
            &session,
            "concatenate_data",
            json!({"data_label_1": books, "data_label_2": books}),
        );
        books = handle(&peek);
    }
    let slow = call(
        "filter_data",
        json!({"data_label": books, "key_name": "title", "value": "%".repeat(300_000),
            "condition": "like"}),
    );
    let mut stream =
        std::net::TcpStream::connect(server.base.strip_prefix("http://").unwrap()).unwrap();
    stream
        .write_all(&post(path, Some(&session), &slow))
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let busy = cpu_use(server.pid(), Duration::from_secs(1));
    assert!(
        busy > Duration::from_millis(100),
        "the slow call is not running: {busy:?} of CPU in 1 s"
    );
    drop(stream);
    let dropped = Instant::now();
    // The session's next call is answered at once, not after the slow one's 30 s.
    let peek = call_text(&server, path, &session, "get_data", json!({}));
    assert!(peek.starts_with("{\"handle\": "), "{peek}");
    let next = dropped.elapsed();
    assert!(
        next < Duration::from_secs(2),
        "the next call waited {next:?}"
    );
    std::thread::sleep(Duration::from_secs(2).saturating_sub(dropped.elapsed()));
    let after = cpu_use(server.pid(), Duration::from_secs(1));
    eprintln!(
        "CPU in 1 s: {busy:?} while the call ran, {after:?} from 2 s after its client left; next call answered after {next:?}"
    );
    assert!(
        after < Duration::from_millis(200),
        "the dropped call still costs CPU: {after:?} in 1 s"
    );
}

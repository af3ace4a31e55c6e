//! Messages at the transports' limits, sent to the real binary over real pipes and sockets: a
//! stdio line over 16 MiB is answered with an error carrying its id (and memory stays bounded),
//! and the session goes on; arguments nested deeper than serde_json reads reach the tool over
//! stdio and HTTP, up to Python's depth, and deeper ones get a clear JSON-RPC error; integers
//! beyond 64 bits are quoted with their digits, as the reference quotes them.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{Server, vakra};
use serde_json::{Value, json};
use vakra_test_kit::http::{jsonrpc_message, raw_http, raw_post, session_id};
use vakra_test_kit::paths::repo_root;

/// A `vakra mcp` session on a demo domain, its answers read on a thread.
struct StdioSession {
    child: Child,
    stdin: ChildStdin,
    answers: mpsc::Receiver<Value>,
}

impl StdioSession {
    /// A session on capability 2's `library` domain.
    fn start() -> Self {
        Self::start_on("2", "library")
    }

    fn start_on(capability: &str, domain: &str) -> Self {
        let mut child = vakra()
            .args([
                "mcp",
                "--capability",
                capability,
                "--domain",
                domain,
                "--root",
            ])
            .arg(repo_root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                if send.send(serde_json::from_str(&line).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut session = Self {
            child,
            stdin,
            answers,
        };
        session.send(&initialize().to_string());
        session.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(session.answer()["id"], 1);
        session
    }

    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn answer(&self) -> Value {
        self.answers
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer within 30 s")
    }

    /// The peak resident memory of the process, in bytes.
    fn peak_memory(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.trim().strip_suffix("kB"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        kib * 1024
    }
}

impl Drop for StdioSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}})
}

fn call(id: u64, genre: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "get_book_count_by_genre", "arguments": {"genre": genre}}})
}

/// A string nested in `depth` lists, as JSON.
fn nested(depth: usize) -> Value {
    let text = format!("{}\"x\"{}", "[".repeat(depth), "]".repeat(depth));
    vakra_pytext::loads::loads(text.as_bytes()).unwrap()
}

/// What the reference's SDK answers for `nested(depth)` as the string `genre`: jsonschema's
/// message with Python's `repr` of the list.
fn not_a_string(depth: usize) -> String {
    format!(
        "Input validation error: {}'x'{} is not of type 'string'",
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

const MIB: usize = 1 << 20;

#[test]
fn over_long_stdio_lines_get_an_error_with_their_id() {
    let mut session = StdioSession::start();
    // The baseline is taken once the domain served a listing and a call, so that what it sets
    // up on first use is not counted as the line's.
    session.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(session.answer()["id"], 2);
    session.send(&call(3, &json!("x")).to_string());
    assert_eq!(session.answer()["id"], 3);
    let before = session.peak_memory();
    let filler = "7".repeat(17 * MIB);
    // The Python SDK writes the id second, the TypeScript SDK last; a line may show none.
    let lines = [
        format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"name":"get_book_by_isbn","arguments":{{"isbn":"{filler}"}}}}}}"#
        ),
        format!(
            r#"{{"method":"tools/call","params":{{"name":"get_book_by_isbn","arguments":{{"isbn":"{filler}"}}}},"jsonrpc":"2.0","id":"last"}}"#
        ),
        format!("{filler}{filler}{filler}"),
    ];
    for line in &lines {
        session.send(line);
    }
    session.send(r#"{"jsonrpc":"2.0","id":43,"method":"tools/list"}"#);
    // The transport writes its own error answers beside the service's, so the listing may
    // come before the last of them.
    let (mut errors, mut listed) = (Vec::new(), false);
    while !listed || errors.len() < lines.len() {
        let answer = session.answer();
        if answer["id"] == 43 {
            assert!(answer["result"]["tools"].as_array().unwrap().len() > 1);
            listed = true;
        } else {
            errors.push((answer["id"].clone(), answer["error"].clone()));
        }
    }
    let error = |bytes: usize| {
        json!({"code": -32600, "message": format!(
            "Invalid request: the message is {bytes} bytes long, more than this server's \
             limit of 16777216 bytes for one line over stdio")})
    };
    let mut expected = vec![
        (json!(42), error(lines[0].len())),
        (json!("last"), error(lines[1].len())),
        (Value::Null, error(lines[2].len())),
    ];
    // In any order, as above.
    let by_id = |(id, _): &(Value, Value)| id.to_string();
    errors.sort_by_key(by_id);
    expected.sort_by_key(by_id);
    assert_eq!(errors, expected);
    // 85 MiB were sent; what was held is the 16 MiB line buffer at most, with what the
    // allocator keeps around it (18–21 MiB in all, measured with mimalloc, loaded or not); two
    // lines' worth would pass 32 MiB.
    let grown = session.peak_memory().saturating_sub(before);
    assert!(
        grown < 30 * MIB as u64,
        "peak memory grew by {} MiB",
        grown / MIB as u64
    );
}

#[test]
fn deep_arguments_reach_the_tool_over_stdio() {
    let mut session = StdioSession::start();
    session.send(&call(2, &nested(200)).to_string());
    let answer = session.answer();
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["result"]["isError"], true);
    assert_eq!(answer["result"]["content"][0]["text"], not_a_string(200));
    // As deep as Python's json reads (the message adds four levels): answered, no overflow.
    session.send(&call(3, &nested(996)).to_string());
    let answer = session.answer();
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["result"]["content"][0]["text"], not_a_string(996));
    let too_deep = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"get_book_count_by_genre","arguments":{{"genre":{}}}}}}}"#,
        format_args!("{}1{}", "[".repeat(2_000), "]".repeat(2_000))
    );
    session.send(&too_deep);
    assert_eq!(
        session.answer(),
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32700,
            "message": "Parse error: values nested 2003 levels deep, more than 1000"}})
    );
    session.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    assert_eq!(session.answer()["id"], 5);
}

fn session_post(server: &Server, id: &str, body: &str) -> (u16, String) {
    raw_http(
        &server.base,
        format!(
            "POST /mcp/2/library HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
}

/// A new MCP session on `/mcp/2/library`, initialized: its id.
fn http_session(server: &Server) -> String {
    let (status, response) = raw_post(&server.base, "/mcp/2/library", &initialize().to_string());
    assert_eq!(status, 200, "{response}");
    let id = session_id(&response);
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(session_post(server, &id, initialized).0, 202);
    id
}

#[test]
fn deep_arguments_reach_the_tool_over_http() {
    let root = repo_root();
    let server = Server::start(&["--root", root.to_str().unwrap()]);
    let id = http_session(&server);
    for (n, depth) in [(2, 200), (3, 996)] {
        let (status, response) = session_post(&server, &id, &call(n, &nested(depth)).to_string());
        assert_eq!(status, 200, "{response}");
        let answer = jsonrpc_message(&response);
        assert_eq!(answer["id"], n);
        assert_eq!(answer["result"]["content"][0]["text"], not_a_string(depth));
    }
    let too_deep = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}}}}}}}"#,
        format_args!("{}1{}", "[".repeat(2_000), "]".repeat(2_000))
    );
    let (status, response) = session_post(&server, &id, &too_deep);
    assert_eq!(status, 400);
    assert_eq!(
        jsonrpc_message(&response),
        json!({"jsonrpc": "2.0", "id": "server-error", "error": {"code": -32700,
            "message": "Parse error: values nested 2003 levels deep, more than 1000"}})
    );
    let (status, response) = session_post(
        &server,
        &id,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
    );
    assert_eq!(
        (status, jsonrpc_message(&response)["id"].clone()),
        (200, json!(5))
    );
}

/// The texts the reference gives for integers beyond 64 bits: the REST call with the digits in
/// its URL fails to bind (500), and the SDK's validation quotes them.
pub(crate) fn big_integer_calls() -> Vec<(String, String)> {
    let limit = "100000000000000000000";
    let isbn = "-12345678901234567890123";
    vec![
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"get_most_borrowed_books","arguments":{{"limit":{limit}}}}}}}"#
            ),
            format!(
                "Error calling API: Server error '500 Internal Server Error' for url \
                 'http://localhost:8000/v1/library/most_borrowed_books?limit={limit}'\n\
                 For more information check: \
                 https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/500"
            ),
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"get_book_by_isbn","arguments":{{"isbn":{isbn}}}}}}}"#
            ),
            format!("Input validation error: {isbn} is not of type 'string'"),
        ),
    ]
}

#[test]
fn big_integers_keep_their_digits_over_stdio() {
    let mut session = StdioSession::start();
    for (line, text) in big_integer_calls() {
        session.send(&line);
        let answer = session.answer();
        assert_eq!(answer["result"]["content"][0]["text"], text.as_str());
    }
}

#[test]
fn big_integers_keep_their_digits_in_pydantic_texts() {
    let mut session = StdioSession::start_on("3", "bpo");
    session.send(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"candidate_source_sla_per_source","arguments":{"requisition_id":123456789012345678901234}}}"#,
    );
    assert_eq!(
        session.answer()["result"]["content"][0]["text"],
        "1 validation error for call[candidate_source_sla_per_source]\nrequisition_id\n  \
         Input should be a valid string [type=string_type, input_value=123456789012345678901234, \
         input_type=int]\n    For further information visit \
         https://errors.pydantic.dev/2.14/v/string_type"
    );
}

#[test]
fn big_integers_keep_their_digits_over_http() {
    let root = repo_root();
    let server = Server::start(&["--root", root.to_str().unwrap()]);
    let id = http_session(&server);
    for (body, text) in big_integer_calls() {
        let (status, response) = session_post(&server, &id, &body);
        assert_eq!(status, 200, "{response}");
        assert_eq!(
            jsonrpc_message(&response)["result"]["content"][0]["text"],
            text.as_str()
        );
    }
}

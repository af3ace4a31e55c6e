//! One client address cannot take what the others need: its connections (event streams
//! included) are capped at `--max-client-connections`, so a health check or another client
//! still gets in.

use std::io::Write;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{Server, demo_root};
use crate::hardening_disconnect::open_session;

/// A raw `GET target` from the loopback address `from` (only a connection when `target` is
/// `None`): the whole answer (10 s at most).
async fn get_from(server: &Server, from: &str, target: Option<&str>) -> String {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let address = server
        .base
        .strip_prefix("http://")
        .unwrap()
        .parse()
        .unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    if let Some(target) = target {
        let request =
            format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
    }
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

/// One client opens 300 event streams (GET) on ten MCP sessions of a server with
/// `--max-connections 300`: it gets at most its half, `/healthz` of another address answers
/// 200 within 2 s, and the client's own further connections get the 503 that names the flag.
#[tokio::test]
async fn one_client_holding_event_streams_cannot_keep_others_out() {
    let root = demo_root(false);
    let server = Server::start(&[
        "--root",
        root.path().to_str().unwrap(),
        "--max-connections",
        "300",
    ]);
    let path = "/mcp/2/library";
    let sessions: Vec<String> = (0..10).map(|_| open_session(&server, path)).collect();
    let address = server.base.strip_prefix("http://").unwrap().to_owned();
    let mut streams = Vec::new();
    for session in &sessions {
        for _ in 0..30 {
            let mut stream = std::net::TcpStream::connect(&address).unwrap();
            let request = format!(
                "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
                 Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n"
            );
            let _ = stream.write_all(request.as_bytes());
            streams.push(stream);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let answer = get_from(&server, "127.0.0.2", Some("/healthz")).await;
    let took = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(took < Duration::from_secs(2), "/healthz took {took:?}");
    let own = get_from(&server, "127.0.0.1", None).await;
    assert!(own.starts_with("HTTP/1.1 503 "), "{own}");
    assert!(
        own.contains("too many connections from 127.0.0.1: this server keeps at most 150 open at once for one client address (--max-client-connections)"),
        "{own}"
    );
    drop(streams);
}

/// A raw initialize POST to `path` from the loopback address `from`: the status and answer.
async fn initialize_from(server: &Server, from: &str, path: &str) -> String {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let address = server
        .base
        .strip_prefix("http://")
        .unwrap()
        .parse()
        .unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
    .to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

/// With `--max-sessions 8`, one client gets four sessions (half), its fifth is refused with the
/// 503 naming `--max-client-sessions` (and the log says so), another address still opens
/// sessions, and ending one of the first client's sessions lets it open another.
#[tokio::test]
async fn one_client_cannot_take_every_session() {
    let root = demo_root(false);
    let log = tempfile::NamedTempFile::new().unwrap();
    let server = Server::start_logging(
        &[
            "--root",
            root.path().to_str().unwrap(),
            "--max-sessions",
            "8",
        ],
        log.path(),
    );
    let path = "/mcp/2/library";
    let sessions: Vec<String> = (0..4).map(|_| open_session(&server, path)).collect();
    let refused = initialize_from(&server, "127.0.0.1", path).await;
    assert!(refused.starts_with("HTTP/1.1 503 "), "{refused}");
    assert!(
        refused.contains("too many MCP sessions from 127.0.0.1: this server keeps at most 4 at once for one client address (--max-client-sessions)"),
        "{refused}"
    );
    let other = initialize_from(&server, "127.0.0.2", path).await;
    assert!(other.starts_with("HTTP/1.1 200 "), "{other}");
    let delete = format!(
        "DELETE {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Mcp-Session-Id: {}\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n",
        sessions[0]
    );
    let (status, _) = vakra_test_kit::http::raw_http(&server.base, delete.as_bytes());
    assert_eq!(status, 200);
    // The session's place is given back once its server is dropped.
    let started = Instant::now();
    loop {
        let again = initialize_from(&server, "127.0.0.1", path).await;
        if again.starts_with("HTTP/1.1 200 ") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "{again}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(logged.contains("(--max-client-sessions)"), "{logged}");
}

/// `--session-idle-secs` shorter than a call is raised, and the log says so at startup.
#[test]
fn a_raised_session_idle_limit_is_logged() {
    let root = demo_root(false);
    let log = tempfile::NamedTempFile::new().unwrap();
    let _server = Server::start_logging(
        &[
            "--root",
            root.path().to_str().unwrap(),
            "--session-idle-secs",
            "2",
            "--call-time-limit",
            "5",
        ],
        log.path(),
    );
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        logged.contains("MCP sessions expire after 6s idle, not 2s"),
        "{logged}"
    );
}

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// An OpenEnv socket of `server` from the loopback address `from`.
async fn episode_from(server: &Server, from: &str) -> Socket {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let address = server.base.strip_prefix("http://").unwrap();
    let stream = socket.connect(address.parse().unwrap()).await.unwrap();
    let url = format!("ws://{address}/openenv/ws");
    tokio_tungstenite::client_async(url, stream)
        .await
        .unwrap()
        .0
}

/// With `--max-episodes 4`, one address holds two episodes (half); its third connection gets
/// `CAPACITY_REACHED` naming `--max-client-episodes` and a close frame, while another address
/// still starts an episode.
#[tokio::test]
async fn one_client_cannot_take_every_episode() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let root = demo_root(false);
    let split = crate::common::demo_split();
    let server = Server::start(&[
        "--root",
        root.path().to_str().unwrap(),
        "--episodes",
        split.to_str().unwrap(),
        "--max-episodes",
        "4",
    ]);
    // The server takes a connection's share once the upgrade has run, after the handshake's
    // answer: a reset answered on each held episode shows both are counted.
    let reset = serde_json::json!({"type": "reset", "data": {"seed": 1}}).to_string();
    let within = |what: &'static str| move |_| panic!("no {what} within 30 s");
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut episode = episode_from(&server, "127.0.0.1").await;
        episode
            .send(Message::Text(reset.clone().into()))
            .await
            .unwrap();
        let answer = tokio::time::timeout(Duration::from_secs(30), episode.next())
            .await
            .unwrap_or_else(within("observation"));
        assert!(matches!(answer, Some(Ok(Message::Text(_)))), "{answer:?}");
        held.push(episode);
    }
    let mut third = episode_from(&server, "127.0.0.1").await;
    let Some(Ok(Message::Text(refusal))) =
        tokio::time::timeout(Duration::from_secs(30), third.next())
            .await
            .unwrap_or_else(within("refusal"))
    else {
        panic!("no refusal");
    };
    let refusal: serde_json::Value = serde_json::from_str(&refusal).unwrap();
    assert_eq!(refusal["data"]["code"], "CAPACITY_REACHED", "{refusal}");
    assert!(
        refusal["data"]["message"]
            .as_str()
            .unwrap()
            .contains("(--max-client-episodes)"),
        "{refusal}"
    );
    let closing = tokio::time::timeout(Duration::from_secs(5), third.next())
        .await
        .expect("a close frame within 5 s");
    assert!(
        matches!(closing, Some(Ok(Message::Close(_)))),
        "{closing:?}"
    );
    let mut other = episode_from(&server, "127.0.0.2").await;
    other.send(Message::Text(reset.into())).await.unwrap();
    let Some(Ok(Message::Text(answer))) =
        tokio::time::timeout(Duration::from_secs(30), other.next())
            .await
            .unwrap_or_else(within("answer"))
    else {
        panic!("no answer");
    };
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(answer["type"], "observation", "{answer}");
}

/// An event stream (GET) does not outlive its session: a session with nothing but a held
/// stream is idle, expires after `--session-idle-secs`, and its stream ends with it.
#[tokio::test]
async fn an_event_stream_ends_when_its_idle_session_expires() {
    let root = demo_root(false);
    let server = Server::start(&[
        "--root",
        root.path().to_str().unwrap(),
        "--call-time-limit",
        "1",
        "--session-idle-secs",
        "2",
    ]);
    let path = "/mcp/2/library";
    let session = open_session(&server, path);
    let address = server.base.strip_prefix("http://").unwrap().to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
         Connection: close\r\nMcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer))
        .await
        .expect("the stream ends within 30 s")
        .unwrap();
    let took = started.elapsed();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(
        took >= Duration::from_secs(1),
        "ended after {took:?}: {answer}"
    );
}

//! Slow and many clients stay bounded: a body must arrive whole within `--body-time-limit`,
//! the bytes of bodies being received share `--max-body-bytes-in-flight`, and connections
//! beyond `--max-connections` are refused with 503; the server answers new clients throughout.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::{Server, demo_root};
use vakra_test_kit::http::{raw_get, raw_post};

fn serve(root: &tempfile::TempDir, extra: &[&str]) -> Server {
    let mut args = vec!["--root", root.path().to_str().unwrap()];
    args.extend_from_slice(extra);
    Server::start(&args)
}

fn connect(base: &str) -> TcpStream {
    let stream = TcpStream::connect(base.strip_prefix("http://").unwrap()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// Sends the head of a POST whose body is `length` bytes, and `sent` of them.
fn start_post(base: &str, length: usize, sent: usize) -> TcpStream {
    let mut stream = connect(base);
    let head = format!(
        "POST /mcp/2/library HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&vec![b' '; sent]).unwrap();
    stream
}

fn read_all(stream: &mut TcpStream) -> String {
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    String::from_utf8_lossy(&response).into_owned()
}

fn healthz_ok(server: &Server) {
    let started = Instant::now();
    let (status, text) = raw_get(&server.base, "/healthz");
    assert_eq!(status, 200, "{text}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_body_must_arrive_within_the_time_limit() {
    let root = demo_root(false);
    let server = serve(&root, &["--body-time-limit", "1"]);
    let started = Instant::now();
    let mut trickling = start_post(&server.base, 100, 10);
    healthz_ok(&server);
    let text = read_all(&mut trickling);
    assert!(text.starts_with("HTTP/1.1 408 "), "{text}");
    assert!(
        text.contains("the request body did not arrive within 1 s (--body-time-limit)"),
        "{text}"
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    healthz_ok(&server);
}

#[test]
fn bodies_in_flight_share_one_budget() {
    let root = demo_root(false);
    let server = serve(
        &root,
        &[
            "--max-body-bytes",
            "10000",
            "--max-body-bytes-in-flight",
            "25000",
        ],
    );
    // Two slow bodies reserve 20,000 bytes of the 25,000.
    let slow: Vec<TcpStream> = (0..2)
        .map(|_| start_post(&server.base, 10_000, 5_000))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // A third body does not fit: refused at once, before it is read.
    let mut third = start_post(&server.base, 10_000, 0);
    let text = read_all(&mut third);
    assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
    assert!(
        text.contains("(--max-body-bytes-in-flight); retry shortly"),
        "{text}"
    );
    // Requests without bodies, and small bodies, are served meanwhile.
    healthz_ok(&server);
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let (status, text) = raw_post(&server.base, "/mcp/2/library", initialize);
    assert_eq!(status, 200, "{text}");
    // Once the slow clients are gone, their bytes are free again.
    drop(slow);
    std::thread::sleep(Duration::from_millis(300));
    let padded = format!("{}{}", initialize, " ".repeat(9_000));
    let (status, text) = raw_post(&server.base, "/mcp/2/library", &padded);
    assert_eq!(status, 200, "{text}");
}

#[test]
fn connections_beyond_the_cap_are_refused_clearly() {
    let root = demo_root(false);
    // One client address may hold them all here (`hardening_clients.rs` tests its share).
    let server = serve(
        &root,
        &["--max-connections", "8", "--max-client-connections", "8"],
    );
    let idle: Vec<TcpStream> = (0..8).map(|_| connect(&server.base)).collect();
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        let mut refused = connect(&server.base);
        let text = read_all(&mut refused);
        assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
        assert!(
            text.contains(
                "too many connections: this server keeps at most 8 open at once (--max-connections)"
            ),
            "{text}"
        );
    }
    drop(idle);
    std::thread::sleep(Duration::from_millis(300));
    healthz_ok(&server);
}

/// Opens an episode's WebSocket (`/openenv/ws`) by hand and sends the head of a masked text
/// frame of `length` bytes, and `sent` of them.
fn start_frame(base: &str, length: usize, sent: usize) -> TcpStream {
    let mut stream = connect(base);
    stream
        .write_all(
            b"GET /openenv/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n\
              Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
              Sec-WebSocket-Version: 13\r\n\r\n",
        )
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101 "),
        "{:?}",
        String::from_utf8_lossy(&head)
    );
    let mut frame = vec![0x81, 0x80 | 127];
    frame.extend_from_slice(&(length as u64).to_be_bytes());
    frame.extend_from_slice(&[1, 2, 3, 4]);
    stream.write_all(&frame).unwrap();
    stream.write_all(&vec![b' '; sent]).unwrap();
    stream
}

/// Whether the server closed `stream` (it reads end of file or an error within 5 s).
fn closed_by_server(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buffer = [0u8; 64];
    match stream.read(&mut buffer) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

/// Half-sent WebSocket frames of episodes count against `--max-body-bytes-in-flight` with the
/// request bodies: with a 2,200,000-byte budget, four connections each 500,000 bytes into a
/// 900,000-byte frame leave no room for a 300,000-byte body (503) and a fifth connection's
/// frame closes that connection; once they go, the budget is free again.
#[test]
fn half_sent_websocket_frames_count_against_the_body_budget() {
    let root = demo_root(false);
    let log = tempfile::NamedTempFile::new().unwrap();
    let split = crate::common::demo_split();
    let server = Server::start_logging(
        &[
            "--root",
            root.path().to_str().unwrap(),
            "--episodes",
            split.to_str().unwrap(),
            "--max-body-bytes",
            "1000000",
            "--max-body-bytes-in-flight",
            "2200000",
        ],
        log.path(),
    );
    let mut held: Vec<TcpStream> = (0..4)
        .map(|_| start_frame(&server.base, 900_000, 500_000))
        .collect();
    // Once the server has read what was sent, a body that does not fit is refused at once.
    std::thread::sleep(Duration::from_secs(1));
    let mut post = start_post(&server.base, 300_000, 0);
    let text = read_all(&mut post);
    assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
    assert!(text.contains("--max-body-bytes-in-flight"), "{text}");
    let mut fifth = start_frame(&server.base, 900_000, 500_000);
    assert!(
        closed_by_server(&mut fifth),
        "the fifth frame's connection stays open"
    );
    for stream in &mut held {
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut buffer = [0u8; 64];
        let kept = matches!(stream.read(&mut buffer), Err(e)
            if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut));
        assert!(kept, "a connection within the budget was closed");
    }
    healthz_ok(&server);
    drop(held);
    drop(fifth);
    std::thread::sleep(Duration::from_millis(500));
    let mut post = start_post(&server.base, 300_000, 300_000);
    let text = read_all(&mut post);
    assert!(!text.starts_with("HTTP/1.1 503 "), "{text}");
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        logged.contains("an episode's connection was closed")
            && logged.contains("--max-body-bytes-in-flight"),
        "{logged}"
    );
}

//! One tenant must not stall the others: while one MCP session runs the slowest calls we can
//! build (capability 1's `like` with 300,000 `%`, `contains` with a backreference over
//! concatenated tables, BPO's fuzzy matching of a 3.9 MB unknown requisition id), other
//! sessions, the REST API and `/healthz` keep answering, the busy session's own `tools/list`
//! waits without a thread, and the slow call is stopped at `--call-time-limit` with its text.
//! With eight such calls of one client at once, the same holds, and another client's call gets
//! its turn (`--sql-threads`, `--client-call-threads`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{Server, busy_core_turn, demo_root, http_session, try_call};
use serde_json::{Value, json};
use vakra_test_kit::http::get;
use vakra_test_kit::mcp::McpClient;

/// The per-call time limit of the server under test.
const LIMIT_SECS: u64 = 4;
/// How long any probe of another tenant may take while slow calls run: generous, as CI
/// machines are shared (the measured figures are in docs/benchmarks.md).
const PROBE_BOUND: Duration = Duration::from_secs(2);

const TIME_LIMIT_TEXT: &str = "Error: this call did not finish within 4 s, this server's time limit for one tool call (--call-time-limit), and was stopped; ask for less work";

fn handle(peek: &str) -> String {
    let value: Value = serde_json::from_str(peek).unwrap_or_else(|e| panic!("{e}: {peek}"));
    value["handle"].as_str().unwrap().to_owned()
}

/// A capability-1 session holding the demo's books concatenated `doublings` times.
async fn many_books(server: &Server, doublings: usize) -> (McpClient, String) {
    let client = http_session(server, "1", "library").await;
    let (peek, _) = try_call(&client, "get_data", json!({})).await.unwrap();
    let mut books = handle(&peek);
    for _ in 0..doublings {
        let (peek, is_error) = try_call(
            &client,
            "concatenate_data",
            json!({"data_label_1": books, "data_label_2": books}),
        )
        .await
        .unwrap();
        assert!(!is_error, "{peek}");
        books = handle(&peek);
    }
    (client, books)
}

/// An MCP session at `/mcp/<capability>/<domain>` of `server`, whose connections come from the
/// loopback address `from` (another client than the tests' usual 127.0.0.1).
async fn session_from(server: &Server, from: &str, capability: &str, domain: &str) -> McpClient {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let http = reqwest::Client::builder()
        .local_address(from.parse::<std::net::IpAddr>().unwrap())
        .build()
        .unwrap();
    let url = format!("{}/mcp/{capability}/{domain}", server.base);
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url),
    );
    ().serve(transport).await.expect("the MCP handshake")
}

/// Every other tenant answers within [`PROBE_BOUND`]: `/healthz`, REST, new sessions of
/// capabilities 1 to 4 (initialize and list), and a call of another client; returns the
/// slowest probe.
async fn probe_others(server: &Server) -> Duration {
    let mut slowest = Duration::ZERO;
    let mut timed = |what: &str, started: Instant| {
        let took = started.elapsed();
        assert!(took < PROBE_BOUND, "{what} took {took:?} while a call ran");
        slowest = slowest.max(took);
    };
    let started = Instant::now();
    let (status, _, _) = get(&format!("{}/healthz", server.base)).await;
    assert_eq!(status, 200);
    timed("/healthz", started);

    let started = Instant::now();
    let (status, _, body) = get(&format!(
        "{}/v1/library/most_borrowed_books?limit=2",
        server.base
    ))
    .await;
    assert_eq!(status, 200, "{body}");
    timed("a REST request", started);

    for (capability, domain) in [
        ("1", "library"),
        ("2", "library"),
        ("3", "bpo"),
        ("4", "library"),
    ] {
        let started = Instant::now();
        let other = http_session(server, capability, domain).await;
        let tools = other.list_all_tools().await.unwrap();
        assert!(!tools.is_empty());
        timed(&format!("a new capability-{capability} session"), started);
        other.cancel().await.unwrap();
    }

    let started = Instant::now();
    let neighbour = session_from(server, "127.0.0.2", "1", "library").await;
    let (peek, _) = try_call(&neighbour, "get_data", json!({})).await.unwrap();
    assert!(peek.starts_with("{\"handle\": "), "{peek}");
    timed("another client's capability-1 call", started);
    neighbour.cancel().await.unwrap();
    slowest
}

/// Starts `tool(arguments)` on `client`, probes the other tenants while it runs, then checks
/// that it was stopped at the limit. Also lists the busy session's tools twice meanwhile.
async fn stalls_nobody(server: &Server, client: McpClient, tool: &str, arguments: Value) {
    let client = Arc::new(client);
    let started = Instant::now();
    let slow = {
        let (client, tool) = (Arc::clone(&client), tool.to_owned());
        tokio::spawn(async move { try_call(&client, &tool, arguments).await })
    };
    let listings: Vec<_> = (0..2)
        .map(|_| {
            let client = Arc::clone(&client);
            tokio::spawn(async move { client.list_all_tools().await.map(|t| t.len()) })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let slowest = probe_others(server).await;
    let (text, is_error) = slow.await.unwrap().unwrap();
    let took = started.elapsed();
    eprintln!("{tool}: answered after {took:?}; slowest probe meanwhile {slowest:?}");
    assert!(is_error, "{text}");
    assert_eq!(text, TIME_LIMIT_TEXT);
    assert!(
        took < Duration::from_secs(LIMIT_SECS + 3),
        "stopped late: {took:?}"
    );
    for listing in listings {
        assert!(listing.await.unwrap().unwrap() > 0);
    }
    // The session works on afterwards.
    let (text, is_error) = try_call(&client, "get_data", json!({})).await.unwrap();
    assert!(!is_error, "{text}");
}

fn serve() -> (tempfile::TempDir, Server) {
    let root = demo_root(false);
    let limit = LIMIT_SECS.to_string();
    let server = Server::start(&[
        "--root",
        root.path().to_str().unwrap(),
        "--call-time-limit",
        &limit,
    ]);
    (root, server)
}

#[tokio::test]
async fn a_like_of_300000_percent_signs_stalls_nobody() {
    let _turn = busy_core_turn().await;
    let (_root, server) = serve();
    let (client, books) = many_books(&server, 2).await;
    let pattern = "%".repeat(300_000);
    let arguments =
        json!({"data_label": books, "key_name": "title", "value": pattern, "condition": "like"});
    stalls_nobody(&server, client, "filter_data", arguments).await;
}

/// Eight sessions of one client each run the slowest `like` at once (more than `--sql-threads`):
/// the client holds its share of the threads (`--client-call-threads`, half by default), the
/// log says so, every other tenant answers as with one slow call, and all eight calls are
/// answered with the time-limit text at the limit (those that never got a thread included).
#[tokio::test]
async fn eight_slow_sessions_of_one_client_stall_nobody() {
    let _turn = busy_core_turn().await;
    let root = demo_root(false);
    let log = tempfile::NamedTempFile::new().unwrap();
    let server = Server::start_logging(
        &[
            "--root",
            root.path().to_str().unwrap(),
            "--call-time-limit",
            &LIMIT_SECS.to_string(),
            "--sql-threads",
            "4",
        ],
        log.path(),
    );
    let pattern = "%".repeat(300_000);
    let mut sessions = Vec::new();
    for _ in 0..8 {
        sessions.push(many_books(&server, 2).await);
    }
    let started = Instant::now();
    let slow: Vec<_> = sessions
        .into_iter()
        .map(|(client, books)| {
            let arguments = json!({"data_label": books, "key_name": "title",
                "value": pattern, "condition": "like"});
            tokio::spawn(async move { try_call(&client, "filter_data", arguments).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let slowest = probe_others(&server).await;
    for call in slow {
        let (text, is_error) = call.await.unwrap().unwrap();
        assert!(is_error, "{text}");
        assert_eq!(text, TIME_LIMIT_TEXT);
    }
    let took = started.elapsed();
    eprintln!("eight slow calls answered after {took:?}; slowest probe meanwhile {slowest:?}");
    assert!(
        took < Duration::from_secs(LIMIT_SECS + 3),
        "stopped late: {took:?}"
    );
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        logged.contains("127.0.0.1 holds all 2 lanes one client may hold (--client-call-threads)"),
        "{logged}"
    );
}

/// The same with eight RL episodes (`--episodes`) each running that `like` as a step: the
/// probes answer within the bound, and every episode gets the time-limit text as its
/// observation and goes on.
#[tokio::test]
async fn eight_slow_episodes_stall_nobody() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let _turn = busy_core_turn().await;
    let root = demo_root(false);
    let split = crate::common::demo_split();
    let server = Server::start(&[
        "--root",
        root.path().to_str().unwrap(),
        "--call-time-limit",
        &LIMIT_SECS.to_string(),
        "--episodes",
        split.to_str().unwrap(),
    ]);
    let url = format!("{}/openenv/ws", server.base.replace("http://", "ws://"));
    async fn exchange<S>(socket: &mut S, message: Value) -> Value
    where
        S: futures_util::Sink<Message>
            + futures_util::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>>
            + Unpin,
        <S as futures_util::Sink<Message>>::Error: std::fmt::Debug,
    {
        socket
            .send(Message::Text(message.to_string().into()))
            .await
            .unwrap();
        loop {
            match socket.next().await {
                Some(Ok(Message::Text(text))) => {
                    let answer: Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(answer["type"], "observation", "{answer}");
                    return answer["data"].clone();
                }
                Some(Ok(_)) => continue,
                other => panic!("the episode ended: {other:?}"),
            }
        }
    }
    let call = |tool: &str, arguments: Value| json!({"type": "step", "data": {"type": "call_tool", "tool_name": tool, "arguments": arguments}});
    let text_of = |observation: &Value| {
        let result = &observation["observation"]["result"];
        (
            result["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            result["isError"].as_bool().unwrap_or(false),
        )
    };
    let mut episodes = Vec::new();
    for _ in 0..8 {
        let (mut socket, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let reset = exchange(
            &mut socket,
            json!({"type": "reset", "data": {"uuid": "11b7a0c0ffee-000000000001"}}),
        )
        .await;
        let mut books = reset["observation"]["universe"]["handle"]
            .as_str()
            .unwrap_or_else(|| panic!("{reset}"))
            .to_owned();
        for _ in 0..2 {
            let step = exchange(
                &mut socket,
                call(
                    "concatenate_data",
                    json!({"data_label_1": books, "data_label_2": books}),
                ),
            )
            .await;
            let (peek, is_error) = text_of(&step);
            assert!(!is_error, "{step}");
            books = handle(&peek);
        }
        episodes.push((socket, books));
    }
    let pattern = "%".repeat(300_000);
    let started = Instant::now();
    let slow: Vec<_> = episodes
        .into_iter()
        .map(|(mut socket, books)| {
            let like = call(
                "filter_data",
                json!({"data_label": books, "key_name": "title",
                "value": pattern, "condition": "like"}),
            );
            let list = json!({"type": "step", "data": {"type": "list_tools"}});
            tokio::spawn(async move {
                let answer = exchange(&mut socket, like).await;
                let after = exchange(&mut socket, list).await;
                (answer, after)
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let slowest = probe_others(&server).await;
    for episode in slow {
        let (answer, after) = episode.await.unwrap();
        assert_eq!(
            text_of(&answer),
            (TIME_LIMIT_TEXT.to_owned(), true),
            "{answer}"
        );
        assert_eq!(after["done"], false, "{after}");
    }
    let took = started.elapsed();
    eprintln!(
        "eight slow episode steps answered after {took:?}; slowest probe meanwhile {slowest:?}"
    );
    assert!(
        took < Duration::from_secs(LIMIT_SECS + 3),
        "stopped late: {took:?}"
    );
}

#[tokio::test]
async fn a_backreference_over_concatenated_tables_stalls_nobody() {
    let _turn = busy_core_turn().await;
    let (_root, server) = serve();
    let (client, books) = many_books(&server, 8).await;
    let arguments = json!({"data_label": books, "key_name": "title",
        "value": "(.*)(.*)\\1Q", "condition": "contains"});
    stalls_nobody(&server, client, "filter_data", arguments).await;
}

#[tokio::test]
async fn fuzzy_matching_a_huge_unknown_id_stalls_nobody() {
    let _turn = busy_core_turn().await;
    let (_root, server) = serve();
    let client = http_session(&server, "3", "bpo").await;
    let id = "7Q".repeat(1_950_000);
    let arguments = json!({"requisition_id": id});
    let client = Arc::new(client);
    let started = Instant::now();
    let slow = {
        let client = Arc::clone(&client);
        tokio::spawn(async move {
            try_call(
                &client,
                "candidate_source_candidate_pipeline_status",
                arguments,
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let slowest = probe_others(&server).await;
    let (text, _) = slow.await.unwrap().unwrap();
    eprintln!(
        "bpo: answered after {:?} ({} bytes); slowest probe meanwhile {slowest:?}",
        started.elapsed(),
        text.len()
    );
    assert!(started.elapsed() < Duration::from_secs(LIMIT_SECS + 3));
}

/// Idle expiry never ends a session with a call in flight: with sessions idle after 1 s and a
/// call of about 4 s (stopped at the time limit), the caller still gets its answer and the
/// session lives on.
#[tokio::test]
async fn idle_expiry_waits_for_the_call_in_flight() {
    let _turn = busy_core_turn().await;
    let root = demo_root(false);
    let limit = LIMIT_SECS.to_string();
    let server = Server::start(&[
        "--root",
        root.path().to_str().unwrap(),
        "--call-time-limit",
        &limit,
        "--session-idle-secs",
        "1",
    ]);
    let (client, books) = many_books(&server, 2).await;
    let pattern = "%".repeat(300_000);
    let arguments =
        json!({"data_label": books, "key_name": "title", "value": pattern, "condition": "like"});
    let (text, is_error) = try_call(&client, "filter_data", arguments).await.unwrap();
    assert!(is_error);
    assert_eq!(text, TIME_LIMIT_TEXT);
    let (text, is_error) = try_call(&client, "get_data", json!({})).await.unwrap();
    assert!(!is_error, "{text}");
}

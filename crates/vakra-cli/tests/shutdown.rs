//! SIGTERM to `vakra serve` while calls are in flight: the calls are answered, the process
//! exits with 0 although MCP sessions are still open, and a restart on the same address serves
//! at once.

use std::time::{Duration, Instant};

use crate::common::{Server, http_session, slow_root, try_call};
use serde_json::json;

/// `n` for `count_to` that keeps SQLite busy for roughly `target` on this machine.
async fn calibrated_count(base: &str, target: Duration) -> u64 {
    let n = 2_000_000u64;
    let started = Instant::now();
    let (status, _, _) = vakra_test_kit::http::get(&format!("{base}/v1/slow/count_to?n={n}")).await;
    assert_eq!(status, 200);
    let per_unit = started.elapsed().as_secs_f64() / n as f64;
    (target.as_secs_f64() / per_unit) as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_calls_in_flight_and_exits_cleanly() {
    let root = slow_root();
    let root_arg = root.path().to_str().unwrap();
    let mut server = Server::start(&["--root", root_arg]);
    let n = calibrated_count(&server.base, Duration::from_millis(1500)).await;

    // One slow MCP call and one slow REST request in flight, and an idle MCP session open.
    let idle = http_session(&server, "2", "slow").await;
    let busy = http_session(&server, "2", "slow").await;
    let mcp_call = tokio::spawn(async move {
        let answer = try_call(&busy, "get_count_to", json!({"n": n})).await;
        (answer, busy)
    });
    let rest_url = format!("{}/v1/slow/count_to?n={n}", server.base);
    let rest_call = tokio::spawn(async move { vakra_test_kit::http::get(&rest_url).await });
    tokio::time::sleep(Duration::from_millis(300)).await;

    let signalled = Instant::now();
    let status = tokio::task::block_in_place(|| server.terminate(Duration::from_secs(20)));
    assert!(status.success(), "exit status {status:?}");
    let (answer, busy) = tokio::time::timeout(Duration::from_secs(10), mcp_call)
        .await
        .expect("the MCP call in flight gets an answer")
        .unwrap();
    let (text, is_error) = answer.expect("the MCP call in flight is answered");
    assert!(!is_error, "{text}");
    assert!(text.contains(&format!("\"count\": {n}")), "{text}");
    let (status, _, body) = rest_call.await.unwrap();
    assert_eq!((status, body), (200, format!(r#"{{"count":{n}}}"#)));
    assert!(
        signalled.elapsed() < Duration::from_secs(15),
        "{:?}",
        signalled.elapsed()
    );
    drop((idle, busy));

    // A restart on the same address answers at once.
    let address = server.base.strip_prefix("http://").unwrap().to_owned();
    let started = Instant::now();
    let restarted = Server::start_at(&["--root", root_arg], &address);
    let (status, _, _) = vakra_test_kit::http::get(&format!("{}/healthz", restarted.base)).await;
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_beyond_the_grace_period_are_cut_off() {
    let root = slow_root();
    let root_arg = root.path().to_str().unwrap();
    let mut server = Server::start(&[
        "--root",
        root_arg,
        "--shutdown-grace-secs",
        "1",
        "--sql-time-limit",
        "600",
    ]);
    // A statement of about a minute, as an MCP call and as a REST request.
    let n = calibrated_count(&server.base, Duration::from_secs(60)).await;
    let busy = http_session(&server, "2", "slow").await;
    let mcp_call = tokio::spawn(async move {
        let answer = try_call(&busy, "get_count_to", json!({"n": n})).await;
        drop(busy);
        answer
    });
    let rest_url = format!("{}/v1/slow/count_to?n={n}", server.base);
    // `get` panics when the connection is lost: the task's result is then an error.
    let rest_call = tokio::spawn(async move { vakra_test_kit::http::get(&rest_url).await });
    tokio::time::sleep(Duration::from_millis(500)).await;

    // The process exits soon after the grace period (1 s, plus 2 s to send answers and stop
    // blocking work), not when the statements end.
    let signalled = Instant::now();
    let status = tokio::task::block_in_place(|| server.terminate(Duration::from_secs(20)));
    let took = signalled.elapsed();
    assert!(status.success(), "exit status {status:?}");
    assert!(took < Duration::from_secs(6), "{took:?}");
    // The REST request lost its connection instead of getting a count.
    let rest = tokio::time::timeout(Duration::from_secs(10), rest_call)
        .await
        .expect("the REST request ends with the server");
    assert!(!matches!(&rest, Ok((200, _, _))), "{rest:?}");
    mcp_call.abort();
}

//! Statements run on the async worker within a short budget; one that outlasts it is stopped
//! and run again on a blocking thread. Both paths must answer the same, and a slow statement
//! must not keep other requests from being answered meanwhile.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;
use vakra_endpoint::RestBird;

/// A data root with one domain whose endpoint counts to `n` in a recursive CTE: a few
/// microseconds for a small `n`, far beyond the inline budget for millions.
fn counting_root() -> (tempfile::TempDir, Arc<RestBird>) {
    let dir = tempfile::tempdir().unwrap();
    let openapi = dir.path().join("openapi");
    std::fs::create_dir_all(&openapi).unwrap();
    std::fs::write(
        openapi.join("domains.json"),
        json!({"domains": ["counting"]}).to_string(),
    )
    .unwrap();
    let operation = json!({
        "operationId": "get_count",
        "parameters": [{
            "name": "n", "in": "query", "required": true,
            "schema": {"type": "integer", "title": "N"}
        }],
        "responses": {"200": {"description": "Successful Response"}},
        "x-vakra": {
            "sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*), max(x) FROM c",
            "binds": ["n"],
            "fetch": "one",
            "result": "result",
            "empty": {"count": 0},
            "response": "{'count': result[0], 'last': result[1]}"
        }
    });
    std::fs::write(
        openapi.join("counting.json"),
        json!({
            "openapi": "3.1.0",
            "info": {"title": "counting", "version": "1"},
            "paths": {"/v1/counting/count": {"get": operation}},
            "x-vakra-domain": {"name": "counting"}
        })
        .to_string(),
    )
    .unwrap();
    let db_dir = dir.path().join("databases").join("counting");
    std::fs::create_dir_all(&db_dir).unwrap();
    rusqlite::Connection::open(db_dir.join("counting.sqlite"))
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER);")
        .unwrap();
    let bird = crate::load_bird(dir.path(), Duration::from_secs(30));
    (dir, bird)
}

async fn get(app: &axum::Router, uri: &str) -> (StatusCode, String) {
    let response = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statements_past_the_inline_budget_are_answered_from_a_blocking_thread() {
    let (_dir, bird) = counting_root();
    let app = vakra_rest::router(vakra_rest::RestApi::new(bird));

    let (status, body) = get(&app, "/v1/counting/count?n=10").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, r#"{"count":10,"last":10}"#);

    // Millions of rows take far longer than the budget: the first run is stopped, the second
    // one answers in full.
    let started = Instant::now();
    let (status, body) = get(&app, "/v1/counting/count?n=3000000").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, r#"{"count":3000000,"last":3000000}"#);
    assert!(
        started.elapsed() > Duration::from_millis(2),
        "the statement was expected to outlast the budget"
    );

    // While a slow statement runs (on a blocking thread), short requests are still answered.
    let slow = tokio::spawn({
        let app = app.clone();
        async move { get(&app, "/v1/counting/count?n=6000000").await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    for n in 1..=5 {
        let (status, body) = get(&app, &format!("/v1/counting/count?n={n}")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, format!(r#"{{"count":{n},"last":{n}}}"#));
    }
    let (status, body) = slow.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, r#"{"count":6000000,"last":6000000}"#);
}

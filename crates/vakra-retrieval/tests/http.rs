//! The retriever HTTP API: FastAPI's bodies and statuses.

use std::sync::Arc;

use crate::common::RetrievalRoot;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;
use vakra_retrieval::{Retrievers, build_indexes, http_router};
use vakra_test_kit::root::TempRoot;

struct Reply {
    status: StatusCode,
    content_type: String,
    body: String,
}

async fn send(router: &axum::Router, method: &str, uri: &str, body: &str) -> Reply {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .expect("request");
    let response = router.clone().oneshot(request).await.expect("response");
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("body");
    Reply {
        status,
        content_type,
        body: String::from_utf8(bytes.to_vec()).expect("utf-8"),
    }
}

fn router() -> (TempRoot, axum::Router) {
    router_with(vakra_lanes::Lanes::unshared("retriever searches"))
}

fn router_with(lanes: Arc<vakra_lanes::Lanes>) -> (TempRoot, axum::Router) {
    let root = TempRoot::new().with_demo_data();
    build_indexes(&root.data_root(), false).expect("build");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    (root, http_router(Arc::new(retrievers), lanes))
}

/// Searches run in the lanes they are given (`vakra serve` gives REST's): while the only lane
/// is taken, a search waits; once it is free, the search is answered.
#[tokio::test]
async fn searches_wait_for_a_lane() {
    let lanes = vakra_lanes::Lanes::new("retriever searches", ("", ""), 1, 1);
    let (_root, router) = router_with(Arc::clone(&lanes));
    let held = lanes.enter(None).await;
    let body = r#"{"question": "branch", "n_results": 1}"#;
    let waiting = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        send(&router, "POST", "/library/query", body),
    )
    .await;
    assert!(waiting.is_err(), "answered without a lane");
    drop(held);
    let reply = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        send(&router, "POST", "/library/query", body),
    )
    .await
    .expect("answered once the lane is free");
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
}

#[tokio::test]
async fn health_domains_and_query() {
    let (_root, router) = router();
    let health = send(&router, "GET", "/health", "").await;
    assert_eq!(
        (health.status, health.body.as_str()),
        (StatusCode::OK, r#"{"status":"ok"}"#)
    );
    let domains = send(&router, "GET", "/domains", "").await;
    assert_eq!(
        domains.body,
        r#"{"domains":["library","weather","weather_alerts"],"count":3}"#
    );
    let reply = send(
        &router,
        "POST",
        "/weather/query",
        r#"{"question": "Reykjavík harbour breakwater", "n_results": 2}"#,
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type, "application/json");
    // Compact, raw UTF-8 (Starlette's JSONResponse).
    assert!(
        reply.body.starts_with(
            r#"{"results":[{"id":"station-rek01_14","text":"Station REK01 Reykjavík Harbour\n"#
        ),
        "{}",
        reply.body
    );
    let value: Value = serde_json::from_str(&reply.body).expect("json");
    assert_eq!(value["results"].as_array().map(Vec::len), Some(2));
    // The default n_results is 10.
    let reply = send(
        &router,
        "POST",
        "/library/query",
        r#"{"question": "branch"}"#,
    )
    .await;
    let value: Value = serde_json::from_str(&reply.body).expect("json");
    assert_eq!(value["results"].as_array().map(Vec::len), Some(10));
}

#[tokio::test]
async fn validation_errors_are_fastapis_422s() {
    let (_root, router) = router();
    let cases = [
        (
            r#"{}"#,
            json!([{"type": "missing", "loc": ["body", "question"], "msg": "Field required", "input": {}}]),
        ),
        (
            "",
            json!([{"type": "missing", "loc": ["body"], "msg": "Field required", "input": null}]),
        ),
        (
            "nope",
            json!([{"type": "json_invalid", "loc": ["body", 0], "msg": "JSON decode error", "input": {}, "ctx": {"error": "Expecting value"}}]),
        ),
        (
            "[1]",
            json!([{"type": "model_attributes_type", "loc": ["body"], "msg": "Input should be a valid dictionary or object to extract fields from", "input": [1]}]),
        ),
        (
            r#"{"question": 5}"#,
            json!([{"type": "string_type", "loc": ["body", "question"], "msg": "Input should be a valid string", "input": 5}]),
        ),
        (
            r#"{"question": "q", "n_results": 2.5}"#,
            json!([{"type": "int_from_float", "loc": ["body", "n_results"], "msg": "Input should be a valid integer, got a number with a fractional part", "input": 2.5}]),
        ),
        (
            r#"{"question": "q", "n_results": 1e20}"#,
            json!([{"type": "int_parsing_size", "loc": ["body", "n_results"], "msg": "Unable to parse input string as an integer, exceeded maximum size", "input": 1e20}]),
        ),
        (
            r#"{"n_results": [1]}"#,
            json!([
            {"type": "missing", "loc": ["body", "question"], "msg": "Field required", "input": {"n_results": [1]}},
            {"type": "int_type", "loc": ["body", "n_results"], "msg": "Input should be a valid integer", "input": [1]}]),
        ),
    ];
    for (body, detail) in cases {
        let reply = send(&router, "POST", "/library/query", body).await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let value: Value = serde_json::from_str(&reply.body).expect("json");
        assert_eq!(value, json!({"detail": detail}), "{body}");
    }
    // Lax integers pass.
    for body in [
        r#"{"question": "q", "n_results": "3"}"#,
        r#"{"question": "q", "n_results": true}"#,
    ] {
        assert_eq!(
            send(&router, "POST", "/library/query", body).await.status,
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn chroma_refusals_are_500s_and_unknown_routes_404s() {
    let (_root, router) = router();
    for body in [
        r#"{"question": "q", "n_results": 0}"#,
        r#"{"question": "q", "n_results": false}"#,
        // Integers beyond 64 bits are Python ints: pydantic takes them, Chroma does not.
        r#"{"question": "q", "n_results": 100000000000000000000}"#,
        r#"{"question": "q", "n_results": -18446744073709551616}"#,
    ] {
        let reply = send(&router, "POST", "/library/query", body).await;
        assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(reply.body, "Internal Server Error");
        assert_eq!(reply.content_type, "text/plain; charset=utf-8");
    }
    let reply = send(&router, "POST", "/nowhere/query", r#"{"question": "q"}"#).await;
    assert_eq!(
        (reply.status, reply.body.as_str()),
        (StatusCode::NOT_FOUND, r#"{"detail":"Not Found"}"#)
    );
    let reply = send(&router, "GET", "/library/query", "").await;
    assert_eq!(
        (reply.status, reply.body.as_str()),
        (
            StatusCode::METHOD_NOT_ALLOWED,
            r#"{"detail":"Method Not Allowed"}"#
        )
    );
    let reply = send(&router, "POST", "/health", "").await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
}

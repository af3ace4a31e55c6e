//! The reference's retriever HTTP API (its port 8001): `GET /health`, `GET /domains` and
//! `POST /<domain>/query`, with FastAPI's bodies and statuses.

use std::sync::Arc;

use axum::Extension;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::{Value, json};
use vakra_lanes::{Client, Lanes};
use vakra_pytext::DumpOptions;

use crate::request::{self, QueryBody};
use crate::search::results_json;
use crate::{RetrievalError, Retrievers};

/// The retriever routes, to be merged into `vakra serve`. Only domains with a finished index
/// have a `/query` route (the reference registers one per Chroma collection); others are 404.
pub fn http_router(retrievers: Arc<Retrievers>, lanes: Arc<Lanes>) -> Router {
    Router::new()
        .route("/health", get(health).fallback(method_not_allowed))
        .route("/domains", get(domains).fallback(method_not_allowed))
        .route("/{domain}/query", any(query))
        .with_state(Api { retrievers, lanes })
}

/// What the routes share: the retrievers, and the lanes their searches run in (a dense search
/// embeds the question, up to seconds of CPU for a long one), at most a share of them per
/// client, so that one client's searches cannot take every thread.
#[derive(Clone)]
struct Api {
    retrievers: Arc<Retrievers>,
    lanes: Arc<Lanes>,
}

async fn health() -> Response {
    json_response(StatusCode::OK, &json!({"status": "ok"}))
}

async fn domains(State(api): State<Api>) -> Response {
    domains_response(tokio::task::spawn_blocking(move || api.retrievers.indexed_domains()).await)
}

/// The `/domains` body, or a 500 when listing the indexes failed (never an empty list, which
/// would claim that no domain is served).
fn domains_response(listed: Result<Vec<String>, tokio::task::JoinError>) -> Response {
    match listed {
        Ok(list) => {
            let count = list.len();
            json_response(StatusCode::OK, &json!({"domains": list, "count": count}))
        }
        Err(e) => {
            tracing::error!("listing the retriever domains failed: {e}");
            internal_error()
        }
    }
}

async fn query(
    State(Api { retrievers, lanes }): State<Api>,
    client: Option<Extension<Client>>,
    Path(domain): Path<String>,
    method: Method,
    body: Bytes,
) -> Response {
    if !retrievers.index_exists(&domain) {
        return json_response(StatusCode::NOT_FOUND, &json!({"detail": "Not Found"}));
    }
    if method != Method::POST {
        let mut response = method_not_allowed().await;
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    let parsed = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Null) => None,
            Ok(value) => Some(value),
            Err(_) => return unprocessable(request::json_error_details()),
        }
    };
    let QueryBody {
        question,
        n_results,
    } = match request::parse_body(parsed.as_ref(), request::large_numbers_in(&body)) {
        Ok(body) => body,
        Err(details) => return unprocessable(details),
    };
    let lane = lanes.enter(client.map(|Extension(c)| c)).await;
    let outcome = tokio::task::spawn_blocking(move || {
        let _lane = lane;
        retrievers.query(&domain, &question, n_results)
    })
    .await;
    match outcome {
        Ok(Ok(results)) => json_response(StatusCode::OK, &results_json(&results)),
        Ok(Err(RetrievalError::MissingIndex { .. })) => {
            json_response(StatusCode::NOT_FOUND, &json!({"detail": "Not Found"}))
        }
        Ok(Err(e)) => {
            if !matches!(e, RetrievalError::InvalidNResults(_)) {
                tracing::error!("retriever query failed: {e}");
            }
            internal_error()
        }
        Err(e) => {
            tracing::error!("retriever query task failed: {e}");
            internal_error()
        }
    }
}

async fn method_not_allowed() -> Response {
    json_response(
        StatusCode::METHOD_NOT_ALLOWED,
        &json!({"detail": "Method Not Allowed"}),
    )
}

fn unprocessable(details: Vec<Value>) -> Response {
    json_response(
        StatusCode::UNPROCESSABLE_ENTITY,
        &json!({"detail": details}),
    )
}

fn internal_error() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "Internal Server Error",
    )
        .into_response()
}

/// Starlette's `JSONResponse` body: compact, raw UTF-8.
fn json_response(status: StatusCode, body: &Value) -> Response {
    match vakra_pytext::dumps(body, &DumpOptions::compact_utf8()) {
        Ok(text) => (status, [(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(_) => internal_error(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(response: Response) -> (StatusCode, String) {
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("body");
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[tokio::test]
    async fn a_failed_domain_listing_is_a_500_not_an_empty_list() {
        let failed =
            tokio::task::spawn_blocking(|| -> Vec<String> { panic!("read_dir blew up") }).await;
        assert_eq!(
            body(domains_response(failed)).await,
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "Internal Server Error".to_owned()
            )
        );
        let listed = tokio::task::spawn_blocking(|| vec!["a".to_owned()]).await;
        assert_eq!(
            body(domains_response(listed)).await,
            (StatusCode::OK, r#"{"domains":["a"],"count":1}"#.to_owned())
        );
    }
}

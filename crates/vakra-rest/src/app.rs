use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Extension;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use vakra_endpoint::{Outcome, RestBird, validation_body};
use vakra_lanes::{Client, Lanes};
use vakra_pytext::DumpOptions;

use crate::metrics::{Counted, Metrics};

/// How much CPU time a request's statement may take on the async worker that received it
/// before it is run again on a blocking thread (`dispatch`), and how long it may take there
/// at most (waiting for pages read from disk costs no CPU time).
const INLINE_BUDGET: Duration = Duration::from_millis(2);
const INLINE_WALL: Duration = Duration::from_millis(20);

/// The state behind the REST routes: the loaded endpoints, the rendered OpenAPI document and
/// the lanes in which requests run their statements.
pub struct RestApi {
    bird: Arc<RestBird>,
    lanes: Arc<Lanes>,
    openapi: OnceLock<String>,
    metrics: Metrics,
}

impl RestApi {
    /// Serves the endpoints of `bird`, with as many statements at once as tokio's default pool.
    pub fn new(bird: Arc<RestBird>) -> Arc<Self> {
        Self::with_lanes(bird, Lanes::unshared("REST requests"))
    }

    /// Serves the endpoints of `bird`, each request's statement in a lane of `lanes` (lanes of
    /// REST's own, so that REST never waits behind tool calls, and one client's requests
    /// never keep another's from their turn).
    pub fn with_lanes(bird: Arc<RestBird>, lanes: Arc<Lanes>) -> Arc<Self> {
        Arc::new(Self {
            bird,
            lanes,
            openapi: OnceLock::new(),
            metrics: Metrics::default(),
        })
    }

    /// The endpoints being served.
    pub fn bird(&self) -> &Arc<RestBird> {
        &self.bird
    }
}

/// The REST routes; the fallback handles every catalog path.
pub fn router(api: Arc<RestApi>) -> Router {
    Router::new()
        .route("/openapi.json", get(openapi_all))
        .route("/openapi/{file}", get(openapi_domain))
        .route(
            "/healthz",
            get(|| async { json_response(StatusCode::OK, &json!({"status": "ok"})) }),
        )
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .fallback(dispatch)
        .with_state(api)
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    match vakra_pytext::dumps(body, &DumpOptions::compact_utf8()) {
        Ok(text) => (status, [(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(_) => internal_error(),
    }
}

/// The reference's answer to any exception in a handler.
fn internal_error() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "Internal Server Error",
    )
        .into_response()
}

fn not_found() -> Response {
    json_response(StatusCode::NOT_FOUND, &json!({"detail": "Not Found"}))
}

async fn openapi_all(State(api): State<Arc<RestApi>>) -> Response {
    let text = api.openapi.get_or_init(|| {
        vakra_catalog::merged_openapi_json(api.bird.endpoints().iter().map(|e| e.operation()))
    });
    ([(header::CONTENT_TYPE, "application/json")], text.clone()).into_response()
}

async fn openapi_domain(State(api): State<Arc<RestApi>>, Path(file): Path<String>) -> Response {
    let Some(domain) = file.strip_suffix(".json") else {
        return not_found();
    };
    let Some(loaded) = api.bird.domains().iter().find(|d| d.name == domain) else {
        return not_found();
    };
    let operations = api
        .bird
        .domain_endpoints(loaded)
        .iter()
        .map(|e| e.operation());
    (
        [(header::CONTENT_TYPE, "application/json")],
        vakra_catalog::merged_openapi_json(operations),
    )
        .into_response()
}

async fn readyz(State(api): State<Arc<RestApi>>) -> Response {
    let databases = api.bird.databases();
    let missing: Vec<&str> = api
        .bird
        .domains()
        .iter()
        .map(|d| d.name.as_str())
        .filter(|d| databases.get(d).map(|db| !db.exists()).unwrap_or(true))
        .collect();
    json_response(
        StatusCode::OK,
        &json!({
            "status": "ready",
            "domains": api.bird.domains().len(),
            "endpoints": api.bird.endpoints().len(),
            "databases_missing": missing,
        }),
    )
}

async fn metrics(State(api): State<Arc<RestApi>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        api.metrics.render(),
    )
        .into_response()
}

async fn dispatch(
    State(api): State<Arc<RestApi>>,
    client: Option<Extension<Client>>,
    method: Method,
    uri: Uri,
) -> Response {
    let path = percent_encoding::percent_decode_str(uri.path()).decode_utf8_lossy();
    let Some(endpoint) = api.bird.find(&path).cloned() else {
        return redirect_or_not_found(&api, &path, &uri);
    };
    // FastAPI's GET routes take GET only (HEAD too is 405, unlike a plain Starlette route).
    if method != Method::GET {
        let mut response = json_response(
            StatusCode::METHOD_NOT_ALLOWED,
            &json!({"detail": "Method Not Allowed"}),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET"));
        return response;
    }
    let query: Vec<(String, String)> = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .into_owned()
        .collect();
    let lane = api.lanes.enter(client.map(|Extension(c)| c)).await;
    // Nearly every statement takes well under a millisecond: it runs here, on the worker, within
    // INLINE_BUDGET of CPU time, which saves the two thread switches of a hand-over to a
    // blocking thread (a fifth of the server's time under load). A statement that outlasts the
    // budget is stopped and run again, from the start, on a blocking thread with the whole time
    // limit: the databases are read-only, so the first run left nothing behind and no client
    // saw it. The budget counts CPU time, not wall time, so that a worker descheduled by other
    // processes on its core (or a container's CPU quota) does not throw away finished work.
    let budget = vakra_interrupt::Interrupt::on_cpu(INLINE_BUDGET, INLINE_WALL);
    let outcome = match budget.run(|| api.bird.execute_json(&endpoint, &query)) {
        Outcome::Failed(_) if budget.is_stopped() => {
            let bird = Arc::clone(&api.bird);
            tokio::task::spawn_blocking(move || {
                let _lane = lane;
                bird.execute_json(&endpoint, &query)
            })
            .await
        }
        done => Ok(done),
    };
    match outcome {
        Ok(Outcome::Ok(body)) => {
            api.metrics.count(Counted::Ok);
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response()
        }
        Ok(Outcome::Invalid(errors)) => {
            api.metrics.count(Counted::Invalid);
            json_response(StatusCode::UNPROCESSABLE_ENTITY, &validation_body(&errors))
        }
        Ok(Outcome::Failed(message)) => {
            api.metrics.count(Counted::Failed);
            tracing::warn!(path = %path, error = %message, "request failed");
            internal_error()
        }
        Err(join) => {
            api.metrics.count(Counted::Failed);
            tracing::error!(path = %path, error = %join, "handler task failed");
            internal_error()
        }
    }
}

/// Starlette redirects `/path/` (and `/path//`: it strips every trailing slash) to `/path`
/// (307) when only the latter exists.
fn redirect_or_not_found(api: &RestApi, path: &str, uri: &Uri) -> Response {
    api.metrics.count(Counted::NotFound);
    let Some(trimmed) = path
        .ends_with('/')
        .then(|| path.trim_end_matches('/'))
        .filter(|p| api.bird.find(p).is_some())
    else {
        return not_found();
    };
    let location = match uri.query() {
        Some(q) => format!("{trimmed}?{q}"),
        None => trimmed.to_owned(),
    };
    match HeaderValue::from_str(&location) {
        Ok(value) => Response::builder()
            .status(StatusCode::TEMPORARY_REDIRECT)
            .header(header::LOCATION, value)
            .body(Body::empty())
            .unwrap_or_else(|_| internal_error()),
        Err(_) => not_found(),
    }
}

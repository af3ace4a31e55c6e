use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures_util::StreamExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use vakra_endpoint::RestBird;

use crate::{Capability, EnvServer, ServerOptions, SessionSpec, Traced};

type Service = StreamableHttpService<Traced, LocalSessionManager>;

/// Limits of the MCP HTTP transport.
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// MCP sessions alive at once over all capabilities and domains; a new session beyond it
    /// is refused with 503 until one ends or expires.
    pub max_sessions: usize,
    /// Largest JSON-RPC request body accepted (413 beyond).
    pub max_body_bytes: usize,
}

struct McpHttp {
    options: ServerOptions,
    bird: Arc<RestBird>,
    limits: HttpLimits,
    services: Mutex<HashMap<SessionSpec, Service>>,
    slots: Arc<Semaphore>,
    in_flight: Arc<InFlight>,
    cancel: CancellationToken,
}

/// MCP over streamable HTTP at `/mcp/<capability>/<domain>`: one endpoint per capability and
/// domain, each with its own sessions, built on first use from the already loaded endpoints.
/// The returned [`McpDrain`] ends the sessions at shutdown once the calls in flight are answered.
pub fn http_router(
    options: ServerOptions,
    bird: Arc<RestBird>,
    limits: HttpLimits,
) -> (Router, McpDrain) {
    let in_flight = Arc::new(InFlight::default());
    let cancel = CancellationToken::new();
    let state = Arc::new(McpHttp {
        options,
        bird,
        limits,
        services: Mutex::new(HashMap::new()),
        slots: Arc::new(Semaphore::new(limits.max_sessions)),
        in_flight: Arc::clone(&in_flight),
        cancel: cancel.clone(),
    });
    let router = Router::new()
        .route("/mcp/{capability}/{domain}", any(handle))
        .with_state(state);
    (router, McpDrain { in_flight, cancel })
}

/// Ends the MCP sessions of a shutting-down server: open session streams would otherwise keep
/// their connections, and the server, alive forever.
pub struct McpDrain {
    in_flight: Arc<InFlight>,
    cancel: CancellationToken,
}

impl McpDrain {
    /// Waits until no MCP request is being answered (at most `grace`), then closes every
    /// session. Returns how many requests were still unanswered when the sessions closed.
    pub async fn drain(self, grace: Duration) -> usize {
        let _ = tokio::time::timeout(grace, self.in_flight.idle()).await;
        self.cancel.cancel();
        self.in_flight.count.load(Ordering::SeqCst)
    }
}

/// MCP POST requests whose answer has not been fully sent.
#[derive(Default)]
struct InFlight {
    count: AtomicUsize,
    changed: Notify,
}

impl InFlight {
    fn enter(self: &Arc<Self>) -> InFlightGuard {
        self.count.fetch_add(1, Ordering::SeqCst);
        InFlightGuard(Arc::clone(self))
    }

    async fn idle(&self) {
        loop {
            let changed = self.changed.notified();
            if self.count.load(Ordering::SeqCst) == 0 {
                return;
            }
            changed.await;
        }
    }
}

struct InFlightGuard(Arc<InFlight>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }
}

fn problem(status: StatusCode, message: String) -> Response {
    (status, axum::Json(serde_json::json!({"error": message}))).into_response()
}

fn too_many_sessions(max: usize) -> String {
    format!(
        "too many MCP sessions: this server keeps at most {max} at once (--max-sessions); \
         end a session (HTTP DELETE) or wait for idle ones to expire"
    )
}

async fn handle(
    State(state): State<Arc<McpHttp>>,
    Path((capability, domain)): Path<(String, String)>,
    request: Request<Body>,
) -> Response {
    let capability: Capability = match capability.parse() {
        Ok(c) => c,
        Err(e) => return problem(StatusCode::NOT_FOUND, e.to_string()),
    };
    let spec = SessionSpec::new(capability, &domain);
    let service = {
        let mut services = state.services.lock().unwrap_or_else(|e| e.into_inner());
        match services.get(&spec) {
            Some(service) => service.clone(),
            None => match build(&state, &spec) {
                Ok(service) => services.entry(spec).or_insert(service).clone(),
                Err(message) => return problem(StatusCode::NOT_FOUND, message),
            },
        }
    };
    let is_post = request.method() == Method::POST;
    let opens_session = is_post && !request.headers().contains_key("mcp-session-id");
    if opens_session && state.slots.available_permits() == 0 {
        return problem(
            StatusCode::SERVICE_UNAVAILABLE,
            too_many_sessions(state.limits.max_sessions),
        );
    }
    let guard = is_post.then(|| state.in_flight.enter());
    let response = match service.oneshot(request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    };
    match guard {
        // The answer of a call is streamed: the request is in flight until its body is sent.
        Some(guard) => {
            let (parts, body) = response.into_parts();
            let body = body.into_data_stream().map(move |chunk| {
                let _in_flight = &guard;
                chunk
            });
            Response::from_parts(parts, Body::from_stream(body))
        }
        None => response,
    }
}

fn build(state: &McpHttp, spec: &SessionSpec) -> Result<Service, String> {
    if spec.domains.is_empty() {
        return Err("a domain is required: /mcp/<capability>/<domain>".into());
    }
    let known =
        |d: &String| {
            state.bird.domains().iter().any(|c| {
                vakra_catalog::tools::domain_selected(&c.name, d, state.options.fix_quirks)
            })
        };
    let own_domains = spec.capability == Capability::One
        || (spec.capability == Capability::Three && spec.domains == ["bpo"]);
    if let Some(unknown) = spec.domains.iter().find(|d| !own_domains && !known(d)) {
        return Err(format!("unknown domain {unknown:?}"));
    }
    let server = EnvServer::build(spec, &state.options, Arc::clone(&state.bird))
        .map_err(|e| e.to_string())?;
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(state.options.session_idle);
    let spec = spec.clone();
    let trace_dir = state.options.trace_dir.clone();
    let slots = Arc::clone(&state.slots);
    let max_sessions = state.limits.max_sessions;
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(state.limits.max_body_bytes)
        .with_cancellation_token(state.cancel.child_token());
    Ok(StreamableHttpService::new(
        move || {
            // The check in `handle` answers 503; this one holds the slot (and catches races).
            let slot = Arc::clone(&slots)
                .try_acquire_owned()
                .map_err(|_| std::io::Error::other(too_many_sessions(max_sessions)))?;
            Ok(Traced::new(
                server.new_session().holding(slot),
                &spec,
                trace_dir.as_deref(),
            ))
        },
        Arc::new(sessions),
        config,
    ))
}

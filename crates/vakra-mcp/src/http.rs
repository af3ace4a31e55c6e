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
use indexmap::IndexMap;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use vakra_endpoint::RestBird;
use vakra_lanes::{Client, Share, Shares, Throttled};

use crate::{Capability, EnvServer, NamedSessions, ServerOptions, SessionSpec};

use crate::disconnect::Service;

/// Limits of the MCP HTTP transport.
#[derive(Debug, Clone, Copy)]
pub struct HttpLimits {
    /// MCP sessions alive at once over all capabilities and domains; a new session beyond it
    /// is refused with 503 until one ends or expires.
    pub max_sessions: usize,
    /// Largest JSON-RPC request body accepted (413 beyond).
    pub max_body_bytes: usize,
    /// MCP sessions one client address keeps alive at once; a new one beyond it is refused
    /// with 503.
    pub max_client_sessions: usize,
}

struct McpHttp {
    options: ServerOptions,
    bird: Arc<RestBird>,
    limits: HttpLimits,
    /// Built endpoints by URL, least recently used first. Endpoint URLs are client input
    /// (`l`, `li`, `library,library` all select `library`), so the ones without live sessions
    /// are dropped beyond [`IDLE_ENDPOINTS`]; one with sessions is kept, as its sessions live
    /// in it.
    services: Mutex<IndexMap<SessionSpec, Endpoint>>,
    slots: Arc<Semaphore>,
    /// The sessions of each client address.
    client_sessions: Shares,
    refusals: Throttled,
    in_flight: Arc<InFlight>,
    cancel: CancellationToken,
}

tokio::task_local! {
    /// The client's share a session being opened takes (rmcp builds a session's server in the
    /// task of the request that opens it).
    static OPENING: Mutex<Option<Share>>;
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
    let idle = session_idle(&options);
    if idle > options.session_idle {
        tracing::warn!(
            "MCP sessions expire after {idle:?} idle, not {:?}: a session must outlive its \
             longest call (--call-time-limit + 1 s)",
            options.session_idle
        );
    }
    let state = Arc::new(McpHttp {
        options,
        bird,
        limits,
        services: Mutex::new(IndexMap::new()),
        slots: Arc::new(Semaphore::new(limits.max_sessions)),
        client_sessions: Shares::new(limits.max_client_sessions),
        refusals: Throttled::new(),
        in_flight: Arc::clone(&in_flight),
        cancel: cancel.clone(),
    });
    (router(state), McpDrain { in_flight, cancel })
}

fn router(state: Arc<McpHttp>) -> Router {
    Router::new()
        .route("/mcp/{capability}/{domain}", any(handle))
        // The same endpoint for clients that insist on a path ending in `/mcp` (MCP Inspector).
        .route("/mcp/{capability}/{domain}/mcp", any(handle))
        .with_state(state)
}

/// Endpoints kept for reuse: more than the domains of a data root times the capabilities in
/// common use. Beyond it the least recently used endpoint without live sessions is dropped;
/// building one again costs one catalog selection (capability-1 and BPO data are loaded once
/// per process).
const IDLE_ENDPOINTS: usize = 64;

/// One built endpoint and its count of live sessions (the strong count of `sessions` beyond
/// its own and its session factory's: every session holds a clone).
struct Endpoint {
    service: Service,
    manager: Arc<NamedSessions>,
    sessions: Arc<()>,
}

impl Endpoint {
    fn has_sessions(&self) -> bool {
        Arc::strong_count(&self.sessions) > 2
    }
}

/// The endpoint of `spec`, built (on a blocking thread, outside the lock: a BPO or capability-1
/// endpoint reads data files) when not cached.
async fn endpoint(
    state: &Arc<McpHttp>,
    spec: SessionSpec,
) -> Result<(Service, Arc<NamedSessions>), Response> {
    {
        let mut services = state.services.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = services.get_index_of(&spec) {
            let last = services.len() - 1;
            services.move_index(index, last);
            let endpoint = &services[last];
            return Ok((endpoint.service.clone(), Arc::clone(&endpoint.manager)));
        }
    }
    let building = Arc::clone(state);
    let key = spec.clone();
    let built = tokio::task::spawn_blocking(move || build(&building, &key))
        .await
        .map_err(|e| {
            problem(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("building the endpoint failed: {e}"),
            )
        })?
        .map_err(|message| problem(StatusCode::NOT_FOUND, message))?;
    let mut services = state.services.lock().unwrap_or_else(|e| e.into_inner());
    // Another request may have built the same endpoint meanwhile: the first one stays.
    let endpoint = services.entry(spec).or_insert(built);
    let found = (endpoint.service.clone(), Arc::clone(&endpoint.manager));
    while services.len() > IDLE_ENDPOINTS {
        let Some(oldest_idle) = services.values().position(|e| !e.has_sessions()) else {
            break;
        };
        services.shift_remove_index(oldest_idle);
    }
    Ok(found)
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

/// The Python SDK's answer to a JSON body it cannot use: 400 with a JSON-RPC error, a parse
/// error (-32700) for text that is not JSON, a validation error (-32602) for JSON that is not a
/// JSON-RPC message (rmcp answers both with 415).
fn malformed(json_error: Option<String>) -> Response {
    let (code, message) = match json_error {
        Some(e) => (-32700, format!("Parse error: {e}")),
        None => (
            -32602,
            "Validation error: the body is not a JSON-RPC message".to_owned(),
        ),
    };
    let body = serde_json::json!({"jsonrpc": "2.0", "id": "server-error",
        "error": {"code": code, "message": message}});
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
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
    let (service, manager) = match endpoint(&state, spec).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if request.method() == Method::DELETE {
        return end_session(service, &manager, request).await;
    }
    let is_post = request.method() == Method::POST;
    let opens_session = is_post && !request.headers().contains_key("mcp-session-id");
    if opens_session && state.slots.available_permits() == 0 {
        return problem(
            StatusCode::SERVICE_UNAVAILABLE,
            too_many_sessions(state.limits.max_sessions),
        );
    }
    let share = match request.extensions().get::<Client>() {
        Some(&client) if opens_session => match state.client_sessions.take(client) {
            Some(share) => Some(share),
            None => {
                let message = format!(
                    "too many MCP sessions from {}: this server keeps at most {} at once for one \
                     client address (--max-client-sessions); end a session (HTTP DELETE) or wait \
                     for idle ones to expire",
                    client.0,
                    state.client_sessions.per_client()
                );
                state.refusals.warn(&message);
                return problem(StatusCode::SERVICE_UNAVAILABLE, message);
            }
        },
        _ => None,
    };
    let guard = is_post.then(|| state.in_flight.enter());
    // The body is read here (it is bounded before it reaches this handler) to tell, as the
    // Python SDK does, a body that is not JSON from one that is not JSON-RPC.
    let says_json = request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    let (mut parts, body) = request.into_parts();
    let mut bytes = match axum::body::to_bytes(body, state.limits.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(e) => return problem(StatusCode::BAD_REQUEST, format!("the request body: {e}")),
    };
    // A call's arguments nested deeper than rmcp parses travel beside the body.
    if is_post && says_json {
        match crate::incoming::shallow_body(&bytes) {
            Ok(None) => {}
            Ok(Some((rest, arguments))) => {
                bytes = rest.into();
                parts.extensions.insert(arguments);
            }
            Err(too_deep) => return malformed(Some(too_deep)),
        }
        if let Some(found) = crate::incoming::big_integers_in(&bytes) {
            parts.extensions.insert(found);
        }
    }
    let json_error = is_post
        .then(|| serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).err())
        .flatten()
        .map(|e| e.to_string());
    // A request of an existing session is cancelled when its client goes away unanswered.
    let cancel = (is_post && !opens_session)
        .then(|| crate::disconnect::request_id(&bytes))
        .flatten()
        .map(|id| {
            crate::disconnect::CancelOnDrop::new(
                service.clone(),
                parts.uri.clone(),
                &parts.headers,
                id,
            )
        });
    let cancel = crate::disconnect::Armed::new(cancel);
    let request = Request::from_parts(parts, Body::from(bytes));
    let response = match OPENING
        .scope(Mutex::new(share), service.oneshot(request))
        .await
    {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    };
    if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE && is_post && says_json {
        return malformed(json_error);
    }
    // A single answer goes out as one JSON body (`framing.rs`).
    let response = if is_post && crate::framing::is_event_stream(&response) {
        let (response, unframed) =
            crate::framing::unframe(response, crate::framing::JSON_WAIT).await;
        if unframed {
            // Answered: nothing is left to cancel or to wait for.
            drop(cancel.disarm());
            return response;
        }
        response
    } else {
        response
    };
    let cancel = cancel.disarm();
    match guard {
        // The answer of a call is streamed: the request is in flight until its body is sent.
        Some(guard) => {
            let (parts, body) = response.into_parts();
            let body = body.into_data_stream().map(move |chunk| {
                let _in_flight = &guard;
                chunk
            });
            let body = crate::disconnect::Watched::new(body, cancel);
            Response::from_parts(parts, Body::from_stream(body))
        }
        None => response,
    }
}

/// `DELETE` of a session, answered as the Python SDK's server does (its clients accept only
/// 200 and 204): 200 once the session is closed, 404 with a JSON-RPC error for an unknown one.
async fn end_session(
    service: Service,
    manager: &NamedSessions,
    request: Request<Body>,
) -> Response {
    use rmcp::transport::streamable_http_server::{SessionId, SessionManager};
    let id: Option<SessionId> = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(Into::into);
    if let Some(id) = &id
        && !manager.has_session(id).await.unwrap_or(false)
    {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": "server-error",
            "error": {"code": -32600, "message": "Session not found"}});
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
    }
    let mut response = match service.oneshot(request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    };
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::OK;
    }
    response
}

/// How long an MCP session may stay idle: `--session-idle-secs`, raised to outlive a call. A
/// session is idle only between calls: a call ends within its time limit of arriving, so a
/// session is never expired with a call in flight.
fn session_idle(options: &ServerOptions) -> Duration {
    options
        .session_idle
        .max(options.call_time_limit + Duration::from_secs(1))
}

fn build(state: &McpHttp, spec: &SessionSpec) -> Result<Endpoint, String> {
    if spec.domains.is_empty() {
        return Err("a domain is required: /mcp/<capability>/<domain>".into());
    }
    let server = EnvServer::build(spec, &state.options, Arc::clone(&state.bird))
        .map_err(|e| e.to_string())?;
    let idle = session_idle(&state.options);
    let manager = Arc::new(NamedSessions::new(
        state.options.replica_name.as_deref(),
        idle,
    ));
    let spec = spec.clone();
    let options = state.options.clone();
    let slots = Arc::clone(&state.slots);
    let max_sessions = state.limits.max_sessions;
    let sessions_alive = Arc::new(());
    let alive = Arc::clone(&sessions_alive);
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(state.limits.max_body_bytes)
        .with_cancellation_token(state.cancel.child_token());
    let service = StreamableHttpService::new(
        move || {
            // The check in `handle` answers 503; this one holds the slot (and catches races).
            let slot = Arc::clone(&slots)
                .try_acquire_owned()
                .map_err(|_| std::io::Error::other(too_many_sessions(max_sessions)))?;
            let share = OPENING
                .try_with(|opening| opening.lock().unwrap_or_else(|e| e.into_inner()).take())
                .ok()
                .flatten();
            Ok(server
                .new_session()
                .holding((slot, share, Arc::clone(&alive)))
                .traced(&spec, &options))
        },
        Arc::clone(&manager),
        config,
    );
    Ok(Endpoint {
        service,
        manager,
        sessions: sessions_alive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MCP routes over the repository's demo data root, and their shared state.
    fn demo() -> (Router, Arc<McpHttp>) {
        demo_with(|_| {})
    }

    fn demo_with(configure: impl FnOnce(&mut ServerOptions)) -> (Router, Arc<McpHttp>) {
        let root = vakra_catalog::DataRoot::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut options = ServerOptions {
            sql_time_limit: Duration::from_secs(5),
            ..ServerOptions::new(root)
        };
        configure(&mut options);
        let bird = RestBird::load(
            &options.root,
            options.db_root.clone(),
            |_| true,
            options.sql_time_limit,
        )
        .expect("demo catalogs");
        let limits = HttpLimits {
            max_sessions: 8,
            max_body_bytes: 1 << 20,
            max_client_sessions: 8,
        };
        let state = Arc::new(McpHttp {
            options,
            bird: Arc::new(bird),
            limits,
            services: Mutex::new(IndexMap::new()),
            slots: Arc::new(Semaphore::new(limits.max_sessions)),
            client_sessions: Shares::new(limits.max_client_sessions),
            refusals: Throttled::new(),
            in_flight: Default::default(),
            cancel: CancellationToken::new(),
        });
        (router(Arc::clone(&state)), state)
    }

    /// A request as an MCP client over HTTP sends it.
    fn mcp_request(method: Method, path: &str) -> axum::http::request::Builder {
        Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
    }

    async fn send(router: &Router, method: Method, path: &str, body: &str) -> Response {
        let request = mcp_request(method, path)
            .body(Body::from(body.to_owned()))
            .unwrap();
        router.clone().oneshot(request).await.unwrap()
    }

    fn cached(state: &McpHttp) -> usize {
        state.services.lock().unwrap().len()
    }

    #[tokio::test]
    async fn endpoint_spellings_do_not_grow_the_cache() {
        let (router, state) = demo();
        let opened = send(&router, Method::POST, "/mcp/2/library", INITIALIZE).await;
        assert_eq!(opened.status(), StatusCode::OK);
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();

        // Every spelling is a valid URL selecting `library`, and each builds its endpoint.
        let spellings: Vec<String> = (1..=3 * IDLE_ENDPOINTS)
            .map(|n| vec!["l"; n].join(","))
            .chain(["l", "li", "lib", "libr"].map(str::to_owned))
            .collect();
        for domain in &spellings {
            let answer = send(&router, Method::GET, &format!("/mcp/2/{domain}"), "").await;
            assert_ne!(answer.status(), StatusCode::NOT_FOUND, "{domain}");
            assert!(cached(&state) <= IDLE_ENDPOINTS, "{}", cached(&state));
        }
        assert_eq!(cached(&state), IDLE_ENDPOINTS);
        // The endpoint with a live session was kept, and its session with it.
        assert!(
            state
                .services
                .lock()
                .unwrap()
                .contains_key(&SessionSpec::new(Capability::Two, "library"))
        );
        let request = Request::builder()
            .method(Method::POST)
            .uri("/mcp/2/library")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(Body::from(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            ))
            .unwrap();
        let answer = router.clone().oneshot(request).await.unwrap();
        assert_eq!(answer.status(), StatusCode::ACCEPTED);
        // Unknown domains build nothing.
        let answer = send(&router, Method::GET, "/mcp/2/nosuchdomain", "").await;
        assert_eq!(answer.status(), StatusCode::NOT_FOUND);
        assert_eq!(cached(&state), IDLE_ENDPOINTS);
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

    /// Sends `body` in session `session` of `path`.
    async fn send_in(
        router: &Router,
        method: Method,
        path: &str,
        session: &str,
        body: &str,
    ) -> Response {
        let request = mcp_request(method, path)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(Body::from(body.to_owned()))
            .unwrap();
        router.clone().oneshot(request).await.unwrap()
    }

    /// Opens a session of `path` (`initialize`, `notifications/initialized`).
    async fn open(router: &Router, path: &str) -> String {
        let opened = send(router, Method::POST, path, INITIALIZE).await;
        assert_eq!(opened.status(), StatusCode::OK);
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let answer = send_in(router, Method::POST, path, &session, initialized).await;
        assert_eq!(answer.status(), StatusCode::ACCEPTED);
        session
    }

    /// Sessions alive in the endpoint of `spec`: kept by its manager, and whose server still
    /// holds its share of the endpoint.
    fn alive(state: &McpHttp, spec: &SessionSpec) -> (usize, usize) {
        let services = state.services.lock().unwrap();
        let endpoint = &services[spec];
        (
            endpoint.manager.len(),
            Arc::strong_count(&endpoint.sessions) - 2,
        )
    }

    async fn until_alive(state: &McpHttp, spec: &SessionSpec, expected: (usize, usize)) {
        for _ in 0..200 {
            if alive(state, spec) == expected {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(alive(state, spec), expected);
    }

    #[tokio::test]
    async fn a_deleted_session_is_freed_and_the_others_stay() {
        let (router, state) = demo();
        let spec = SessionSpec::new(Capability::Two, "library");
        let mut sessions = Vec::new();
        for _ in 0..3 {
            sessions.push(open(&router, "/mcp/2/library").await);
        }
        until_alive(&state, &spec, (3, 3)).await;
        let deleted = send_in(&router, Method::DELETE, "/mcp/2/library", &sessions[0], "").await;
        assert_eq!(deleted.status(), StatusCode::OK);
        until_alive(&state, &spec, (2, 2)).await;
        assert_eq!(state.slots.available_permits(), 8 - 2);
        // Gone for good; the others answer.
        let again = send_in(&router, Method::DELETE, "/mcp/2/library", &sessions[0], "").await;
        assert_eq!(again.status(), StatusCode::NOT_FOUND);
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        let listed = send_in(&router, Method::POST, "/mcp/2/library", &sessions[1], list).await;
        assert_eq!(listed.status(), StatusCode::OK);
        assert_eq!(listed.headers()["content-type"], "application/json");
        let gone = send_in(&router, Method::POST, "/mcp/2/library", &sessions[0], list).await;
        assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    }

    #[tokio::test]
    async fn an_idle_session_expires() {
        let (router, state) = demo_with(|options| {
            options.session_idle = Duration::ZERO;
            options.call_time_limit = Duration::ZERO;
        });
        let spec = SessionSpec::new(Capability::Two, "library");
        let idle = open(&router, "/mcp/2/library").await;
        let busy = open(&router, "/mcp/2/library").await;
        until_alive(&state, &spec, (2, 2)).await;
        // One second idle (the shortest, for calls of no time limit) ends `idle`; `busy` is
        // kept by its requests.
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        for _ in 0..6 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let listed = send_in(&router, Method::POST, "/mcp/2/library", &busy, list).await;
            assert_eq!(listed.status(), StatusCode::OK);
        }
        until_alive(&state, &spec, (1, 1)).await;
        let expired = send_in(&router, Method::POST, "/mcp/2/library", &idle, list).await;
        assert_eq!(expired.status(), StatusCode::NOT_FOUND);
        assert_eq!(state.slots.available_permits(), 8 - 1);
    }
}

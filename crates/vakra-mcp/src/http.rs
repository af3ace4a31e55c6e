use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower::ServiceExt;
use vakra_endpoint::RestBird;

use crate::{Capability, EnvServer, ServerOptions, SessionSpec, Traced};

type Service = StreamableHttpService<Traced, LocalSessionManager>;

struct McpHttp {
    options: ServerOptions,
    bird: Arc<RestBird>,
    services: Mutex<HashMap<SessionSpec, Service>>,
}

/// MCP over streamable HTTP at `/mcp/<capability>/<domain>`: one endpoint per capability and
/// domain, each with its own sessions, built on first use from the already loaded endpoints.
pub fn http_router(options: ServerOptions, bird: Arc<RestBird>) -> Router {
    let state = Arc::new(McpHttp {
        options,
        bird,
        services: Mutex::new(HashMap::new()),
    });
    Router::new()
        .route("/mcp/{capability}/{domain}", any(handle))
        .with_state(state)
}

fn problem(status: StatusCode, message: String) -> Response {
    (status, axum::Json(serde_json::json!({"error": message}))).into_response()
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
    match service.oneshot(request).await {
        Ok(response) => response.map(Body::new).into_response(),
        Err(never) => match never {},
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
    Ok(StreamableHttpService::new(
        move || {
            Ok(Traced::new(
                server.new_session(),
                &spec,
                trace_dir.as_deref(),
            ))
        },
        Arc::new(sessions),
        StreamableHttpServerConfig::default(),
    ))
}

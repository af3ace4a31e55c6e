//! [`EnvServer`]: the server of one MCP session, whatever its capability. [`tool_server`] is the
//! one place that maps a [`SessionSpec`] to its capability's [`ToolServer`]; the session's
//! limits, SDK cache and trace are added around it here and applied by its handler
//! (`handler.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Map, Value};
use vakra_catalog::tools::domain_selected;
use vakra_chaining::{ChainingEnv, ChainingOptions};
use vakra_endpoint::RestBird;

use crate::bpo_tools::BpoToolServer;
use crate::calls::SessionCalls;
use crate::chaining_tools::ChainingToolServer;
use crate::combined::CombinedServer;
use crate::options::server_config;
use crate::rest_tools::RestToolServer;
use crate::tool_server::ToolServer;
use crate::trace::SessionTrace;
use crate::{Capability, ServerOptions, SessionSpec, SpecError};

/// The MCP server of one (capability, domain) session, with what every server shares: the
/// call queue and time limit, the result cap, the SDK's cached listing and the trace.
#[derive(Clone)]
pub struct EnvServer {
    pub(crate) server: Arc<dyn ToolServer>,
    pub(crate) max_result_bytes: usize,
    /// The session's queue of calls and their time limit.
    pub(crate) calls: SessionCalls,
    /// The Python SDK's tool cache: name → input schema from the session's last listing.
    pub(crate) sdk_cache: Arc<tokio::sync::Mutex<SdkCache>>,
    /// Where the session's calls are recorded, if anywhere.
    pub(crate) trace: Option<Arc<SessionTrace>>,
    /// What the session holds while it lives (its place under the HTTP server's session cap,
    /// and its endpoint's count of live sessions), let go when the last clone of the session's
    /// server is dropped (the session ended or expired).
    hold: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

pub(crate) type SdkCache = HashMap<String, Arc<Map<String, Value>>>;

impl EnvServer {
    /// Builds the server of one session, loading only what it needs (a stdio process).
    pub fn open(spec: &SessionSpec, options: &ServerOptions) -> Result<Self, SpecError> {
        let server = tool_server(spec, options, || options.load_rest_bird(spec))?;
        Ok(Self::of(
            server,
            options.max_result_bytes,
            options.call_time_limit,
            Arc::clone(&options.call_lanes),
        ))
    }

    /// Builds the server for `spec` from REST-BIRD endpoints already loaded; a domain none of
    /// them belongs to is refused (capability 1 and BPO read their own data).
    pub fn build(
        spec: &SessionSpec,
        options: &ServerOptions,
        bird: Arc<RestBird>,
    ) -> Result<Self, SpecError> {
        let server = tool_server(spec, options, || {
            let loaded = |d: &String| {
                bird.domains()
                    .iter()
                    .any(|c| domain_selected(&c.name, d, options.fix_quirks))
            };
            match spec.domains.iter().find(|d| !loaded(d)) {
                Some(unknown) => Err(SpecError::NotLoaded(unknown.clone())),
                None => Ok(bird),
            }
        })?;
        Ok(Self::of(
            server,
            options.max_result_bytes,
            options.call_time_limit,
            Arc::clone(&options.call_lanes),
        ))
    }

    /// A session of `server` whose results are capped at `max_result_bytes`, whose calls
    /// stop after `call_time_limit` and whose blocking work takes its turn in `lanes`.
    pub(crate) fn of(
        server: Arc<dyn ToolServer>,
        max_result_bytes: usize,
        call_time_limit: std::time::Duration,
        lanes: Arc<vakra_lanes::Lanes>,
    ) -> Self {
        Self {
            server,
            max_result_bytes,
            calls: SessionCalls::new(call_time_limit, lanes),
            sdk_cache: Arc::default(),
            trace: None,
            hold: None,
        }
    }

    /// A server for a new session of the same kind. Sessions never share mutable state (the
    /// reference keeps state per process, and each of its processes serves one session).
    pub fn new_session(&self) -> EnvServer {
        EnvServer {
            server: self.server.new_session(),
            max_result_bytes: self.max_result_bytes,
            calls: self.calls.for_new_session(),
            sdk_cache: Arc::default(),
            trace: None,
            hold: None,
        }
    }

    /// The same server, whose calls stop when `closed` is cancelled (its client went away).
    pub(crate) fn closed_by(mut self, closed: tokio_util::sync::CancellationToken) -> Self {
        self.calls = self.calls.closed_by(closed);
        self
    }

    /// The same server holding `hold` for as long as the session lives.
    pub(crate) fn holding(mut self, hold: impl Send + Sync + 'static) -> Self {
        self.hold = Some(Arc::new(hold));
        self
    }

    /// The same server, recording its session's calls in `options.trace_dir` when it is set.
    pub(crate) fn traced(mut self, spec: &SessionSpec, options: &ServerOptions) -> Self {
        self.trace = options
            .trace_dir
            .as_deref()
            .map(|dir| Arc::new(SessionTrace::new(dir, spec, &options.trace_limits)));
        self
    }

    /// The tools a new session lists, as plain data (for `vakra tools` and checksums).
    pub async fn tool_specs(&self) -> Vec<vakra_catalog::tools::ToolSpec> {
        let tools: Vec<Tool> = self.server.new_session().tools().await;
        tools
            .iter()
            .map(|t| vakra_catalog::tools::ToolSpec {
                name: t.name.to_string(),
                description: t.description.as_deref().unwrap_or_default().to_owned(),
                input_schema: (*t.input_schema).clone(),
            })
            .collect()
    }
}

/// The tool server of `spec`: the one place that maps a session to its capability's server.
/// `rest_bird` gives the REST-BIRD endpoints, for the servers that need them.
fn tool_server(
    spec: &SessionSpec,
    options: &ServerOptions,
    rest_bird: impl FnOnce() -> Result<Arc<RestBird>, SpecError>,
) -> Result<Arc<dyn ToolServer>, SpecError> {
    if spec.is_bpo() {
        let data = vakra_bpo::BpoData::load(&options.bpo_dir())?;
        // FastMCP's own name: the reference's `MCP_SERVER_NAME` names only its wrapper.
        let info = server_config("bpo_benchmark", false);
        return Ok(Arc::new(BpoToolServer::new(Arc::new(data), info)));
    }
    Ok(match spec.capability {
        Capability::One => Arc::new(chaining(spec, options)?),
        Capability::Two | Capability::Three => Arc::new(RestToolServer::new(
            rest_bird()?,
            &spec.domains,
            options.rest_base_url.clone(),
            options.server_config("fastapi-mcp-wrapper", false),
            options.fix_quirks,
        )),
        Capability::Four => {
            let info = options.server_config("capability-4-combined-mcp", false);
            let rest = RestToolServer::new(
                rest_bird()?,
                &spec.domains,
                options.combined_rest_base_url.clone(),
                info.clone(),
                options.fix_quirks,
            );
            Arc::new(CombinedServer::new(
                rest,
                options.retrievers()?,
                &spec.domains,
                info,
            )?)
        }
    })
}

/// Capability 1's server for the one domain of `spec`.
fn chaining(spec: &SessionSpec, options: &ServerOptions) -> Result<ChainingToolServer, SpecError> {
    let [domain] = spec.domains.as_slice() else {
        return Err(SpecError::OneDomain(spec.domains.join(",")));
    };
    let data = options.chaining_data()?;
    let env = ChainingEnv::open(
        data.universes,
        data.texts,
        options.db_root.clone(),
        domain,
        ChainingOptions {
            mode: options.chaining_mode,
            fix_quirks: options.fix_quirks,
            max_session_bytes: options.max_session_bytes,
            sql_time_limit: options.sql_time_limit,
            pandas: options.pandas,
        },
    )?;
    let info = options.server_config("slot-filling-mcp-server", true);
    Ok(ChainingToolServer::new(Arc::new(env), info))
}

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use vakra_catalog::DataRoot;
use vakra_catalog::tools::domain_selected;
use vakra_endpoint::{LoadError, RestBird};

use vakra_chaining::{ChainingEnv, ChainingOptions, ServerMode, ToolTexts, Universes};
use vakra_retrieval::{RetrieverOptions, Retrievers};

use crate::calls::SessionCalls;
use crate::{BpoToolServer, ChainingToolServer, CombinedServer, RestToolServer, text_result};

/// The benchmark's four capabilities; each has its own tool servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capability {
    /// SLOT-BIRD / SEL-BIRD data-manipulation tools.
    One,
    /// REST-BIRD dashboard APIs.
    Two,
    /// Multi-hop reasoning: REST-BIRD, and the BPO tools for the `bpo` domain.
    Three,
    /// Multi-turn: REST-BIRD plus document retrievers.
    Four,
}

impl std::str::FromStr for Capability {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        Ok(match s.trim() {
            "1" => Capability::One,
            "2" => Capability::Two,
            "3" => Capability::Three,
            "4" => Capability::Four,
            other => return Err(SpecError::Capability(other.to_owned())),
        })
    }
}

impl Capability {
    /// The capability's number, as the benchmark names it.
    pub fn number(self) -> u8 {
        match self {
            Capability::One => 1,
            Capability::Two => 2,
            Capability::Three => 3,
            Capability::Four => 4,
        }
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// What one MCP session serves: a capability and the reference's `MCP_DOMAIN` value, a
/// comma-separated list (items trimmed; empty means no filter).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionSpec {
    pub capability: Capability,
    pub domains: Vec<String>,
}

impl SessionSpec {
    /// Parses the `MCP_DOMAIN` form.
    pub fn new(capability: Capability, domain: &str) -> Self {
        let domains = domain
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned)
            .collect();
        Self {
            capability,
            domains,
        }
    }
}

/// Why a server could not be built for a session.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("capability must be one of 1, 2, 3, 4; got {0:?}")]
    Capability(String),
    #[error("unknown domain {domain:?}: no catalog in {root} matches it (known domains: {known})")]
    UnknownDomain {
        domain: String,
        root: String,
        known: String,
    },
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Catalog(#[from] vakra_catalog::CatalogError),
    #[error("the BPO data set cannot be read: {0}")]
    Bpo(#[from] vakra_bpo::BpoError),
    #[error("document retrievers: {0}")]
    Retrieval(#[from] vakra_retrieval::RetrievalError),
    #[error("document retrievers: {0}")]
    RetrievalStartup(String),
    #[error(transparent)]
    Chaining(#[from] vakra_chaining::ChainingError),
    #[error("capability 1 serves one domain at a time; got {0:?}")]
    OneDomain(String),
}

/// Settings shared by every server of a process.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub root: DataRoot,
    /// `<db_root>/<domain>/<domain>.sqlite`.
    pub db_root: PathBuf,
    /// The one switch for fixes of reference bugs that agents can notice (exact domain filter
    /// instead of the prefix match, …); off by default so that behaviour stays the reference's.
    pub fix_quirks: bool,
    /// The REST base URL quoted in error texts (the reference's `FASTAPI_BASE_URL`).
    pub rest_base_url: String,
    /// The same for the capability-4 combined server (the reference's `M3_REST_BASE_URL`).
    pub combined_rest_base_url: String,
    /// `serverInfo.name` when set (the reference's `MCP_SERVER_NAME`); otherwise each server's
    /// reference name.
    pub server_name: Option<String>,
    /// Statements running longer are interrupted.
    pub sql_time_limit: Duration,
    /// Tool calls running longer (their wait behind the session's earlier calls included) are
    /// stopped and answered with an error (`--call-time-limit`).
    pub call_time_limit: Duration,
    /// Capability 1's server class (the reference's `MCP_SERVER_TYPE`).
    pub chaining_mode: ServerMode,
    /// Capability 1: the most table data one session may hold.
    pub max_session_bytes: usize,
    /// MCP sessions over HTTP idle for longer are closed, with their handles.
    pub session_idle: Duration,
    /// Where every session writes its trace (`docs/traces.md`); no traces when `None`.
    pub trace_dir: Option<PathBuf>,
    /// MCP over HTTP: session ids are `<replica_name>.<uuid>` (plain uuids when `None`), so a
    /// proxy can route a session's requests to the replica holding it.
    pub replica_name: Option<String>,
    /// How much the traces of this process may hold.
    pub trace_limits: crate::trace::TraceLimits,
    /// A tool result whose text is longer (bytes) is replaced by an error, so that one call
    /// cannot make the server build and send an unbounded answer.
    pub max_result_bytes: usize,
    /// Capability 1's mapping and texts, read once per process.
    pub chaining_data: Arc<OnceLock<Result<ChainingData, String>>>,
    /// Capability 4's ranking, embedding model and the reference's `RETRIEVER_BASE_URL`.
    pub retriever: RetrieverOptions,
    /// The document retrievers, opened once per process (with their embedding model) and
    /// shared by every capability-4 session and the retriever HTTP API.
    pub retrievers: Arc<OnceLock<Result<Arc<Retrievers>, String>>>,
}

/// The data-root files of capability 1.
#[derive(Debug, Clone)]
pub struct ChainingData {
    pub universes: Arc<Universes>,
    pub texts: Arc<ToolTexts>,
}

impl ServerOptions {
    pub(crate) fn server_config(&self, default_name: &str) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        capabilities.experimental = Some(Default::default());
        let mut tools = ToolsCapability::default();
        tools.list_changed = Some(false);
        capabilities.tools = Some(tools);
        let mut config = ServerConfig::new(capabilities);
        config.server_info = Implementation::new(
            self.server_name.as_deref().unwrap_or(default_name),
            env!("CARGO_PKG_VERSION"),
        );
        config
    }

    /// Where the BPO data set of capability 3's `bpo` domain lives.
    pub fn bpo_dir(&self) -> PathBuf {
        self.root.path().join("bpo")
    }

    /// The capability-1 mapping and texts of the data root.
    pub fn chaining_data(&self) -> Result<ChainingData, SpecError> {
        let root = self.root.path().to_owned();
        self.chaining_data
            .get_or_init(|| {
                let universes = Universes::load(&root).map_err(|e| e.to_string())?;
                let texts = ToolTexts::load(&root).map_err(|e| e.to_string())?;
                Ok(ChainingData {
                    universes: Arc::new(universes),
                    texts: Arc::new(texts),
                })
            })
            .clone()
            .map_err(|e| SpecError::Chaining(vakra_chaining::ChainingError::Startup(e)))
    }

    /// The data root's document retrievers, opened on first use.
    pub fn retrievers(&self) -> Result<Arc<Retrievers>, SpecError> {
        self.retrievers
            .get_or_init(|| {
                Retrievers::open_with(&self.root, self.retriever.clone())
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(SpecError::RetrievalStartup)
    }

    fn chaining(&self, spec: &SessionSpec) -> Result<EnvServer, SpecError> {
        let [domain] = spec.domains.as_slice() else {
            return Err(SpecError::OneDomain(spec.domains.join(",")));
        };
        let data = self.chaining_data()?;
        let env = ChainingEnv::open(
            data.universes,
            data.texts,
            self.db_root.clone(),
            domain,
            ChainingOptions {
                mode: self.chaining_mode,
                fix_quirks: self.fix_quirks,
                max_session_bytes: self.max_session_bytes,
                sql_time_limit: self.sql_time_limit,
            },
        )?;
        let mut info = self.server_config("slot-filling-mcp-server");
        if let Some(tools) = info.capabilities.tools.as_mut() {
            tools.list_changed = Some(true);
        }
        Ok(EnvServer::of(
            ServerKind::Chaining(ChainingToolServer::new(Arc::new(env), info)),
            self,
        ))
    }

    /// Loads the REST-BIRD endpoints a session needs (only the matching domains' catalogs).
    pub fn load_rest_bird(&self, spec: &SessionSpec) -> Result<Arc<RestBird>, SpecError> {
        let index = self.root.read_index()?;
        for domain in &spec.domains {
            if !index
                .domains
                .iter()
                .any(|d| domain_selected(d, domain, self.fix_quirks))
            {
                return Err(SpecError::UnknownDomain {
                    domain: domain.clone(),
                    root: self.root.path().display().to_string(),
                    known: index.domains.join(", "),
                });
            }
        }
        let wanted = |name: &str| {
            spec.domains.is_empty()
                || spec
                    .domains
                    .iter()
                    .any(|d| domain_selected(name, d, self.fix_quirks))
        };
        Ok(Arc::new(RestBird::load(
            &self.root,
            self.db_root.clone(),
            wanted,
            self.sql_time_limit,
        )?))
    }
}

/// The MCP server of one (capability, domain) session, with the limits every server shares.
#[derive(Clone)]
pub struct EnvServer {
    kind: ServerKind,
    max_result_bytes: usize,
    /// The session's queue of calls and their time limit.
    calls: SessionCalls,
    /// What the session holds while it lives (its place under the HTTP server's session cap,
    /// and its endpoint's count of live sessions), let go when the last clone of the session's
    /// server is dropped (the session ended or expired).
    hold: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

/// The tool server behind a session.
#[derive(Clone)]
enum ServerKind {
    Rest(RestToolServer),
    Bpo(BpoToolServer),
    Combined(CombinedServer),
    Chaining(ChainingToolServer),
}

impl SessionSpec {
    /// The reference's `bpo_router` serves its BPO server when `MCP_DOMAIN` is exactly `bpo`.
    fn is_bpo(&self) -> bool {
        self.capability == Capability::Three && self.domains == ["bpo"]
    }
}

impl EnvServer {
    /// Builds the server of one session, loading only what it needs (a stdio process).
    pub fn open(spec: &SessionSpec, options: &ServerOptions) -> Result<Self, SpecError> {
        if spec.is_bpo() {
            return Self::bpo(options);
        }
        if spec.capability == Capability::One {
            return options.chaining(spec);
        }
        let bird = options.load_rest_bird(spec)?;
        Self::build(spec, options, bird)
    }

    /// Builds the server for `spec` from REST-BIRD endpoints already loaded (which must include
    /// the session's domains).
    pub fn build(
        spec: &SessionSpec,
        options: &ServerOptions,
        bird: Arc<RestBird>,
    ) -> Result<Self, SpecError> {
        if spec.is_bpo() {
            return Self::bpo(options);
        }
        match spec.capability {
            Capability::Two | Capability::Three => Ok(EnvServer::of(
                ServerKind::Rest(RestToolServer::new(
                    bird,
                    &spec.domains,
                    options.rest_base_url.clone(),
                    options.server_config("fastapi-mcp-wrapper"),
                    options.fix_quirks,
                )),
                options,
            )),
            Capability::Four => {
                let rest = RestToolServer::new(
                    bird,
                    &spec.domains,
                    options.combined_rest_base_url.clone(),
                    options.server_config("capability-4-combined-mcp"),
                    options.fix_quirks,
                );
                let retrievers = options.retrievers()?;
                let info = options.server_config("capability-4-combined-mcp");
                let combined = CombinedServer::new(rest, retrievers, &spec.domains, info)?;
                Ok(EnvServer::of(ServerKind::Combined(combined), options))
            }
            Capability::One => options.chaining(spec),
        }
    }

    fn bpo(options: &ServerOptions) -> Result<Self, SpecError> {
        let data = vakra_bpo::BpoData::load(&options.bpo_dir())?;
        Ok(EnvServer::of(
            ServerKind::Bpo(BpoToolServer::new(Arc::new(data))),
            options,
        ))
    }

    fn of(kind: ServerKind, options: &ServerOptions) -> Self {
        Self {
            kind,
            max_result_bytes: options.max_result_bytes,
            calls: SessionCalls::new(options.call_time_limit),
            hold: None,
        }
    }
}

impl EnvServer {
    /// A server for a new session of the same kind. Sessions never share mutable state (the
    /// reference keeps state per process, and each of its processes serves one session).
    pub fn new_session(&self) -> EnvServer {
        let kind = match &self.kind {
            ServerKind::Rest(s) => ServerKind::Rest(s.clone()),
            ServerKind::Bpo(s) => ServerKind::Bpo(s.new_session()),
            ServerKind::Combined(s) => ServerKind::Combined(s.clone()),
            ServerKind::Chaining(s) => ServerKind::Chaining(s.new_session()),
        };
        EnvServer {
            kind,
            max_result_bytes: self.max_result_bytes,
            calls: self.calls.for_new_session(),
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

    /// The listed tools as plain data (for `vakra tools` and checksums).
    pub fn tool_specs(&self) -> Vec<vakra_catalog::tools::ToolSpec> {
        let tools = match &self.kind {
            ServerKind::Rest(s) => s.tools().to_vec(),
            ServerKind::Bpo(s) => s.tools().to_vec(),
            ServerKind::Combined(s) => s.tools(),
            ServerKind::Chaining(s) => s.tools(),
        };
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

impl ServerHandler for EnvServer {
    fn get_info(&self) -> ServerConfig {
        match &self.kind {
            ServerKind::Rest(s) => s.get_info(),
            ServerKind::Bpo(s) => s.get_info(),
            ServerKind::Combined(s) => s.get_info(),
            ServerKind::Chaining(s) => s.get_info(),
        }
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match &self.kind {
            ServerKind::Rest(s) => s.supported_protocol_versions(),
            ServerKind::Bpo(s) => s.supported_protocol_versions(),
            ServerKind::Combined(s) => s.supported_protocol_versions(),
            ServerKind::Chaining(s) => s.supported_protocol_versions(),
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        match &self.kind {
            ServerKind::Rest(s) => s.list_tools(request, context).await,
            ServerKind::Bpo(s) => s.list_tools(request, context).await,
            ServerKind::Combined(s) => s.list_tools(request, context).await,
            ServerKind::Chaining(s) => s.list_tools(request, context).await,
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let cancelled = context.ct.clone();
        let call = async {
            match &self.kind {
                ServerKind::Rest(s) => s.call_tool(request, context).await,
                ServerKind::Bpo(s) => s.call_tool(request, context).await,
                ServerKind::Combined(s) => s.call_tool(request, context).await,
                ServerKind::Chaining(s) => s.call_tool(request, context).await,
            }
        };
        let response = self.calls.run(&cancelled, call).await?;
        Ok(capped(response, self.max_result_bytes))
    }
}

/// Counts the bytes written to it (the size of a JSON value without building its text).
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Replaces a result whose text and structured content exceed `max_bytes` by an error that
/// says so: an agent gets a clear answer instead of an unbounded one (`--max-result-bytes`).
fn capped(response: CallToolResponse, max_bytes: usize) -> CallToolResponse {
    let CallToolResponse::Complete(result) = &response else {
        return response;
    };
    let text: usize = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.len())
        .sum();
    // BPO answers repeat their payload as structured content, sent (and built) as JSON too.
    let structured = result.structured_content.as_ref().map_or(0, |value| {
        let mut counter = ByteCounter(0);
        let _ = serde_json::to_writer(&mut counter, value);
        counter.0
    });
    let size = text + structured;
    if size <= max_bytes {
        return response;
    }
    CallToolResponse::Complete(text_result(
        format!(
            "Error: the result of this call is {size} bytes, more than this server's limit of \
             {max_bytes} bytes (--max-result-bytes); ask for less data"
        ),
        true,
    ))
}

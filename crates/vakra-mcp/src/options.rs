//! Settings shared by every server of a process, and the data each capability loads once.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{Implementation, ServerCapabilities, ServerConfig, ToolsCapability};
use vakra_catalog::DataRoot;
use vakra_catalog::tools::domain_selected;
use vakra_chaining::{ServerMode, ToolTexts, Universes};
use vakra_endpoint::RestBird;
use vakra_retrieval::{RetrieverOptions, Retrievers};

use crate::{SessionSpec, SpecError};

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
    /// Where the blocking work of every tool call of the process (HTTP sessions, episodes,
    /// in-process replays) takes its turn: `--sql-threads` lanes, `--client-call-threads` per
    /// client address on `vakra serve`.
    pub call_lanes: Arc<vakra_lanes::Lanes>,
    /// Capability 1's server class (the reference's `MCP_SERVER_TYPE`).
    pub chaining_mode: ServerMode,
    /// Capability 1: the most table data one session may hold.
    pub max_session_bytes: usize,
    /// Capability 1: the pandas whose semantics the tools reproduce (a run's comparability
    /// record carries `pandas.release()`).
    pub pandas: vakra_chaining::Pandas,
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

/// The REST base URL quoted in error texts unless the environment names another (the
/// reference's default `FASTAPI_BASE_URL` and `M3_REST_BASE_URL`).
pub const DEFAULT_REST_BASE_URL: &str = "http://localhost:8000";

impl ServerOptions {
    /// Settings over `root` with the values `vakra mcp` starts with when given no flags or
    /// environment: databases under the root, the reference's behaviour, 30-second statement
    /// and call limits, 2 GiB per capability-1 session, 30 minutes of HTTP idleness, 32 MiB
    /// results, no traces. Set fields to change them.
    pub fn new(root: DataRoot) -> Self {
        Self {
            db_root: root.databases_dir(),
            root,
            fix_quirks: false,
            rest_base_url: DEFAULT_REST_BASE_URL.into(),
            combined_rest_base_url: DEFAULT_REST_BASE_URL.into(),
            server_name: None,
            sql_time_limit: Duration::from_secs(30),
            call_time_limit: Duration::from_secs(30),
            call_lanes: vakra_lanes::Lanes::unshared("tool calls"),
            chaining_mode: ServerMode::default(),
            max_session_bytes: 2048 << 20,
            pandas: vakra_chaining::Pandas::default(),
            session_idle: Duration::from_secs(1800),
            trace_dir: None,
            replica_name: None,
            trace_limits: crate::trace::TraceLimits::default(),
            max_result_bytes: 32 << 20,
            chaining_data: Arc::default(),
            retriever: RetrieverOptions::default(),
            retrievers: Arc::default(),
        }
    }

    /// What `initialize` answers for a server named `default_name` unless `server_name` is
    /// set, which announces listing changes when `list_changed`.
    pub(crate) fn server_config(&self, default_name: &str, list_changed: bool) -> ServerConfig {
        server_config(
            self.server_name.as_deref().unwrap_or(default_name),
            list_changed,
        )
    }

    /// Where the BPO data set of capability 3's `bpo` domain lives.
    pub fn bpo_dir(&self) -> PathBuf {
        self.root.bpo_dir()
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

/// What `initialize` answers for a server named `name`.
pub(crate) fn server_config(name: &str, list_changed: bool) -> ServerConfig {
    let mut capabilities = ServerCapabilities::default();
    capabilities.experimental = Some(Default::default());
    let mut tools = ToolsCapability::default();
    tools.list_changed = Some(list_changed);
    capabilities.tools = Some(tools);
    let mut config = ServerConfig::new(capabilities);
    config.server_info = Implementation::new(name, env!("CARGO_PKG_VERSION"));
    config
}

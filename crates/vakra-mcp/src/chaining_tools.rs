use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::Mutex;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use vakra_chaining::{ChainingEnv, ListedTool, Reply, Session};

use crate::validation;

/// Capability 1: one [`Session`] of SLOT-BIRD/SEL-BIRD tools behind the Python MCP SDK's
/// behaviour, which the reference relies on: arguments are validated against the schema the
/// *last* `tools/list` returned (a tool not in that cache triggers a fresh listing; a tool not
/// listed at all is not validated), and a failed validation answers
/// `Input validation error: <message>` with `isError`. A call that changes the listing is
/// announced with `notifications/tools/list_changed`.
#[derive(Clone)]
pub struct ChainingToolServer {
    env: Arc<ChainingEnv>,
    state: Arc<Mutex<State>>,
    info: ServerConfig,
}

struct State {
    session: Session,
    /// The SDK's tool cache: name → schema from the most recent listing.
    sdk_cache: HashMap<String, Arc<Map<String, Value>>>,
}

impl State {
    fn list(&mut self) -> Vec<ListedTool> {
        let tools = self.session.list_tools();
        self.sdk_cache = tools
            .iter()
            .map(|t| (t.name.clone(), Arc::clone(&t.input_schema)))
            .collect();
        tools
    }

    /// The SDK's `call_tool` wrapper around the server's handler.
    fn call(&mut self, name: &str, arguments: Map<String, Value>) -> Reply {
        if !self.sdk_cache.contains_key(name) {
            self.list();
        }
        if let Some(schema) = self.sdk_cache.get(name)
            && let Some(message) = validation::validate(&arguments, schema)
        {
            return Reply {
                text: format!("Input validation error: {message}"),
                is_error: true,
            };
        }
        self.session.call(name, arguments)
    }
}

impl ChainingToolServer {
    /// A server with a fresh session of `env`'s domain.
    pub fn new(env: Arc<ChainingEnv>, info: ServerConfig) -> Self {
        let session = Session::new(Arc::clone(&env));
        Self {
            env,
            state: Arc::new(Mutex::new(State {
                session,
                sdk_cache: HashMap::new(),
            })),
            info,
        }
    }

    /// The same domain, with a new session state.
    pub fn new_session(&self) -> Self {
        Self::new(Arc::clone(&self.env), self.info.clone())
    }

    /// The tools a new session lists.
    pub fn tools(&self) -> Vec<Tool> {
        Session::new(Arc::clone(&self.env))
            .list_tools()
            .into_iter()
            .map(to_tool)
            .collect()
    }
}

fn to_tool(t: ListedTool) -> Tool {
    Tool::new(t.name, t.description, t.input_schema)
}

impl ServerHandler for ChainingToolServer {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        crate::protocol_versions()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = {
            // Waits (without a thread) for a call of this session in progress.
            let mut state = self.state.lock().await;
            state.list()
        };
        Ok(ListToolsResult {
            tools: tools.into_iter().map(to_tool).collect(),
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut state = Arc::clone(&self.state).lock_owned().await;
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        // Loading a universe runs SQL and tools may scan many rows: off the async workers.
        let (reply, changed) = crate::calls::blocking(move || {
            let before = state.session.listing_generation();
            let reply = state.call(&name, arguments);
            let changed = state.session.listing_generation() != before;
            (reply, changed)
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        if changed {
            // A client that went away cannot be told; the call's answer still stands.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(crate::text_result(reply.text, reply.is_error).into())
    }
}

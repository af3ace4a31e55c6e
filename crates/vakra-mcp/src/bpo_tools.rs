use std::borrow::Cow;
use std::sync::Arc;

use tokio::sync::Mutex;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, MetaObject, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use vakra_bpo::{BpoData, BpoSession};

/// The BPO domain of capability 3 as the reference's `bpo_benchmark` FastMCP server lists and
/// answers it. Each MCP session has its own generator and counters (a fresh reference process
/// per session); the data set is shared.
#[derive(Clone)]
pub struct BpoToolServer {
    data: Arc<BpoData>,
    session: Arc<Mutex<BpoSession>>,
    tools: Arc<Vec<Tool>>,
}

impl BpoToolServer {
    /// A server with a fresh session over `data`.
    pub fn new(data: Arc<BpoData>) -> Self {
        let session = BpoSession::new(Arc::clone(&data));
        let tools = session
            .tools()
            .into_iter()
            .map(|spec| {
                let mut tool = Tool::new(
                    spec.name.clone(),
                    spec.description,
                    Arc::new(spec.input_schema),
                )
                .with_meta(MetaObject(vakra_bpo::tool_meta()));
                if let Some(schema) = data.output_schema(&spec.name) {
                    tool = tool.with_raw_output_schema(Arc::new(schema));
                }
                tool
            })
            .collect();
        Self {
            data,
            session: Arc::new(Mutex::new(session)),
            tools: Arc::new(tools),
        }
    }

    /// The same data, with a new session state.
    pub fn new_session(&self) -> Self {
        Self::new(Arc::clone(&self.data))
    }

    /// The listed tools.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }
}

impl ServerHandler for BpoToolServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        capabilities.experimental = Some(Default::default());
        let mut tools = ToolsCapability::default();
        tools.list_changed = Some(false);
        capabilities.tools = Some(tools);
        let mut config = ServerConfig::new(capabilities);
        config.server_info = Implementation::new("bpo_benchmark", env!("CARGO_PKG_VERSION"));
        config
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        crate::protocol_versions()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult {
            tools: self.tools.as_ref().clone(),
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut session = Arc::clone(&self.session).lock_owned().await;
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        // Fuzzy matching an unknown id scores every candidate: off the async workers.
        let output = crate::calls::blocking(move || session.call(&name, arguments))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let structured = output.structured_content();
        let content: Vec<ContentBlock> = output.text.map(ContentBlock::text).into_iter().collect();
        let mut result = if output.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        result.structured_content = structured;
        Ok(result.into())
    }
}

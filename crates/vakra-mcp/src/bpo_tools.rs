use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use rmcp::model::{MetaObject, ServerConfig, Tool};
use serde_json::{Map, Value};
use tokio::sync::Mutex;
use vakra_bpo::{BpoData, BpoSession};

use crate::tool_server::{Answer, Answered, ToolServer};

/// The BPO domain of capability 3 as the reference's `bpo_benchmark` FastMCP server lists and
/// answers it. Each MCP session has its own generator and counters (a fresh reference process
/// per session); the data set is shared.
#[derive(Clone)]
pub(crate) struct BpoToolServer {
    data: Arc<BpoData>,
    session: Arc<Mutex<BpoSession>>,
    tools: Arc<Vec<Tool>>,
    info: ServerConfig,
}

impl BpoToolServer {
    /// A server with a fresh session over `data`, answering `initialize` with `info`.
    pub(crate) fn new(data: Arc<BpoData>, info: ServerConfig) -> Self {
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
            info,
        }
    }
}

impl ToolServer for BpoToolServer {
    fn info(&self) -> ServerConfig {
        self.info.clone()
    }

    fn tools(&self) -> BoxFuture<'_, Vec<Tool>> {
        std::future::ready(self.tools.as_ref().clone()).boxed()
    }

    /// The same data, with a new session state.
    fn new_session(&self) -> Arc<dyn ToolServer> {
        Arc::new(Self::new(Arc::clone(&self.data), self.info.clone()))
    }

    /// FastMCP checks the arguments itself (the BPO session does, with pydantic's texts).
    fn sdk_validates(&self, _name: &str) -> bool {
        false
    }

    fn call<'a>(&'a self, name: &'a str, arguments: Map<String, Value>) -> BoxFuture<'a, Answered> {
        async move {
            let mut session = Arc::clone(&self.session).lock_owned().await;
            let name = name.to_owned();
            // Fuzzy matching an unknown id scores every candidate: off the async workers.
            let output = crate::calls::blocking(move || session.call(&name, arguments)).await?;
            Ok(Answer {
                structured: output.structured_content(),
                text: output.text,
                is_error: output.is_error,
                listing_changed: false,
            })
        }
        .boxed()
    }
}

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use vakra_retrieval::Retrievers;

use crate::RestToolServer;

/// Capability 4: a domain's REST-BIRD tools followed by the `query_<domain>` document-search
/// tools of the domain and its distractors, as the reference's combined server lists them.
#[derive(Clone)]
pub struct CombinedServer {
    rest: RestToolServer,
    retrievers: Arc<Retrievers>,
    domains: Vec<String>,
    retriever_tools: Arc<Vec<Tool>>,
    info: ServerConfig,
}

impl CombinedServer {
    /// `rest` serves the REST tools of `domains` (the reference's prefix filter); the retriever
    /// tools come from `retrievers` (the negatives file's domains, exact match).
    pub fn new(
        rest: RestToolServer,
        retrievers: Arc<Retrievers>,
        domains: &[String],
        info: ServerConfig,
    ) -> Result<Self, vakra_retrieval::RetrievalError> {
        let specs = if domains.is_empty() {
            retrievers.all_tools()?
        } else {
            let primaries: Vec<&str> = domains.iter().map(String::as_str).collect();
            retrievers.tools_for_domains(&primaries)?
        };
        let retriever_tools = specs
            .into_iter()
            .map(|s| Tool::new(s.name, s.description, Arc::new(s.input_schema)))
            .collect();
        Ok(Self {
            rest,
            retrievers,
            domains: domains.to_vec(),
            retriever_tools: Arc::new(retriever_tools),
            info,
        })
    }

    /// Every listed tool: REST first, then retrievers.
    pub fn tools(&self) -> Vec<Tool> {
        let mut tools = self.rest.tools().to_vec();
        tools.extend(self.retriever_tools.iter().cloned());
        tools
    }

    async fn call(&self, name: &str, arguments: Map<String, Value>) -> (String, bool) {
        if self.retriever_tools.iter().any(|t| t.name == name) {
            let retrievers = Arc::clone(&self.retrievers);
            let domains = self.domains.clone();
            let tool = name.to_owned();
            let answer = crate::calls::blocking(move || {
                let primaries: Vec<&str> = if domains.is_empty() {
                    vec![tool.strip_prefix("query_").unwrap_or(&tool)]
                } else {
                    domains.iter().map(String::as_str).collect()
                };
                primaries
                    .into_iter()
                    .find_map(|d| retrievers.call(d, &tool, &arguments))
            })
            .await;
            return retriever_answer(name, answer);
        }
        if self.rest.tools().iter().any(|t| t.name == name) {
            return self.rest.call(name, arguments).await;
        }
        (format!("Tool '{name}' not found"), true)
    }
}

/// What a retriever tool's call answers once its blocking search task is over. A task that
/// panicked or was cancelled is an internal error of this server, not an unknown tool: the agent
/// reads an `Error: …` text (not an MCP error, like the wrapper's `Error: {e}` for an unexpected
/// exception) and the operator finds the cause in the log.
fn retriever_answer(
    name: &str,
    answer: Result<Option<(String, bool)>, tokio::task::JoinError>,
) -> (String, bool) {
    match answer {
        Ok(Some(answer)) => answer,
        Ok(None) => (format!("Tool '{name}' not found"), true),
        Err(e) => {
            tracing::error!("{name}: the search task failed: {e}");
            (
                format!("Error: an internal error happened in {name}; the search did not complete"),
                false,
            )
        }
    }
}

impl ServerHandler for CombinedServer {
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
        Ok(ListToolsResult {
            tools: self.tools(),
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (text, is_error) = self
            .call(&request.name, request.arguments.unwrap_or_default())
            .await;
        Ok(crate::text_result(text, is_error).into())
    }
}

#[cfg(test)]
mod tests {
    use super::retriever_answer;

    #[tokio::test]
    async fn a_failed_search_task_is_an_internal_error_text() {
        let panicked =
            tokio::task::spawn_blocking(|| -> Option<(String, bool)> { panic!("search blew up") })
                .await;
        assert_eq!(
            retriever_answer("query_library", panicked),
            (
                "Error: an internal error happened in query_library; the search did not complete"
                    .to_owned(),
                false
            )
        );
        let unknown = tokio::task::spawn_blocking(|| None).await;
        assert_eq!(
            retriever_answer("query_x", unknown),
            ("Tool 'query_x' not found".to_owned(), true)
        );
        let answered = tokio::task::spawn_blocking(|| Some(("{}".to_owned(), false))).await;
        assert_eq!(
            retriever_answer("query_x", answered),
            ("{}".to_owned(), false)
        );
    }
}

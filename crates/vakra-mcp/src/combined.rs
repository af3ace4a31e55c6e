use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use rmcp::model::{ServerConfig, Tool};
use serde_json::{Map, Value};
use vakra_retrieval::Retrievers;

use crate::rest_tools::RestToolServer;
use crate::tool_server::{Answer, Answered, ToolServer};

/// Capability 4: a domain's REST-BIRD tools followed by the `query_<domain>` document-search
/// tools of the domain and its distractors, as the reference's combined server lists them.
#[derive(Clone)]
pub(crate) struct CombinedServer {
    rest: RestToolServer,
    retrievers: Arc<Retrievers>,
    domains: Vec<String>,
    retriever_tools: Arc<Vec<Tool>>,
    info: ServerConfig,
}

impl CombinedServer {
    /// `rest` serves the REST tools of `domains` (the reference's prefix filter); the retriever
    /// tools come from `retrievers` (the negatives file's domains, exact match).
    pub(crate) fn new(
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

    fn is_retriever(&self, name: &str) -> bool {
        self.retriever_tools.iter().any(|t| t.name == name)
    }

    async fn run(&self, name: &str, arguments: Map<String, Value>) -> (String, bool) {
        if self.is_retriever(name) {
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
        if self.rest.listed().iter().any(|t| t.name == name) {
            return self.rest.run(name, arguments).await;
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

impl ToolServer for CombinedServer {
    fn info(&self) -> ServerConfig {
        self.info.clone()
    }

    /// REST first, then retrievers.
    fn tools(&self) -> BoxFuture<'_, Vec<Tool>> {
        let mut tools = self.rest.listed().to_vec();
        tools.extend(self.retriever_tools.iter().cloned());
        std::future::ready(tools).boxed()
    }

    fn new_session(&self) -> Arc<dyn ToolServer> {
        Arc::new(self.clone())
    }

    /// The REST tools are the wrapper's (validated by the SDK); the retrievers check their own.
    fn sdk_validates(&self, name: &str) -> bool {
        !self.is_retriever(name)
    }

    fn call<'a>(&'a self, name: &'a str, arguments: Map<String, Value>) -> BoxFuture<'a, Answered> {
        async move {
            let (text, is_error) = self.run(name, arguments).await;
            Ok(Answer::text(text, is_error))
        }
        .boxed()
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

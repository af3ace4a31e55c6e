use std::collections::HashMap;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use rmcp::model::{ServerConfig, Tool};
use serde_json::{Map, Value};
use vakra_catalog::tools::{path_in_domain, tool_for};
use vakra_endpoint::{Endpoint, Outcome, RestBird};

use crate::texts;
use crate::tool_server::{Answer, Answered, ToolServer};

/// REST-BIRD endpoints as MCP tools, the way the reference's OpenAPI wrapper lists and calls
/// them, with calls run in-process instead of over HTTP.
#[derive(Clone)]
pub(crate) struct RestToolServer {
    inner: Arc<Inner>,
}

struct Inner {
    bird: Arc<RestBird>,
    tools: Vec<Tool>,
    targets: Vec<Target>,
    /// Calls run the first tool of a name, as the wrapper's linear search does (the SDK
    /// validates against the last one: its cache is a dict).
    first: HashMap<String, usize>,
    base_url: String,
    info: ServerConfig,
}

enum Target {
    Endpoint(Arc<Endpoint>),
    /// `/metrics`, listed only when no domain filter is set, as in the reference.
    Metrics,
}

impl RestToolServer {
    /// The tools of the endpoints whose path matches one of `domains` (the reference's prefix
    /// test, or exact with `options.fix_quirks`); all endpoints and `/metrics` when `domains` is
    /// empty.
    pub(crate) fn new(
        bird: Arc<RestBird>,
        domains: &[String],
        base_url: String,
        info: ServerConfig,
        exact_domains: bool,
    ) -> Self {
        let mut tools = Vec::new();
        let mut targets = Vec::new();
        if domains.is_empty() {
            tools.push(Tool::new(
                "metrics_metrics_get",
                "Metrics",
                Arc::new(
                    serde_json::json!({"type": "object", "properties": {}, "required": []})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                ),
            ));
            targets.push(Target::Metrics);
        }
        for endpoint in bird.endpoints() {
            let path = &endpoint.operation().path;
            if !domains.is_empty()
                && !domains
                    .iter()
                    .any(|d| path_in_domain(path, d, exact_domains))
            {
                continue;
            }
            let spec = tool_for(endpoint.operation());
            tools.push(Tool::new(
                spec.name,
                spec.description,
                Arc::new(spec.input_schema),
            ));
            targets.push(Target::Endpoint(Arc::clone(endpoint)));
        }
        let mut first = HashMap::new();
        for (i, tool) in tools.iter().enumerate() {
            first.entry(tool.name.to_string()).or_insert(i);
        }
        Self {
            inner: Arc::new(Inner {
                bird,
                tools,
                targets,
                first,
                base_url,
                info,
            }),
        }
    }

    /// The listed tools, in the reference's order.
    pub(crate) fn listed(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// Runs a tool as the reference's wrapper would (its arguments already validated by the
    /// SDK). Returns the result text and the error flag the agent sees.
    pub(crate) async fn run(&self, name: &str, arguments: Map<String, Value>) -> (String, bool) {
        let inner = &self.inner;
        let Some(&index) = inner.first.get(name) else {
            return (format!("Tool {name} not found"), true);
        };
        tracing::info!("tool_call tool={name}");
        let endpoint = match &inner.targets[index] {
            Target::Metrics => {
                return (
                    "Error: Expecting value: line 1 column 1 (char 0)".into(),
                    false,
                );
            }
            Target::Endpoint(endpoint) => Arc::clone(endpoint),
        };
        let query: Vec<(String, String)> = endpoint
            .operation()
            .params
            .iter()
            .filter_map(|p| {
                arguments
                    .get(&p.name)
                    .map(|v| (p.name.clone(), vakra_pytext::py_str(v)))
            })
            .collect();
        let bird = Arc::clone(&inner.bird);
        let run = {
            let endpoint = Arc::clone(&endpoint);
            let query = query.clone();
            crate::calls::blocking(move || bird.execute(&endpoint, &query))
        };
        let url = || texts::request_url(&inner.base_url, &endpoint.operation().path, &query);
        match run.await {
            Ok(Outcome::Ok(body)) => (texts::success(&body), false),
            Ok(Outcome::Invalid(_)) => (texts::http_error(422, &url()), false),
            Ok(Outcome::Failed(message)) => {
                tracing::warn!("HTTP error calling GET {}: {message}", url());
                (texts::http_error(500, &url()), false)
            }
            Err(join) => {
                tracing::error!("tool task failed: {join}");
                (texts::http_error(500, &url()), false)
            }
        }
    }
}

impl ToolServer for RestToolServer {
    fn info(&self) -> ServerConfig {
        self.inner.info.clone()
    }

    fn tools(&self) -> BoxFuture<'_, Vec<Tool>> {
        std::future::ready(self.inner.tools.clone()).boxed()
    }

    fn new_session(&self) -> Arc<dyn ToolServer> {
        Arc::new(self.clone())
    }

    fn sdk_validates(&self, _name: &str) -> bool {
        true
    }

    fn call<'a>(&'a self, name: &'a str, arguments: Map<String, Value>) -> BoxFuture<'a, Answered> {
        async move {
            let (text, is_error) = self.run(name, arguments).await;
            Ok(Answer::text(text, is_error))
        }
        .boxed()
    }
}

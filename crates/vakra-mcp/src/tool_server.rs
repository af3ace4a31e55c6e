//! The one shape of a capability's tool server: what it lists and how it answers a call.
//!
//! Each server ([`RestToolServer`](crate::rest_tools::RestToolServer), the BPO, capability-1
//! and capability-4 servers) implements only [`ToolServer`]; everything MCP adds around a call
//! (the SDK's argument validation, `list_changed` announcements, the call queue and time limit,
//! the result cap and the trace) is done once, by [`EnvServer`](crate::EnvServer)'s handler.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::model::{CallToolResult, ContentBlock, ServerConfig, Tool};
use serde_json::{Map, Value};

/// A call's answer, before MCP wraps it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    /// The one text content (none: an empty content list).
    pub text: Option<String>,
    /// The result's `isError` flag.
    pub is_error: bool,
    /// The result's `structuredContent`.
    pub structured: Option<Value>,
    /// Whether the call changed the session's tool listing (announced to the client).
    pub listing_changed: bool,
}

impl Answer {
    /// An answer of one text, flagged `isError` or not.
    pub fn text(text: String, is_error: bool) -> Self {
        Self {
            text: Some(text),
            is_error,
            structured: None,
            listing_changed: false,
        }
    }

    /// The MCP result the client gets.
    pub fn into_result(self) -> CallToolResult {
        let content: Vec<ContentBlock> = self.text.map(ContentBlock::text).into_iter().collect();
        let mut result = if self.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        result.structured_content = self.structured;
        result
    }
}

/// A call whose blocking work panicked or was cancelled: the client gets an internal error.
pub(crate) type Answered = Result<Answer, tokio::task::JoinError>;

/// One capability's tool server for one MCP session.
pub(crate) trait ToolServer: Send + Sync {
    /// What `initialize` answers (server name, capabilities).
    fn info(&self) -> ServerConfig;

    /// The tools `tools/list` answers now (it may wait for a call of the session in progress).
    fn tools(&self) -> BoxFuture<'_, Vec<Tool>>;

    /// The same server with a new session state; what sessions share is read-only.
    fn new_session(&self) -> Arc<dyn ToolServer>;

    /// Whether the Python SDK checks `name`'s arguments against its cached listing before the
    /// call (the reference's lowlevel servers); `false` where the reference's server checks its
    /// own (FastMCP's BPO tools, the combined server's retrievers).
    fn sdk_validates(&self, name: &str) -> bool;

    /// Runs one call; blocking work goes through [`blocking`](crate::calls::blocking).
    fn call<'a>(&'a self, name: &'a str, arguments: Map<String, Value>) -> BoxFuture<'a, Answered>;
}

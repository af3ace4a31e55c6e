//! MCP client sessions (rmcp) and tool calls.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::Value;

use crate::text::args;

/// An MCP client session.
pub type McpClient = RunningService<RoleClient, ()>;

/// A session with the MCP server that `command` starts, over its stdin and stdout.
pub async fn stdio_client(command: tokio::process::Command) -> McpClient {
    let transport = rmcp::transport::TokioChildProcess::new(command).expect("the server starts");
    ().serve(transport).await.expect("the MCP handshake")
}

/// A session over streamable HTTP with the MCP endpoint at `url`.
pub async fn http_client(url: &str) -> McpClient {
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_owned());
    ().serve(transport).await.expect("the MCP handshake")
}

/// Calls `tool`: the text of its result's one content block and its `isError` flag. A
/// protocol-level error or any other content fails the test.
pub async fn call_tool(client: &McpClient, tool: &str, arguments: Value) -> (String, bool) {
    let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(args(arguments));
    let result = client
        .call_tool(request)
        .await
        .unwrap_or_else(|e| panic!("{tool}: the call failed at the protocol level: {e}"));
    assert_eq!(result.content.len(), 1, "{tool}: one text block");
    let text = result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone();
    (text, result.is_error.unwrap_or(false))
}

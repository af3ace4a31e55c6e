//! MCP client sessions (rmcp) and tool calls.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value};

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

fn object(arguments: Value) -> Map<String, Value> {
    match arguments {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

async fn result(
    client: &McpClient,
    tool: &str,
    arguments: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(object(arguments));
    client.call_tool(request).await
}

/// Calls `tool`: the text of its result's one content block and its `isError` flag. A
/// protocol-level error or any other content fails the test.
pub async fn call_tool(client: &McpClient, tool: &str, arguments: Value) -> (String, bool) {
    let result = result(client, tool, arguments)
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

/// Calls `tool`: the text of its result (its text blocks joined; empty for none) and its
/// `isError` flag, or the protocol-level error.
pub async fn try_call(
    client: &McpClient,
    tool: &str,
    arguments: Value,
) -> Result<(String, bool), rmcp::ServiceError> {
    let result = result(client, tool, arguments).await?;
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect();
    Ok((text, result.is_error.unwrap_or(false)))
}

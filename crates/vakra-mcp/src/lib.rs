//! The benchmark's MCP servers.
//!
//! Agents reach the environment only through MCP tools scoped to one capability and domain. For
//! REST-BIRD (capabilities 2 and 3, and the REST half of 4) the reference runs a Python wrapper
//! that fetches `/openapi.json`, lists one tool per operation and proxies calls over HTTP. Here the
//! same tools are derived from the catalogs and calls run in-process ([`RestToolServer`]), with
//! the wrapper's observable behaviour kept: tool order and the domain-prefix filter, the Python
//! SDK's argument-validation messages ([`validation`]), indented ASCII-escaped JSON results, and
//! the `Error calling API: …` texts that quote the request URL.
//!
//! Capability 1 ([`ChainingToolServer`]) keeps one SLOT-BIRD/SEL-BIRD session per MCP session
//! and reproduces the SDK's validation against its cached tool list.
//!
//! [`EnvServer`] picks the server for a capability and domain; [`serve_stdio`] and [`http_router`]
//! put it on a transport, wrapped in [`Traced`] to record session traces ([`trace`]).

mod bpo_tools;
mod calls;
mod chaining_tools;
mod combined;
mod env;
mod http;
mod incoming;
mod rest_tools;
mod session_ids;
mod stdio;
mod texts;
pub mod trace;
pub mod validation;

pub use bpo_tools::BpoToolServer;
pub use chaining_tools::ChainingToolServer;
pub use combined::CombinedServer;
pub use env::{Capability, EnvServer, ServerOptions, SessionSpec, SpecError};
pub use http::{HttpLimits, McpDrain, http_router};
pub use rest_tools::RestToolServer;
pub use session_ids::{NamedSessions, check_replica_name};
pub use trace::{TraceLimits, Traced};

/// The protocol versions every server offers: up to 2025-11-25, what the reference's Python SDK
/// speaks. 2026-07-28 serves each HTTP request statelessly, which would lose per-session state
/// (capability-1 handles, BPO counters) and per-session tool lists.
pub(crate) fn protocol_versions() -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
    use rmcp::model::ProtocolVersion;
    std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
}

/// A tool answer of one text content, flagged `isError` or not.
pub(crate) fn text_result(text: String, is_error: bool) -> rmcp::model::CallToolResult {
    use rmcp::model::{CallToolResult, ContentBlock};
    let content = vec![ContentBlock::text(text)];
    if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

/// Serves one session over stdin/stdout until the client closes it, traced when the options
/// name a trace directory.
pub async fn serve_stdio(
    server: EnvServer,
    spec: &SessionSpec,
    options: &ServerOptions,
) -> Result<(), std::io::Error> {
    use rmcp::ServiceExt;
    // When the client closes stdin, calls in flight stop at once (their answers could not be
    // read), so that the process exits without waiting for them.
    let closed = tokio_util::sync::CancellationToken::new();
    let stdin = stdio::UntilEof::new(tokio::io::stdin(), closed.clone());
    let traced = Traced::new(
        server.closed_by(closed),
        spec,
        options.trace_dir.as_deref(),
        &options.trace_limits,
    );
    let transport = stdio::LineTransport::new(stdin, tokio::io::stdout(), stdio::MAX_LINE_BYTES);
    let running = traced
        .serve(transport)
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

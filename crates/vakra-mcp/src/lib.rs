//! The benchmark's MCP servers.
//!
//! Agents reach the environment only through MCP tools scoped to one capability and domain. For
//! REST-BIRD (capabilities 2 and 3, and the REST half of 4) the reference runs a Python wrapper
//! that fetches `/openapi.json`, lists one tool per operation and proxies calls over HTTP. Here the
//! same tools are derived from the catalogs and calls run in-process (`rest_tools.rs`), with the
//! wrapper's observable behaviour kept: tool order and the domain-prefix filter, the Python SDK's
//! argument-validation messages ([`validation`]), indented ASCII-escaped JSON results, and the
//! `Error calling API: …` texts that quote the request URL. Capability 1 (`chaining_tools.rs`)
//! keeps one SLOT-BIRD/SEL-BIRD session per MCP session, capability 3's `bpo` domain has the
//! BPO server (`bpo_tools.rs`), capability 4 adds document retrievers (`combined.rs`).
//!
//! Each of those implements one internal trait, `ToolServer` (`tool_server.rs`): its server
//! info, its current tools, a new session, and a call returning a plain answer. [`EnvServer`]
//! holds one of them (`env.rs` picks it from a [`SessionSpec`]: the one place to add a
//! capability) and is the only MCP `ServerHandler` (`handler.rs`). A call's path, in one
//! direction: transport ([`serve_stdio`], or [`http_router`] with its sessions (`sessions.rs`,
//! named by `session_ids.rs`), a single answer sent as one JSON body by `framing.rs`) →
//! `EnvServer`'s handler (the session's queue and time limit in `calls.rs`; the SDK's
//! validation against its cached listing; the tool server; `list_changed`; the result cap; the
//! session's [`trace`]) → the client.

mod bpo_tools;
mod calls;
mod chaining_tools;
mod combined;
mod disconnect;
mod env;
mod framing;
mod handler;
mod http;
mod incoming;
mod options;
mod rest_tools;
mod session_ids;
mod sessions;
mod spec;
mod stdio;
mod texts;
mod tool_server;
pub mod trace;
pub mod validation;

pub use calls::opened_by;
pub use env::EnvServer;
pub use http::{HttpLimits, McpDrain, http_router};
pub use incoming::{BigIntegers, big_integers_in};
pub use options::ServerOptions;
pub use session_ids::{NamedSessions, check_replica_name};
pub use spec::{Capability, SessionSpec, SpecError};
pub use stdio::MAX_UNANSWERED;
pub use trace::TraceLimits;

/// Serves one session over stdin/stdout until the client closes it, traced when the options
/// name a trace directory, reading no further request while `max_unanswered` await their
/// answers.
pub async fn serve_stdio(
    server: EnvServer,
    spec: &SessionSpec,
    options: &ServerOptions,
    max_unanswered: usize,
) -> Result<(), std::io::Error> {
    use rmcp::ServiceExt;
    // When the client closes stdin, calls in flight stop at once (their answers could not be
    // read), so that the process exits without waiting for them.
    let closed = tokio_util::sync::CancellationToken::new();
    let stdin = stdio::UntilEof::new(tokio::io::stdin(), closed.clone());
    let transport = stdio::LineTransport::new(
        stdin,
        tokio::io::stdout(),
        stdio::MAX_LINE_BYTES,
        max_unanswered,
    );
    let running = server
        .closed_by(closed)
        .traced(spec, options)
        .serve(transport)
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

//! The client side of the benchmark's MCP servers.
//!
//! The evaluator replays recorded tool calls, the runner drives an agent's calls, the episodes
//! serve them one step at a time and the stand-in model reads the tools it is offered: all of
//! them open sessions here. A [`Connector`] says where a session goes — the project's own
//! servers in this process ([`InProcess`]), any MCP server started as a command (stdio), or one
//! reached by URL (streamable HTTP) — and a [`ReplaySession`] lists the tools and calls them, with the
//! reference's replay rules (a JSON-string argument parsed, arguments coerced to the tool's
//! schema by [`coerce`]) or as any MCP client does.

pub mod coerce;
mod session;

pub use session::{CallIssue, Connector, InProcess, ReplaySession, Response};

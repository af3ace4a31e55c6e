//! Where MCP sessions come from, for the commands that open them per sample (`eval`, `run`):
//! the project's own servers in-process, a server command, or a streamable-HTTP URL.

use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use vakra_client::{Connector, InProcess};
use vakra_mcp::ServerOptions;

#[derive(Args, Clone)]
pub struct ServerArgs {
    /// Open each session on an MCP server started over stdio instead of the built-in servers;
    /// split into words as a POSIX shell would (quotes and backslashes), not run by a shell;
    /// `{capability}` and `{domain}` are filled in, and the child gets CAPABILITY_ID and
    /// MCP_DOMAIN (e.g. "vakra mcp --root R"). Its stderr is discarded.
    #[arg(long = "server-command", conflicts_with = "server_url")]
    pub server_command: Option<String>,
    /// Open each session on a streamable-HTTP MCP endpoint, e.g.
    /// http://127.0.0.1:8000/mcp/{capability}/{domain}.
    #[arg(long = "server-url")]
    pub server_url: Option<String>,
}

impl ServerArgs {
    pub fn connector(&self, options: ServerOptions) -> anyhow::Result<Connector> {
        Ok(match (&self.server_command, &self.server_url) {
            (Some(command), _) => {
                let mut words = shlex::split(command)
                    .with_context(|| {
                        format!("--server-command {command:?} has an unclosed quote or escape")
                    })?
                    .into_iter();
                let program = words.next().context("--server-command is empty")?;
                Connector::Command {
                    program,
                    args: words.collect(),
                }
            }
            (None, Some(url)) => Connector::Url(url.clone()),
            (None, None) => Connector::InProcess(Arc::new(InProcess::new(options))),
        })
    }
}

use clap::Args;
use vakra_mcp::{Capability, EnvServer, SessionSpec};

use crate::{DataArgs, TraceDirArg};

#[derive(Args)]
pub struct McpArgs {
    /// Capability 1–4 (default: $CAPABILITY_ID, as in the reference's dispatcher).
    #[arg(long, env = "CAPABILITY_ID")]
    capability: String,
    /// Domain, or a comma-separated list (default: $MCP_DOMAIN; empty means every domain).
    #[arg(long, env = "MCP_DOMAIN", default_value = "")]
    domain: String,
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    trace: TraceDirArg,
    /// Requests read and not yet answered at most: beyond it no further request is read until
    /// the client reads an answer, so a client that never reads cannot make the server hold
    /// unbounded answers.
    #[arg(long = "max-unanswered", default_value_t = vakra_mcp::MAX_UNANSWERED)]
    max_unanswered: usize,
}

pub fn run(args: McpArgs) -> anyhow::Result<()> {
    let capability: Capability = args.capability.parse()?;
    args.data.require_data_root()?;
    let mut options = args.data.options()?;
    args.trace.apply(&mut options)?;
    let spec = SessionSpec::new(capability, &args.domain);
    let server = EnvServer::open(&spec, &options)?;
    let runtime = crate::runtime::build(Some(2))?;
    let served = runtime.block_on(vakra_mcp::serve_stdio(
        server,
        &spec,
        &options,
        args.max_unanswered,
    ));
    // Work of stopped calls still on blocking threads (a statement before it notices) and the
    // stdin reader must not hold the exit once the client is gone.
    crate::runtime::close(runtime);
    served?;
    Ok(())
}

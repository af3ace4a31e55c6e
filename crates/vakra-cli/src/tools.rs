use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{Value, json};
use vakra_catalog::tools::{ToolSpec, checksum};
use vakra_mcp::{Capability, EnvServer, SessionSpec};

use crate::DataArgs;

#[derive(Args)]
pub struct ToolsArgs {
    #[command(subcommand)]
    command: ToolsCommand,
}

#[derive(Subcommand)]
enum ToolsCommand {
    /// Print the tools one MCP session lists (name and description, or JSON).
    List {
        #[arg(long)]
        capability: String,
        #[arg(long, default_value = "")]
        domain: String,
        /// Print the full tool list as JSON (name, description, inputSchema).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        data: DataArgs,
    },
    /// Compare tool lists with a checksum file in the reference's format (tool_checksums.json).
    Checksums {
        /// The checksum file.
        file: PathBuf,
        #[command(flatten)]
        data: DataArgs,
    },
}

pub fn run(args: ToolsArgs) -> anyhow::Result<()> {
    match args.command {
        ToolsCommand::List {
            capability,
            domain,
            json,
            data,
        } => {
            let tools = session_tools(&data, capability.parse()?, &domain)?;
            let text = if json {
                let listed: Vec<Value> = tools
                    .iter()
                    .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
                    .collect();
                serde_json::to_string_pretty(&listed)? + "\n"
            } else {
                tools
                    .iter()
                    .map(|t| format!("{}\t{}\n", t.name, t.description))
                    .collect()
            };
            write_stdout(&text)
        }
        ToolsCommand::Checksums { file, data } => verify_checksums(&file, &data),
    }
}

fn session_tools(
    data: &DataArgs,
    capability: Capability,
    domain: &str,
) -> anyhow::Result<Vec<ToolSpec>> {
    let options = data.options()?;
    let spec = SessionSpec::new(capability, domain);
    let server = EnvServer::open(&spec, &options)?;
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    Ok(runtime.block_on(server.tool_specs()))
}

fn verify_checksums(file: &std::path::Path, data: &DataArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)?;
    let expected: Value = serde_json::from_str(&text)?;
    let (mut matched, mut mismatched, mut unavailable) = (0, 0, 0);
    let Some(capabilities) = expected.as_object() else {
        anyhow::bail!("{}: expected a JSON object of capabilities", file.display());
    };
    for (capability, domains) in capabilities.iter().filter(|(k, _)| !k.starts_with('_')) {
        let capability: Capability = capability.parse()?;
        for (domain, want) in domains.as_object().into_iter().flatten() {
            match session_tools(data, capability, domain) {
                Ok(tools) => {
                    let got = checksum(&tools);
                    if Some(got.as_str()) == want.as_str() {
                        matched += 1;
                        println!(
                            "match     capability {capability} {domain} ({} tools)",
                            tools.len()
                        );
                    } else {
                        mismatched += 1;
                        println!(
                            "MISMATCH  capability {capability} {domain} ({} tools): {got}",
                            tools.len()
                        );
                    }
                }
                Err(e) => {
                    unavailable += 1;
                    println!("skipped   capability {capability} {domain}: {e}");
                }
            }
        }
    }
    println!("checksums: {matched} matched, {mismatched} mismatched, {unavailable} not available");
    Ok(())
}

/// Writes to stdout; a reader that went away (`vakra tools list | head`) is not an error.
fn write_stdout(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

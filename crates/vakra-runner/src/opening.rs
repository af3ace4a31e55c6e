//! The start and the end of a sample, as the reference's runner makes them (spec §6.4):
//! capability 1's switch to the sample's universe (`get_data`) and the first messages — shared
//! by `vakra run`'s agent and the RL episodes, which hand the start to a trainer's model.

use serde_json::{Value, json};
use vakra_client::{CallIssue, ReplaySession};

use crate::langchain::message;
use crate::peek_json::parse_python_json;
use crate::prompts::Prompts;
use crate::sample::Sample;

/// What the reference's runner does to a fresh session before its agent starts: on a
/// capability-1 server (one listing `get_data`), switch to the sample's universe; with the quirk
/// fixed, list the tools again afterwards. The handle and peek, when there was a switch.
pub async fn enter_universe(
    session: &mut ReplaySession,
    uuid: &str,
    fix_quirks: bool,
) -> Result<Option<(String, Value)>, String> {
    if !session.has_tool("get_data") {
        return Ok(None);
    }
    let peek = switch_universe(session, uuid).await?;
    if fix_quirks {
        session.relist().await?;
    }
    Ok(Some(peek))
}

/// Capability 1: `get_data(tool_universe_id=<uuid>)`; the handle and peek it returns, or the
/// error the reference's runner raises.
async fn switch_universe(session: &ReplaySession, uuid: &str) -> Result<(String, Value), String> {
    let response = session
        .call("get_data", &json!({"tool_universe_id": uuid}))
        .await;
    if let Some(CallIssue::Failure(message)) = &response.issue {
        return Err(format!("get_data failed: {message}"));
    }
    let peek = parse_python_json(&response.text)
        .map_err(|e| format!("JSONDecodeError the get_data answer is not JSON ({e})"))?;
    if let Some(error) = peek.get("error") {
        return Err(format!(
            "RuntimeError Universe switch failed: {}",
            vakra_pytext::py_str(error)
        ));
    }
    match peek.get("handle") {
        Some(handle) => Ok((vakra_pytext::py_str(handle), peek)),
        None => Err("KeyError 'handle'".into()),
    }
}

/// The conversation's start (spec §6.4).
pub fn first_messages(
    prompts: &Prompts,
    fix_quirks: bool,
    sample: &Sample,
    initial: Option<&(String, Value)>,
) -> Vec<Value> {
    let mut messages = Vec::new();
    let instructions = sample.additional_instructions.as_str();
    // The reference tests the text against "" and " " only.
    let has_policy = sample.capability == 4 && !matches!(instructions, "" | " ");
    match &sample.context {
        Some(context) if sample.capability == 4 => {
            if has_policy {
                messages.push(message("system", &prompts.policy(instructions)));
            }
            messages.extend(context.iter().map(|m| message(m.role, &m.content)));
        }
        _ => {
            // Single-turn capability-4 items never see their policy in the reference.
            if has_policy && fix_quirks {
                messages.push(message("system", &prompts.policy(instructions)));
            }
            messages.push(message("user", &sample.query));
        }
    }
    if let Some((handle, peek)) = initial
        && !messages.iter().any(|m| m["role"] == "system")
    {
        messages.insert(0, message("system", &prompts.capability_1(handle, peek)));
    }
    messages
}

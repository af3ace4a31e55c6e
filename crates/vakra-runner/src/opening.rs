//! The start and the end of a sample, as the reference's runner makes them (spec §6.4):
//! capability 1's switch to the sample's universe (`get_data`), the first messages, and the
//! record in the submission format — shared by `vakra run`'s agent and the RL episodes, which
//! hand the start to a trainer's model and export the record for the reward.

use serde_json::{Value, json};
use vakra_client::{CallIssue, ReplaySession};

use crate::langchain::message;
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

/// The tokens Python's `json` writes for non-finite floats, which peeks of float columns hold.
const NON_FINITE: [&str; 3] = ["-Infinity", "Infinity", "NaN"];

/// What stands for a non-finite float in a parsed peek (a JSON value cannot hold one): a string
/// no table holds (a private-use character and the token), so that the capability-1 prompt can
/// print the token as Python does ([`python_json_text`]) and JSON exports can make it `null`
/// ([`without_non_finite`]).
fn non_finite_mark(token: &str) -> String {
    format!("\u{F8FF}{token}")
}

/// `text` (written by `vakra_pytext::dumps`) with each non-finite mark printed as Python's token.
pub fn python_json_text(text: &str) -> String {
    let mut text = text.to_owned();
    for token in NON_FINITE {
        let mark = vakra_pytext::dumps(
            &Value::String(non_finite_mark(token)),
            &vakra_pytext::DumpOptions::python_default(),
        )
        .unwrap_or_default();
        text = text.replace(&mark, token);
    }
    text
}

/// A peek with its non-finite marks as `null`, for JSON that leaves the runner.
pub fn without_non_finite(value: &Value) -> Value {
    match value {
        Value::String(s) if NON_FINITE.iter().any(|t| *s == non_finite_mark(t)) => Value::Null,
        Value::Array(items) => Value::Array(items.iter().map(without_non_finite).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), without_non_finite(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// JSON as Python's `json.loads` reads it: bare `NaN` and `Infinity` become marks.
fn parse_python_json(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(first) => {
            let mut cleaned = String::with_capacity(text.len());
            let mut in_string = false;
            let mut escaped = false;
            let mut rest = text;
            while let Some(c) = rest.chars().next() {
                if in_string {
                    in_string = escaped || c != '"';
                    escaped = !escaped && c == '\\';
                } else if c == '"' {
                    in_string = true;
                } else if let Some(word) = NON_FINITE.into_iter().find(|w| rest.starts_with(w)) {
                    cleaned.push_str(
                        &serde_json::to_string(&non_finite_mark(word)).unwrap_or_default(),
                    );
                    rest = &rest[word.len()..];
                    continue;
                }
                cleaned.push(c);
                rest = &rest[c.len_utf8()..];
            }
            serde_json::from_str(&cleaned).map_err(|_| first)
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peeks_with_nan_parse_as_python_reads_them() {
        let value = parse_python_json(r#"{"handle": "h", "v": [NaN, -Infinity, "NaN"]}"#).unwrap();
        assert_eq!(
            without_non_finite(&value),
            json!({"handle": "h", "v": [null, null, "NaN"]})
        );
        let text = vakra_pytext::dumps(&value["v"], &vakra_pytext::DumpOptions::indent2()).unwrap();
        assert_eq!(
            python_json_text(&text),
            "[\n  NaN,\n  -Infinity,\n  \"NaN\"\n]"
        );
        assert!(parse_python_json("{oops").is_err());
    }
}

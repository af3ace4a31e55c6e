//! The benchmark's agent-facing input: `SPLIT/capability_<n>_<name>/input/<domain>.json`, read
//! as the reference's runner reads it (spec §1.2): the question is the last turn's query; a
//! dialogue of several turns becomes a conversation of user queries and, after each turn with
//! an answer, the answer as the assistant's message.

use std::path::{Path, PathBuf};

use serde_json::Value;
use vakra_records::records::read_array;
use vakra_records::{Side, Split};

use crate::RunError;

/// One message of an earlier turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextMessage {
    /// `user` or `assistant`.
    pub role: &'static str,
    pub content: String,
}

/// One sample to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// 1–4.
    pub capability: u8,
    /// The capability's folder name, kept for the output folder (`capability_2_dashboard_apis`).
    pub capability_dir: String,
    pub domain: String,
    pub uuid: String,
    /// The question: the last turn's query.
    pub query: String,
    pub turn_id: i64,
    /// Every turn as messages, when the dialogue has more than one.
    pub context: Option<Vec<ContextMessage>>,
    /// The policy text (capability 4).
    pub additional_instructions: String,
    /// Position in its domain file, so outputs keep the input's order.
    pub position: usize,
}

/// A record that could not be run, and why.
#[derive(Debug, Clone)]
pub struct SkippedRecord {
    pub file: PathBuf,
    pub index: usize,
    pub reason: String,
}

/// Every sample of the split's capabilities and domains (all when the lists are empty), in
/// capability, domain file and record order.
pub fn read_split(
    split: &Path,
    capabilities: &[u8],
    domains: &[String],
) -> Result<(Vec<Sample>, Vec<SkippedRecord>), RunError> {
    std::fs::read_dir(split).map_err(|e| RunError::Input {
        path: split.to_owned(),
        message: e.to_string(),
    })?;
    let folders = Split::new(split).capabilities(Side::Input, capabilities);
    if folders.is_empty() {
        return Err(RunError::Input {
            path: split.to_owned(),
            message: "no capability_<n>_<name>/input/ folder (of the capabilities asked for)"
                .into(),
        });
    }
    let mut samples = Vec::new();
    let mut skipped = Vec::new();
    for folder in folders {
        for (stem, path) in folder.domain_files(Side::Input) {
            if !domains.is_empty() && !domains.contains(&stem) {
                continue;
            }
            let items = read_array(&path).map_err(|message| RunError::Input {
                path: path.clone(),
                message,
            })?;
            for (index, item) in items.iter().enumerate() {
                match parse_sample(item, &stem) {
                    Ok(parts) => samples.push(Sample {
                        capability: folder.capability,
                        capability_dir: folder.name.clone(),
                        position: index,
                        ..parts
                    }),
                    Err(reason) => skipped.push(SkippedRecord {
                        file: path.clone(),
                        index,
                        reason,
                    }),
                }
            }
        }
    }
    Ok((samples, skipped))
}

/// One input record; `capability`, `capability_dir` and `position` are filled in by the caller.
fn parse_sample(item: &Value, file_domain: &str) -> Result<Sample, String> {
    let record = item.as_object().ok_or("a record must be a JSON object")?;
    let uuid = match record.get("uuid") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err("the record has no uuid".into()),
    };
    let domain = match record.get("domain").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => d.to_owned(),
        _ => file_domain.to_owned(),
    };
    if domain.contains(['/', '\\']) || domain.starts_with('.') {
        return Err(format!("the domain {domain:?} cannot name an output file"));
    }
    let turns = record
        .get("dialogue")
        .and_then(|d| d.get("turns"))
        .and_then(Value::as_array)
        .filter(|turns| !turns.is_empty());
    let (query, turn_id, context) = match turns {
        Some(turns) => {
            let last = &turns[turns.len() - 1];
            let context = (turns.len() > 1)
                .then(|| turns.iter().flat_map(context_messages).collect::<Vec<_>>());
            (text_of(last.get("query")), turn_id_of(last), context)
        }
        None => {
            let first = record
                .get("ground_truth")
                .and_then(Value::as_array)
                .and_then(|gt| gt.first());
            match first {
                Some(turn) => (text_of(turn.get("query")), turn_id_of(turn), None),
                None => (String::new(), 0, None),
            }
        }
    };
    Ok(Sample {
        capability: 0,
        capability_dir: String::new(),
        domain,
        uuid,
        query,
        turn_id,
        context,
        additional_instructions: text_of(record.get("additional_instructions")),
        position: 0,
    })
}

/// A turn as the conversation shows it: its query, then its answer if the answer is truthy
/// (as Python's `str()` writes it, so a list answer reads `['2012 Summer']`).
fn context_messages(turn: &Value) -> Vec<ContextMessage> {
    let mut messages = vec![ContextMessage {
        role: "user",
        content: text_of(turn.get("query")),
    }];
    if let Some(answer) = turn.get("answer").filter(|a| truthy(a)) {
        messages.push(ContextMessage {
            role: "assistant",
            content: vakra_pytext::py_str(answer),
        });
    }
    messages
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => vakra_pytext::py_str(other),
    }
}

fn turn_id_of(turn: &Value) -> i64 {
    match turn.get("turn_id") {
        Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn several_turns_become_a_conversation() {
        let sample = parse_sample(
            &json!({"uuid": "u", "domain": "d", "additional_instructions": "P",
                    "dialogue": {"turns": [
                        {"turn_id": 0, "query": "q0", "answer": ["2012 Summer"]},
                        {"turn_id": 1, "query": "q1", "answer": ""},
                        {"turn_id": 2, "query": "q2"}]}}),
            "file",
        )
        .unwrap();
        assert_eq!((sample.query.as_str(), sample.turn_id), ("q2", 2));
        let context = sample.context.unwrap();
        let roles: Vec<_> = context.iter().map(|m| m.role).collect();
        assert_eq!(roles, ["user", "assistant", "user", "user"]);
        assert_eq!(context[1].content, "['2012 Summer']");
        assert_eq!(sample.additional_instructions, "P");
    }

    #[test]
    fn one_turn_has_no_context_and_the_file_names_a_missing_domain() {
        let sample = parse_sample(
            &json!({"uuid": 7, "dialogue": {"turns": [{"query": "q"}]}}),
            "f",
        )
        .unwrap();
        assert_eq!(sample.uuid, "7");
        assert_eq!(sample.domain, "f");
        assert!(sample.context.is_none());
        assert!(
            parse_sample(&json!({"domain": "d"}), "f")
                .unwrap_err()
                .contains("uuid")
        );
        assert!(
            parse_sample(&json!({"uuid": "u", "domain": "../x"}), "f")
                .unwrap_err()
                .contains("output file")
        );
    }
}

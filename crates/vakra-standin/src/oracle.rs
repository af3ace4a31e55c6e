//! The oracle: plays a split's ground truth. It recognises the sample by its question (the
//! last user message), makes the ground truth's calls of the scored turn one by one — a
//! legacy capability-1 trace's `$<label>.data_path$` references bound to the handles the
//! conversation's tool results named, the starting table to the handle the system message
//! names — and then answers with the ground-truth answer.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value, json};
use vakra_chaining::LegacyTranslator;
use vakra_records::records::{CAPABILITY_DIRS, Call, read_records};
use vakra_records::{Side, Split};

/// The scored turn of one ground-truth record.
struct Script {
    calls: Vec<Call>,
    /// The label of the legacy `initialize_active_data` call, bound to the starting handle.
    start_label: Option<String>,
    answer: String,
}

/// Every ground-truth record of a split, by question.
pub struct Oracle {
    scripts: HashMap<String, Vec<Script>>,
}

impl Oracle {
    /// Reads `SPLIT/capability_<n>_<name>/output/<domain>.json`.
    pub fn load(split: &Path) -> anyhow::Result<Self> {
        let mut scripts: HashMap<String, Vec<Script>> = HashMap::new();
        let folders = Split::new(split);
        for folder in CAPABILITY_DIRS
            .iter()
            .filter_map(|name| folders.folder(name))
        {
            for (_, path) in folder.domain_files(Side::GroundTruth) {
                let (records, problems) = read_records(&path);
                anyhow::ensure!(problems.is_empty(), "{}: {:?}", path.display(), problems);
                for record in records {
                    let Some(turn) = record.turns.last() else {
                        continue;
                    };
                    let mut calls = turn.calls.clone();
                    let start_label = match calls.first() {
                        Some(first) if first.name == "initialize_active_data" => {
                            calls.remove(0).label
                        }
                        _ => None,
                    };
                    scripts.entry(turn.query.clone()).or_default().push(Script {
                        calls,
                        start_label,
                        answer: vakra_records::answer_text(&turn.answer),
                    });
                }
            }
        }
        anyhow::ensure!(
            !scripts.is_empty(),
            "no ground truth under {}",
            split.display()
        );
        Ok(Self { scripts })
    }

    /// The next assistant message for a conversation.
    pub fn reply(&self, messages: &[Value], offered: &[&str]) -> Value {
        let last_user = messages.iter().rposition(|m| m["role"] == "user");
        let query = last_user
            .and_then(|i| messages[i]["content"].as_str())
            .unwrap_or_default();
        let Some(candidates) = self.scripts.get(query) else {
            return json!({"role": "assistant", "content": "I do not know."});
        };
        let script = candidates
            .iter()
            .find(|s| s.calls.iter().all(|c| offered.contains(&c.name.as_str())))
            .unwrap_or(&candidates[0]);
        let results: Vec<&str> = messages[last_user.unwrap_or(0)..]
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap_or_default())
            .collect();
        let Some(next) = script.calls.get(results.len()) else {
            return json!({"role": "assistant", "content": script.answer});
        };
        let mut translator = LegacyTranslator::new("");
        if let (Some(label), Some(handle)) = (&script.start_label, starting_handle(messages)) {
            translator.record(Some(label), &format!("{{\"handle\": \"{handle}\"}}"));
        }
        for (call, result) in script.calls.iter().zip(&results) {
            translator.record(call.label.as_deref(), result);
        }
        let arguments = next.arguments.as_object().cloned().unwrap_or_else(Map::new);
        let live = translator.translate(&next.name, &arguments);
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": format!("call_{}", results.len()),
            "type": "function",
            "function": {"name": live.name, "arguments": Value::Object(live.arguments).to_string()},
        }]})
    }
}

/// The starting table's handle as capability 1's system message names it (`handle: "<h>"`,
/// the last such mention).
fn starting_handle(messages: &[Value]) -> Option<String> {
    let system = messages.iter().find(|m| m["role"] == "system")?["content"].as_str()?;
    let at = system.rfind("handle: \"")? + "handle: \"".len();
    let rest = &system[at..];
    Some(rest[..rest.find('"')?].to_owned())
}

//! Ground-truth traces in the legacy form (spec §9): `initialize_active_data` with explicit
//! `init_args`, and tables named by `"$<label>.data_path$"` strings in `data_source*`
//! arguments. The live server knows neither, so replaying such a trace needs the calls
//! rewritten as they run: the first call becomes `get_data(tool_universe_id)`, and each label
//! is bound to the handle its call's peek returned.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// Rewrites one legacy trace's calls into live calls, one at a time.
#[derive(Debug, Clone)]
pub struct LegacyTranslator {
    universe_id: String,
    handles: HashMap<String, String>,
}

/// A live call made from a legacy one.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveCall {
    pub name: String,
    pub arguments: Map<String, Value>,
}

impl LegacyTranslator {
    /// A translator for a trace of universe `universe_id` (the dialogue's uuid).
    pub fn new(universe_id: impl Into<String>) -> Self {
        Self {
            universe_id: universe_id.into(),
            handles: HashMap::new(),
        }
    }

    /// The live form of a legacy call: `initialize_active_data` becomes `get_data` of the
    /// trace's universe; `data_source`, `data_source_1`, `data_source_2` become `data_label*`
    /// holding the handle bound to the referenced label (unknown labels stay as written, so the
    /// server reports them).
    pub fn translate(&self, name: &str, arguments: &Map<String, Value>) -> LiveCall {
        if name == "initialize_active_data" {
            let mut args = Map::new();
            args.insert(
                "tool_universe_id".into(),
                Value::String(self.universe_id.clone()),
            );
            return LiveCall {
                name: "get_data".into(),
                arguments: args,
            };
        }
        let arguments = arguments
            .iter()
            .map(|(key, value)| {
                let live_key = match key.as_str() {
                    "data_source" => "data_label",
                    "data_source_1" => "data_label_1",
                    "data_source_2" => "data_label_2",
                    other => other,
                };
                let live_value = match (live_key != key, value) {
                    (true, Value::String(reference)) => Value::String(self.resolve(reference)),
                    _ => value.clone(),
                };
                (live_key.to_owned(), live_value)
            })
            .collect();
        LiveCall {
            name: name.to_owned(),
            arguments,
        }
    }

    fn resolve(&self, reference: &str) -> String {
        reference
            .strip_prefix('$')
            .and_then(|r| r.strip_suffix(".data_path$"))
            .and_then(|label| self.handles.get(label))
            .cloned()
            .unwrap_or_else(|| reference.to_owned())
    }

    /// Binds `label` to the handle named by a call's answer, when the answer is a peek.
    pub fn record(&mut self, label: Option<&str>, answer: &str) {
        let (Some(label), Some(handle)) = (label, handle_of_peek(answer)) else {
            return;
        };
        self.handles.insert(label.to_owned(), handle);
    }
}

/// The handle a peek names (peeks may hold bare `NaN`, so they are not parsed as JSON).
pub fn handle_of_peek(answer: &str) -> Option<String> {
    let rest = answer.strip_prefix("{\"handle\": \"")?;
    Some(rest[..rest.find('"')?].to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rewrites_a_legacy_trace() {
        let mut t = LegacyTranslator::new("u-1");
        let first = t.translate("initialize_active_data", &Map::new());
        assert_eq!(first.name, "get_data");
        assert_eq!(first.arguments["tool_universe_id"], "u-1");
        t.record(
            Some("start"),
            "{\"handle\": \"retrieved_data_1\", \"num_records\": 1}",
        );
        let args = json!({"data_source": "$start.data_path$", "key_name": "Country"});
        let live = t.translate("select_data_equal_to", args.as_object().unwrap());
        assert_eq!(
            Value::Object(live.arguments),
            json!({"data_label": "retrieved_data_1", "key_name": "Country"})
        );
        let unknown = json!({"data_source_1": "$nope.data_path$"});
        let live = t.translate("concatenate_data", unknown.as_object().unwrap());
        assert_eq!(live.arguments["data_label_1"], "$nope.data_path$");
        t.record(Some("x"), "3");
        assert!(!t.handles.contains_key("x"));
    }
}

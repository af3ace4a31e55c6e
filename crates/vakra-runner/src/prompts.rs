//! The agent's prompts. The reference's wording is its prose: `vakra import` reads it from a
//! reference checkout into the data root's [`RUNNER_PROMPTS`]; without that file the
//! runner uses this project's own wording (same fields, same place in the conversation).
//!
//! Templates are Python `str.format` strings: capability 1's system message has `{handle}` and
//! `{data_info}`, its data description `{num_records}`, `{columns}` and `{preview}`; the
//! policy message (capability 4) has `{instructions}`.

use std::path::Path;

use serde_json::{Map, Value};
use vakra_catalog::files::{RUNNER_PROMPTS, RunnerPrompts};
use vakra_pytext::python_format;

/// The templates (the data root's file format) and what the runner makes of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompts(pub RunnerPrompts);

impl std::ops::Deref for Prompts {
    type Target = RunnerPrompts;

    fn deref(&self) -> &RunnerPrompts {
        &self.0
    }
}

impl Prompts {
    /// The data root's imported prompts, or this project's own.
    pub fn load(root: &Path) -> Result<Self, String> {
        Ok(match RUNNER_PROMPTS.read_optional(root)? {
            Some((prompts, source)) => Self(RunnerPrompts { source, ..prompts }),
            None => Self::builtin(),
        })
    }

    /// This project's wording.
    pub fn builtin() -> Self {
        Self(RunnerPrompts {
            capability_1_system: include_str!("prompts/capability_1_system.txt").to_owned(),
            capability_1_data_info: include_str!("prompts/capability_1_data_info.txt")
                .trim_end_matches('\n')
                .to_owned(),
            policy_system: include_str!("prompts/policy_system.txt")
                .trim_end_matches('\n')
                .to_owned(),
            source: "built-in".into(),
        })
    }

    /// Capability 1's system message for the starting table `handle` and its peek (the
    /// `get_data` answer). As in the reference, the table description is left out when the
    /// peek lacks its parts; the preview shows the first three values of up to five columns.
    pub fn capability_1(&self, handle: &str, peek: &Value) -> String {
        let data_info = data_info(peek)
            .map(|(num_records, columns, preview)| {
                python_format(
                    &self.capability_1_data_info,
                    &[
                        ("num_records", &num_records),
                        ("columns", &columns),
                        ("preview", &preview),
                    ],
                )
            })
            .unwrap_or_default();
        python_format(
            &self.capability_1_system,
            &[("handle", handle), ("data_info", &data_info)],
        )
    }

    /// The policy message of capability 4.
    pub fn policy(&self, instructions: &str) -> String {
        python_format(&self.policy_system, &[("instructions", instructions)])
    }
}

/// The record count (Python `str`), the column names (a Python list) and the preview
/// (`json.dumps(…, indent=2)`), or `None` when the peek is not shaped for them.
fn data_info(peek: &Value) -> Option<(String, String, String)> {
    let details = match peek.get("key_details") {
        Some(Value::Array(details)) => details.as_slice(),
        None => &[],
        Some(_) => return None,
    };
    let num_records = peek
        .get("num_records")
        .map_or_else(|| "?".to_owned(), vakra_pytext::py_str);
    let mut names = Vec::with_capacity(details.len());
    let mut preview = Map::new();
    for (i, detail) in details.iter().enumerate() {
        let name = detail.get("name")?;
        names.push(name.clone());
        if i < 5 {
            let key = name
                .as_str()
                .map_or_else(|| vakra_pytext::py_str(name), str::to_owned);
            preview.insert(key, detail.get("first_3_values")?.clone());
        }
    }
    let preview = crate::peek_json::python_json_text(
        &vakra_pytext::dumps(
            &Value::Object(preview),
            &vakra_pytext::DumpOptions::indent2(),
        )
        .ok()?,
    );
    Some((
        num_records,
        vakra_pytext::py_repr(&Value::Array(names)),
        preview,
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_peek_fills_the_capability_1_message() {
        let prompts = Prompts(RunnerPrompts {
            capability_1_system: "H={handle}{data_info}|{{x}}".into(),
            capability_1_data_info: "\nn={num_records} c={columns} p={preview}".into(),
            policy_system: "rule: {instructions}.".into(),
            source: String::new(),
        });
        let peek = json!({"handle": "retrieved_t_1", "num_records": 3, "key_details": [
            {"name": "a", "dtype": "int64", "first_3_values": [1, 2, 3]},
            {"name": "b", "dtype": "object", "first_3_values": ["é", null, "z"]}]});
        assert_eq!(
            prompts.capability_1("retrieved_t_1", &peek),
            "H=retrieved_t_1\nn=3 c=['a', 'b'] p={\n  \"a\": [\n    1,\n    2,\n    3\n  ],\n  \"b\": [\n    \"\\u00e9\",\n    null,\n    \"z\"\n  ]\n}|{x}"
        );
        assert_eq!(
            prompts.capability_1("h", &json!({"key_details": [{"dtype": "x"}]})),
            "H=h|{x}",
            "a peek without its parts leaves the description out"
        );
        assert_eq!(prompts.policy("only X"), "rule: only X.");
    }

    #[test]
    fn the_builtin_wording_has_every_field() {
        let prompts = Prompts::builtin();
        for field in ["{handle}", "{data_info}"] {
            assert!(prompts.capability_1_system.contains(field), "{field}");
        }
        for field in ["{num_records}", "{columns}", "{preview}"] {
            assert!(prompts.capability_1_data_info.contains(field), "{field}");
        }
        assert!(prompts.policy_system.contains("{instructions}"));
    }
}

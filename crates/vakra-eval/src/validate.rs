//! Checks prediction files against the submission schema (spec §1.4), with the rules and the
//! error wording of the reference's `validate_output.py` (pydantic v2 in lax mode): a file
//! must be a non-empty JSON array of records with `uuid`, `domain`, `status`
//! (`success`/`error`), `error`, `duration_s` and `output` turns of `turn_id`, `query`,
//! `answer` and `sequence.tool_call` items of `name` and `arguments`. Extra keys are allowed.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// One schema error: where, and pydantic's message.
fn error(index: usize, uuid: &str, location: &[String], message: &str) -> String {
    format!(
        "Record {index} (uuid={uuid}) [{}]: {message}",
        location.join(" -> ")
    )
}

/// The errors of one file; empty when it is valid.
pub fn validate_file(path: &Path) -> Vec<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => validate_text(&text),
        Err(e) => vec![format!("Cannot read the file: {e}")],
    }
}

/// The errors of a prediction file's text; empty when it is valid.
pub fn validate_text(text: &str) -> Vec<String> {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return vec![format!("Invalid JSON: {e}")],
    };
    let Value::Array(records) = value else {
        return vec!["Top-level value must be a JSON array.".into()];
    };
    if records.is_empty() {
        return vec!["Array is empty — no records found.".into()];
    }
    let mut errors = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let Value::Object(record) = record else {
            errors.push(format!(
                "Record {index}: expected an object, got {}",
                vakra_pyjson::pydantic::python_type(record)
            ));
            continue;
        };
        let uuid = match record.get("uuid") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => vakra_pyjson::py_str(other),
            None => format!("<index {index}>"),
        };
        for (location, message) in record_errors(record) {
            errors.push(error(index, &uuid, &location, &message));
        }
    }
    errors
}

type FieldError = (Vec<String>, String);

fn record_errors(record: &Map<String, Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for field in ["uuid", "domain"] {
        check(record, field, &[], &mut errors, expect_str);
    }
    check(record, "status", &[], &mut errors, |v| match v {
        Value::String(s) if s == "success" || s == "error" => None,
        _ => Some("Input should be 'success' or 'error'".into()),
    });
    check(record, "error", &[], &mut errors, expect_str);
    check(record, "duration_s", &[], &mut errors, expect_float);
    check(record, "output", &[], &mut errors, |_| None);
    match record.get("output") {
        Some(Value::Array(turns)) => {
            for (i, turn) in turns.iter().enumerate() {
                let at = vec!["output".to_owned(), i.to_string()];
                match turn {
                    Value::Object(turn) => turn_errors(turn, &at, &mut errors),
                    _ => errors.push((at, dict_message())),
                }
            }
        }
        Some(_) => errors.push((vec!["output".into()], "Input should be a valid list".into())),
        None => {}
    }
    errors
}

fn turn_errors(turn: &Map<String, Value>, at: &[String], errors: &mut Vec<FieldError>) {
    check(turn, "turn_id", at, errors, expect_int);
    check(turn, "query", at, errors, expect_str);
    check(turn, "answer", at, errors, expect_str);
    check(turn, "sequence", at, errors, |_| None);
    let Some(sequence) = turn.get("sequence") else {
        return;
    };
    let at = [at, &["sequence".to_owned()]].concat();
    let Value::Object(sequence) = sequence else {
        errors.push((at, dict_message()));
        return;
    };
    check(sequence, "tool_call", &at, errors, |_| None);
    match sequence.get("tool_call") {
        Some(Value::Array(calls)) => {
            for (i, call) in calls.iter().enumerate() {
                let at = [at.clone(), vec!["tool_call".into(), i.to_string()]].concat();
                match call {
                    Value::Object(call) => {
                        check(call, "name", &at, errors, expect_str);
                        check(call, "arguments", &at, errors, |v| {
                            (!v.is_object()).then(dict_message)
                        });
                    }
                    _ => errors.push((at, dict_message())),
                }
            }
        }
        Some(_) => errors.push((
            [at, vec!["tool_call".into()]].concat(),
            "Input should be a valid list".into(),
        )),
        None => {}
    }
}

fn dict_message() -> String {
    "Input should be a valid dictionary".into()
}

/// Checks one required field with `test` (returning pydantic's message on failure).
fn check(
    object: &Map<String, Value>,
    field: &str,
    at: &[String],
    errors: &mut Vec<FieldError>,
    test: impl Fn(&Value) -> Option<String>,
) {
    let location = [at, &[field.to_owned()]].concat();
    match object.get(field) {
        None => errors.push((location, "Field required".into())),
        Some(value) => {
            if let Some(message) = test(value) {
                errors.push((location, message));
            }
        }
    }
}

fn expect_str(value: &Value) -> Option<String> {
    (!value.is_string()).then(|| "Input should be a valid string".into())
}

fn expect_float(value: &Value) -> Option<String> {
    match value {
        Value::Number(_) | Value::Bool(_) => None,
        Value::String(s) if s.trim().parse::<f64>().is_ok() => None,
        Value::String(_) => {
            Some("Input should be a valid number, unable to parse string as a number".into())
        }
        _ => Some("Input should be a valid number".into()),
    }
}

fn expect_int(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => None,
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => None,
        Value::Number(_) => {
            Some("Input should be a valid integer, got a number with a fractional part".into())
        }
        Value::Bool(_) => None,
        Value::String(s) if s.trim().parse::<i64>().is_ok() => None,
        Value::String(_) => {
            Some("Input should be a valid integer, unable to parse string as an integer".into())
        }
        _ => Some("Input should be a valid integer".into()),
    }
}

/// The files a list of targets names: files as given (`*_tools.json` skipped), and a
/// directory's `*.json` files. Notes on skipped or missing targets go to `notes`.
pub fn collect_files(targets: &[PathBuf], notes: &mut Vec<String>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for target in targets {
        if target.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(target)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|e| e == "json")
                        && !p.to_string_lossy().ends_with("_tools.json")
                })
                .collect();
            found.sort();
            if found.is_empty() {
                notes.push(format!(
                    "no output .json files found in {}",
                    target.display()
                ));
            }
            files.extend(found);
        } else if target.exists() {
            if target.to_string_lossy().ends_with("_tools.json") {
                notes.push(format!("skipping tool-log file: {}", target.display()));
            } else {
                files.push(target.clone());
            }
        } else {
            notes.push(format!("path not found: {}", target.display()));
        }
    }
    files
}

/// The `capability_<n>_*` folders under an output folder.
pub fn capability_dirs(output_dir: &Path, capability: Option<u8>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(output_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match capability {
                Some(n) => name.starts_with(&format!("capability_{n}_")),
                None => crate::records::capability_of_dir(&name).is_some(),
            }
        })
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors_of(value: Value) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.json");
        std::fs::write(&path, value.to_string()).unwrap();
        validate_file(&path)
    }

    #[test]
    fn a_valid_record_passes_with_lax_values() {
        let record = json!([{"uuid": "u", "domain": "d", "status": "error", "error": "", "duration_s": "1.5",
            "extra": 1, "output": [{"turn_id": "0", "query": "q", "answer": "a",
            "sequence": {"tool_call": [{"name": "t", "arguments": {}}]}}]}]);
        assert_eq!(errors_of(record), Vec::<String>::new());
    }

    #[test]
    fn errors_name_the_field() {
        let errors = errors_of(
            json!([{"uuid": "u", "domain": 3, "status": "ok", "duration_s": 1,
            "output": [{"turn_id": 1.5, "query": "q", "answer": ["a"], "sequence": {"tool_call": [{"name": "t", "arguments": "{}"}]}}]}]),
        );
        assert_eq!(
            errors,
            [
                "Record 0 (uuid=u) [domain]: Input should be a valid string",
                "Record 0 (uuid=u) [status]: Input should be 'success' or 'error'",
                "Record 0 (uuid=u) [error]: Field required",
                "Record 0 (uuid=u) [output -> 0 -> turn_id]: Input should be a valid integer, got a number with a fractional part",
                "Record 0 (uuid=u) [output -> 0 -> answer]: Input should be a valid string",
                "Record 0 (uuid=u) [output -> 0 -> sequence -> tool_call -> 0 -> arguments]: Input should be a valid dictionary",
            ]
        );
        assert_eq!(errors_of(json!([])), ["Array is empty — no records found."]);
        assert_eq!(
            errors_of(json!({})),
            ["Top-level value must be a JSON array."]
        );
        assert_eq!(
            errors_of(json!([3])),
            ["Record 0: expected an object, got int"]
        );
    }
}

//! Checks prediction files against the submission schema (spec §1.4), with the rules and the
//! error wording of the reference's `validate_output.py` (pydantic v2 in lax mode): a file
//! must be a non-empty JSON array of records with `uuid`, `domain`, `status`
//! (`success`/`error`), `error`, `duration_s` and `output` turns of `turn_id`, `query`,
//! `answer` and `sequence.tool_call` items of `name` and `arguments`. Extra keys are allowed.
//! Files are read as Python's `json` reads them: `NaN`, `Infinity` and `-Infinity` are numbers
//! (as are numbers too large for a double, which become infinite).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::records::{ArrayError, Capped, for_each_item, max_listed};
use vakra_pytext::pydantic::{
    DICT_TYPE, FINITE_NUMBER, FLOAT_PARSING, FLOAT_TYPE, INT_FROM_FLOAT, INT_PARSING, INT_TYPE,
    LIST_TYPE, MISSING, STRING_TYPE, model_type_message,
};
use vakra_records::{RunFile, Side, Split};

/// One schema error: where, and pydantic's message.
fn error(index: usize, uuid: &str, location: &[String], message: &str) -> String {
    format!(
        "Record {index} (uuid={uuid}) [{}]: {message}",
        location.join(" -> ")
    )
}

/// The errors of one file; empty when it is valid.
pub fn validate_file(path: &Path) -> Vec<String> {
    match crate::records::read_text(path) {
        Ok(text) => validate_text(&text),
        Err(e) => vec![format!("Cannot read the file: {e}")],
    }
}

/// The errors of a prediction file's text; empty when it is valid. Records are read one at a
/// time; at most [`crate::records::DEFAULT_MAX_LISTED`] errors are listed, then a line counting the rest.
pub fn validate_text(text: &str) -> Vec<String> {
    let text = python_text(text);
    let mut errors = Capped::new(max_listed());
    let mut index = 0;
    let read = for_each_item(text.as_bytes(), |record| {
        record_errors_at(index, &record, &mut errors);
        index += 1;
    });
    match read {
        Ok(0) => vec!["Array is empty — no records found.".into()],
        Ok(_) => errors.finish(|more| format!("… and {more} more errors, not listed")),
        Err(ArrayError::NotArray) => vec!["Top-level value must be a JSON array.".into()],
        Err(ArrayError::Json(e)) => vec![format!("Invalid JSON: {e}")],
    }
}

/// The errors of the record at `index`, added to `errors`.
fn record_errors_at(index: usize, record: &Value, errors: &mut Capped<String>) {
    let Some(record) = object(record) else {
        let kind = match non_finite(record) {
            Some(_) => "float",
            None => vakra_pytext::pydantic::python_type(record),
        };
        errors.push(format!("Record {index}: expected an object, got {kind}"));
        return;
    };
    let uuid = match record.get("uuid") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => match non_finite(other) {
            Some(repr) => repr.to_owned(),
            None => vakra_pytext::py_str(other),
        },
        None => format!("<index {index}>"),
    };
    for (location, message) in record_errors(record) {
        errors.push(error(index, &uuid, &location, &message));
    }
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
                match object(turn) {
                    Some(turn) => turn_errors(turn, &at, &mut errors),
                    None => errors.push((at, model_type_message("Turn"))),
                }
            }
        }
        Some(_) => errors.push((vec!["output".into()], LIST_TYPE.message.into())),
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
    let Some(sequence) = object(sequence) else {
        errors.push((at, model_type_message("Sequence")));
        return;
    };
    check(sequence, "tool_call", &at, errors, |_| None);
    match sequence.get("tool_call") {
        Some(Value::Array(calls)) => {
            for (i, call) in calls.iter().enumerate() {
                let at = [at.clone(), vec!["tool_call".into(), i.to_string()]].concat();
                match object(call) {
                    Some(call) => {
                        check(call, "name", &at, errors, expect_str);
                        check(call, "arguments", &at, errors, |v| {
                            object(v).is_none().then(|| DICT_TYPE.message.into())
                        });
                    }
                    None => errors.push((at, model_type_message("ToolCall"))),
                }
            }
        }
        Some(_) => errors.push((
            [at, vec!["tool_call".into()]].concat(),
            LIST_TYPE.message.into(),
        )),
        None => {}
    }
}

/// The key of the object that stands for a non-finite number (serde_json has none); the NUL
/// keeps it apart from any key a JSON text can hold unescaped.
const NON_FINITE: &str = "\u{0}non-finite";

/// JSON text that reads as Python's `json.loads` reads `text`: `NaN`, `Infinity`, `-Infinity`
/// and numbers beyond a double's range each become a `{NON_FINITE: "nan"|"inf"|"-inf"}`
/// object (see [`non_finite`]).
fn python_text(text: &str) -> String {
    let marker = |repr: &str| format!("{{\"\\u0000non-finite\":\"{repr}\"}}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '"' {
            // Copy the whole string, escapes included.
            let mut end = 1;
            let bytes = rest.as_bytes();
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(rest.len());
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        let token_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.')))
            .unwrap_or(rest.len());
        let token = &rest[..token_end.max(c.len_utf8())];
        let replaced = match token {
            "NaN" => Some("nan"),
            "Infinity" => Some("inf"),
            "-Infinity" => Some("-inf"),
            // Python reads integers exactly; only float literals can overflow to infinity.
            _ if (c == '-' || c.is_ascii_digit()) && token.contains(['.', 'e', 'E']) => {
                match token.parse::<f64>() {
                    Ok(x) if x.is_infinite() => Some(if x > 0.0 { "inf" } else { "-inf" }),
                    _ => None,
                }
            }
            _ => None,
        };
        match replaced {
            Some(repr) => out.push_str(&marker(repr)),
            None => out.push_str(token),
        }
        rest = &rest[token.len()..];
    }
    out
}

/// Python's `str()` of a non-finite number read from [`python_text`]; `None` for other values.
fn non_finite(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) if map.len() == 1 => map.get(NON_FINITE)?.as_str(),
        _ => None,
    }
}

/// An object, but not one standing for a non-finite number.
fn object(value: &Value) -> Option<&Map<String, Value>> {
    value.as_object().filter(|_| non_finite(value).is_none())
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
        None => errors.push((location, MISSING.message.into())),
        Some(value) => {
            if let Some(message) = test(value) {
                errors.push((location, message));
            }
        }
    }
}

fn expect_str(value: &Value) -> Option<String> {
    (!value.is_string()).then(|| STRING_TYPE.message.into())
}

fn expect_float(value: &Value) -> Option<String> {
    if non_finite(value).is_some() {
        return None;
    }
    match value {
        Value::Number(_) | Value::Bool(_) => None,
        Value::String(s) if s.trim().parse::<f64>().is_ok() => None,
        Value::String(_) => Some(FLOAT_PARSING.message.into()),
        _ => Some(FLOAT_TYPE.message.into()),
    }
}

fn expect_int(value: &Value) -> Option<String> {
    if non_finite(value).is_some() {
        return Some(FINITE_NUMBER.message.into());
    }
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => None,
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => None,
        Value::Number(_) => Some(INT_FROM_FLOAT.message.into()),
        Value::Bool(_) => None,
        Value::String(s) if s.trim().parse::<i64>().is_ok() => None,
        Value::String(_) => Some(INT_PARSING.message.into()),
        _ => Some(INT_TYPE.message.into()),
    }
}

/// The files a list of targets names: files as given ([`RunFile::Tools`] files skipped), and a
/// folder's `*.json` files but those, whatever their kind (one that is not a regular file is
/// then refused by [`validate_file`], as the reference's validator fails on it). Notes on
/// skipped or missing targets go to `notes`.
pub fn collect_files(targets: &[PathBuf], notes: &mut Vec<String>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for target in targets {
        if target.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(target)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json") && !RunFile::is_tools(p))
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
            if RunFile::is_tools(target) {
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

/// The capability folders of a folder of predictions (of one capability, or all).
pub fn capability_dirs(output_dir: &Path, capability: Option<u8>) -> Vec<PathBuf> {
    let wanted: Vec<u8> = capability.into_iter().collect();
    Split::new(output_dir)
        .capabilities(Side::Predictions, &wanted)
        .into_iter()
        .map(|folder| folder.path)
        .collect()
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

    #[test]
    fn errors_beyond_the_cap_are_counted() {
        let text = format!(
            "[{}]",
            vec!["0"; crate::records::DEFAULT_MAX_LISTED + 7].join(",")
        );
        let errors = validate_text(&text);
        assert_eq!(errors.len(), crate::records::DEFAULT_MAX_LISTED + 1);
        assert_eq!(errors[0], "Record 0: expected an object, got int");
        assert_eq!(
            errors[crate::records::DEFAULT_MAX_LISTED],
            "… and 7 more errors, not listed"
        );
        assert_eq!(
            validate_file(Path::new("/dev/zero")),
            ["Cannot read the file: not a regular file (a FIFO, device or socket)"]
        );
    }

    /// The file and the messages were checked against the reference's `validate_output.py`
    /// (pydantic 2.13): Python's `json` reads `NaN`, `Infinity` and `1e400`, and a turn,
    /// sequence or tool call that is not an object names its model.
    #[test]
    fn non_finite_numbers_and_non_object_models_read_as_python_reads_them() {
        let text = r#"[{"uuid": NaN, "domain": "d", "status": "success", "error": "", "duration_s": -Infinity,
  "output": [{"turn_id": Infinity, "query": "NaN \" Infinity", "answer": "a",
              "sequence": {"tool_call": [{"name": "t", "arguments": {"x": NaN}}, 3]}},
             "turn", {"turn_id": 1, "query": "q", "answer": "a", "sequence": []},
             {"turn_id": 1e400, "query": "q", "answer": "a", "sequence": {"tool_call": [{"name": "t", "arguments": NaN}]}}]},
 NaN,
 {"uuid": "v", "domain": "d", "status": "error", "error": "", "duration_s": 1e400, "output": []}]"#;
        assert_eq!(
            validate_text(text),
            [
                "Record 0 (uuid=nan) [uuid]: Input should be a valid string",
                "Record 0 (uuid=nan) [output -> 0 -> turn_id]: Input should be a finite number",
                "Record 0 (uuid=nan) [output -> 0 -> sequence -> tool_call -> 1]: Input should be a valid dictionary or instance of ToolCall",
                "Record 0 (uuid=nan) [output -> 1]: Input should be a valid dictionary or instance of Turn",
                "Record 0 (uuid=nan) [output -> 2 -> sequence]: Input should be a valid dictionary or instance of Sequence",
                "Record 0 (uuid=nan) [output -> 3 -> turn_id]: Input should be a finite number",
                "Record 0 (uuid=nan) [output -> 3 -> sequence -> tool_call -> 0 -> arguments]: Input should be a valid dictionary",
                "Record 1: expected an object, got float",
            ]
        );
        // Inside strings the words stay text; integers stay numbers however large.
        let values = vakra_pytext::loads::loads(
            python_text(r#"["NaN", "a\"Infinity", -Infinity, 1e5, 12345678901234567890123]"#)
                .as_bytes(),
        )
        .unwrap();
        let values = values.as_array().unwrap();
        assert_eq!(values[..2], [json!("NaN"), json!("a\"Infinity")]);
        assert_eq!(non_finite(&values[2]), Some("-inf"));
        assert_eq!(values[3], json!(1e5));
        assert!(values[4].is_number());
        assert!(validate_text("[NaNa]")[0].starts_with("Invalid JSON"));
        assert!(validate_text("[\"\\\u{e9}\"]")[0].starts_with("Invalid JSON"));
    }
}

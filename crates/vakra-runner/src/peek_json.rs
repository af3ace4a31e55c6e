//! Capability 1's peeks as Python's `json` reads and writes them: the `get_data` answer may hold
//! `NaN` and `Infinity`, which JSON values cannot, so they are kept as marks, printed back as
//! Python's tokens in the prompt and as `null` in JSON that leaves the runner.

use serde_json::Value;

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
pub fn parse_python_json(text: &str) -> Result<Value, serde_json::Error> {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

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

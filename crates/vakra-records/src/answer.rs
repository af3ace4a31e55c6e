//! A turn's answer as the reference reads it.

use serde_json::Value;

/// The reference's text of an answer (spec §3): lists joined by `", "`, an inner list standing
/// for its first element only, everything else Python's `str()`.
pub fn answer_text(answer: &Value) -> String {
    match answer {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::Array(inner) => inner.first().map(vakra_pytext::py_str),
                other => Some(vakra_pytext::py_str(other)),
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => vakra_pytext::py_str(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_read_as_the_reference_reads_them() {
        assert_eq!(
            answer_text(&json!([[1.2587021916630856]])),
            "1.2587021916630856"
        );
        assert_eq!(answer_text(&json!([["a", "b"], ["c"], []])), "a, c");
        assert_eq!(
            answer_text(&json!([true, null, 1e-05])),
            "True, None, 1e-05"
        );
        assert_eq!(answer_text(&json!([{"k": "v"}])), "{'k': 'v'}");
        assert_eq!(answer_text(&json!(null)), "");
        assert_eq!(answer_text(&json!(3.0)), "3.0");
    }
}

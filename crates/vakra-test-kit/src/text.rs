//! JSON files and arguments, and text comparisons that show where two texts differ.

use std::path::Path;

use serde_json::{Map, Value};

/// A JSON file's value (a failure naming the file when it cannot be read or parsed).
pub fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Tool arguments from a JSON object literal.
pub fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

/// Pretty-printed JSON when `text` parses, so differences show line by line.
fn pretty(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_owned())
}

/// Lines around the first difference of two texts (JSON pretty-printed first), marked `-`
/// (expected) and `+` (actual).
pub fn diff(expected: &str, actual: &str) -> String {
    let (expected, actual) = (pretty(expected), pretty(actual));
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let first = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let from = first.saturating_sub(4);
    let mut out = format!("first difference at line {}:\n", first + 1);
    for line in &e[from..e.len().min(from + 4)] {
        out.push_str(&format!("  {line}\n"));
    }
    for line in e.iter().skip(from.max(first)).take(6) {
        out.push_str(&format!("- {line}\n"));
    }
    for line in a.iter().skip(from.max(first)).take(6) {
        out.push_str(&format!("+ {line}\n"));
    }
    out
}

/// Asserts two texts are equal, showing a readable diff when not.
#[track_caller]
pub fn assert_text(context: &str, expected: &str, actual: &str) {
    if expected != actual {
        panic!("{context}: texts differ\n{}", diff(expected, actual));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_shows_the_first_differing_lines_of_pretty_json() {
        let out = diff(r#"{"a": 1, "b": [2, 3]}"#, r#"{"a": 1, "b": [2, 4]}"#);
        assert!(out.starts_with("first difference at line 5:\n"), "{out}");
        assert!(
            out.contains("-     3\n") && out.contains("+     4\n"),
            "{out}"
        );
    }

    #[test]
    fn a_longer_text_differs_where_the_shorter_ends() {
        let out = diff("x\ny", "x\ny\nz");
        assert!(out.starts_with("first difference at line 3:\n"), "{out}");
        assert!(out.contains("+ z\n") && !out.contains("- "), "{out}");
    }

    #[test]
    #[should_panic(expected = "ctx: texts differ")]
    fn unequal_texts_fail_with_their_diff() {
        assert_text("ctx", "a", "b");
    }
}

//! The exact-match judge: are the ground truth's tool responses among the prediction's?
//!
//! Two modes. `reference` is the reference evaluator's rule exactly (spec §3.2): Python `str()`
//! of every response, raw string membership among the last 20 predicted responses, `None`
//! equal to `""`. `normalized` compares parsed values instead: JSON responses are parsed,
//! numbers compare with a tolerance (and numeric strings as numbers), strings ignore case and
//! surrounding space, lists ignore order, and named fields (such as capability 1's generated
//! `handle`) are left out.

use serde_json::Value;

use super::Verdict;

/// How responses are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExactMode {
    Reference,
    Normalized,
}

impl std::str::FromStr for ExactMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "reference" => Ok(ExactMode::Reference),
            "normalized" => Ok(ExactMode::Normalized),
            other => Err(format!(
                "exact-match mode must be reference or normalized; got {other:?}"
            )),
        }
    }
}

impl std::fmt::Display for ExactMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExactMode::Reference => "reference",
            ExactMode::Normalized => "normalized",
        })
    }
}

/// Settings of the normalized mode.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Normalization {
    /// Relative tolerance for numbers.
    pub tolerance: f64,
    /// Object fields ignored at any depth.
    pub excluded_fields: Vec<String>,
}

impl Default for Normalization {
    fn default() -> Self {
        Self {
            tolerance: 1e-6,
            excluded_fields: vec!["handle".into()],
        }
    }
}

/// How many of the latest predicted responses the reference searches.
const REFERENCE_WINDOW: usize = 20;

/// The reference's `str()` of one response (`None` is `""`).
pub fn response_text(response: &Value) -> String {
    match response {
        Value::Null => String::new(),
        other => vakra_pytext::py_str(other),
    }
}

/// Judges a turn in the reference's way.
pub fn reference(expected: &[Value], actual: &[Value]) -> Verdict {
    let missing = missing_reference(expected, actual);
    if missing.is_empty() {
        Verdict::pass("All expected tool_responses are present in actual.")
    } else {
        Verdict::fail(format!(
            "Missing expected tool_responses.\nMissing: {}\n",
            vakra_pytext::py_repr(&Value::Array(missing))
        ))
    }
}

/// The expected responses (as texts) that the reference's rule does not find among the last
/// actual ones.
pub fn missing_reference(expected: &[Value], actual: &[Value]) -> Vec<Value> {
    let window = &actual[actual.len().saturating_sub(REFERENCE_WINDOW)..];
    let actual: Vec<String> = window.iter().map(response_text).collect();
    expected
        .iter()
        .map(response_text)
        .filter(|e| !actual.contains(e))
        .map(Value::String)
        .collect()
}

/// Judges a turn by parsed values (every predicted response is searched).
pub fn normalized(expected: &[Value], actual: &[Value], settings: &Normalization) -> Verdict {
    let missing = missing_normalized(expected, actual, settings);
    if missing.is_empty() {
        Verdict::pass("All expected tool responses are present (normalized comparison).")
    } else {
        Verdict::fail(format!(
            "Missing expected tool responses (normalized comparison): {}",
            vakra_pytext::py_repr(&Value::Array(missing))
        ))
    }
}

/// The expected responses (as texts) that no actual one equals by parsed values.
pub fn missing_normalized(
    expected: &[Value],
    actual: &[Value],
    settings: &Normalization,
) -> Vec<Value> {
    let actual: Vec<Value> = actual.iter().map(|r| canonical(r, settings)).collect();
    expected
        .iter()
        .filter(|response| {
            let want = canonical(response, settings);
            !actual
                .iter()
                .any(|got| same(&want, got, settings.tolerance))
        })
        .map(|response| Value::String(response_text(response)))
        .collect()
}

/// A response as a value: JSON text parsed, strings trimmed and lower-cased, numeric strings
/// as numbers, excluded fields dropped.
fn canonical(response: &Value, settings: &Normalization) -> Value {
    match response {
        Value::Null => Value::String(String::new()),
        Value::String(text) => match serde_json::from_str::<Value>(text.trim()) {
            Ok(parsed @ (Value::Object(_) | Value::Array(_))) => canonical(&parsed, settings),
            _ => scalar_string(text),
        },
        Value::Array(items) => Value::Array(items.iter().map(|i| canonical(i, settings)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !settings.excluded_fields.iter().any(|f| f == *k))
                .map(|(k, v)| (k.clone(), canonical(v, settings)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn scalar_string(text: &str) -> Value {
    let trimmed = text.trim();
    match trimmed.parse::<f64>() {
        Ok(x) if x.is_finite() => serde_json::Number::from_f64(x)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(trimmed.to_lowercase())),
        _ => Value::String(trimmed.to_lowercase()),
    }
}

fn same(a: &Value, b: &Value, tolerance: f64) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= tolerance * x.abs().max(y.abs()).max(1e-12)
        }
        (Value::String(x), Value::String(y)) => x.trim().to_lowercase() == y.trim().to_lowercase(),
        (Value::Array(xs), Value::Array(ys)) => {
            if xs.len() != ys.len() {
                return false;
            }
            // Order-invariant: every item pairs with a distinct item of the other list.
            let mut used = vec![false; ys.len()];
            xs.iter().all(|x| {
                let found = ys
                    .iter()
                    .enumerate()
                    .find(|(i, y)| !used[*i] && same(x, y, tolerance));
                found.map(|(i, _)| used[i] = true).is_some()
            })
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w, tolerance)))
        }
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reference_mode_is_raw_membership_in_the_last_twenty() {
        let expected = [json!("a"), json!(null)];
        assert!(reference(&expected, &[json!(""), json!("a")]).passed());
        let mut actual: Vec<Value> = vec![json!("a")];
        actual.extend((0..20).map(|i| json!(format!("x{i}"))));
        let verdict = reference(&[json!("a")], &actual);
        assert!(!verdict.passed(), "'a' is outside the last 20");
        assert_eq!(
            verdict.explanation,
            "Missing expected tool_responses.\nMissing: ['a']\n"
        );
        assert!(
            reference(&[], &[]).passed(),
            "no expected responses match trivially"
        );
        assert!(!reference(&[json!("{\"a\": 1}")], &[json!("{\"a\":1}")]).passed());
        assert!(reference(&[json!(["t1", "t2"])], &[json!(["t1", "t2"])]).passed());
        assert!(!reference(&[json!(["t1", "t2"])], &[json!(["t2", "t1"])]).passed());
    }

    #[test]
    fn normalized_mode_parses_and_tolerates() {
        let settings = Normalization::default();
        let check = |e: Value, a: Value| normalized(&[e], &[a], &settings).passed();
        assert!(check(
            json!("{\"a\": 1, \"b\": [1, 2]}"),
            json!("{\"b\":[2,1],\"a\":1.0}")
        ));
        assert!(check(json!("23"), json!(" 23.0 ")));
        assert!(check(json!("[[0.1234567891]]"), json!("[[0.1234567890]]")));
        assert!(check(json!("Alpha"), json!("alpha")));
        assert!(check(
            json!("{\"handle\": \"filtered_a_1\", \"num_records\": 3}"),
            json!("{\"handle\": \"filtered_a_2\", \"num_records\": 3}")
        ));
        assert!(!check(json!("{\"a\": 1}"), json!("{\"a\": 2}")));
        assert!(!check(json!("[1, 2]"), json!("[1, 2, 2]")));
        assert!(check(json!(["t2", "t1"]), json!(["t1", "t2"])));
    }
}

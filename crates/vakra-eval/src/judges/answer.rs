//! The deterministic answer match that stands in for the LLM correctness judge when no LLM is
//! configured, so that a run without a key still scores answers instead of silently giving 0.
//!
//! The rule, stricter than an LLM would be on paraphrases but never fooled by them:
//! both answers empty match; otherwise every item of the ground-truth answer must appear in the
//! predicted answer: a number as any number written in the prediction within a relative
//! tolerance of 1e-6 (`23` matches "There are 23 breweries", not "230"), any other item as a
//! case-insensitive substring after whitespace normalisation.

use std::sync::LazyLock;

use serde_json::Value;

use super::{Verdict, answer_text, normalize_text};

/// Relative tolerance for numeric items.
const TOLERANCE: f64 = 1e-6;

/// Judges a predicted answer against the ground truth's.
pub fn judge(gt_answer: &Value, pred_answer: &Value) -> Verdict {
    let predicted = normalize_text(&answer_text(pred_answer));
    let items = answer_items(gt_answer);
    if items.is_empty() {
        return if predicted.is_empty() {
            Verdict::pass("Both empty.")
        } else {
            Verdict::fail("The ground truth answer is empty but the prediction is not.")
        };
    }
    let numbers = numbers_in(&predicted);
    let missing: Vec<&String> = items
        .iter()
        .filter(|item| !item_present(item, &predicted, &numbers))
        .collect();
    if missing.is_empty() {
        Verdict::pass("Every item of the ground truth answer is in the prediction.")
    } else {
        Verdict::fail(format!(
            "Not in the prediction: {}",
            missing
                .iter()
                .map(|m| format!("{m:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// The ground truth's items, normalised: a list's elements (an inner list's first element,
/// as the reference reads it), or the whole answer.
fn answer_items(answer: &Value) -> Vec<String> {
    let items: Vec<String> = match answer {
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::Array(inner) => inner
                    .first()
                    .map(|v| answer_text(&Value::Array(vec![v.clone()]))),
                other => Some(answer_text(&Value::Array(vec![other.clone()]))),
            })
            .collect(),
        other => vec![answer_text(other)],
    };
    items
        .into_iter()
        .map(|item| normalize_text(&item))
        .filter(|item| !item.is_empty())
        .collect()
}

fn item_present(item: &str, predicted: &str, numbers: &[f64]) -> bool {
    if let Ok(want) = item.replace(',', "").parse::<f64>()
        && want.is_finite()
    {
        return numbers.iter().any(|got| {
            *got == want || (got - want).abs() <= TOLERANCE * got.abs().max(want.abs())
        });
    }
    predicted.contains(item)
}

/// The decimal numbers written in a text (thousands separators allowed).
fn numbers_in(text: &str) -> Vec<f64> {
    static NUMBER: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?|-?\.\d+")
            .expect("a valid pattern")
    });
    NUMBER
        .find_iter(text)
        .filter_map(|m| m.as_str().replace(',', "").parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_match_inside_sentences() {
        assert!(judge(&json!(["23"]), &json!("There are 23 breweries.")).passed());
        assert!(!judge(&json!(["23"]), &json!("There are 230 breweries.")).passed());
        assert!(
            judge(
                &json!([[1.2587021916630856]]),
                &json!("ratio 1.258702191663")
            )
            .passed()
        );
        assert!(judge(&json!([1500000]), &json!("1,500,000 dollars")).passed());
    }

    #[test]
    fn every_item_must_appear() {
        assert!(
            judge(
                &json!(["2012 Summer", "London"]),
                &json!("London, 2012 summer")
            )
            .passed()
        );
        assert!(
            !judge(
                &json!(["2012 Summer", "Paris"]),
                &json!("London, 2012 summer")
            )
            .passed()
        );
        assert!(judge(&json!([]), &json!("")).passed());
        assert!(!judge(&json!([]), &json!("something")).passed());
        assert!(!judge(&json!(["x"]), &json!(null)).passed());
    }
}

//! The stage-wise error taxonomy of a failed sample: the first stage at which the predicted
//! calls of the scored turn part from the ground truth's. The reference describes but never
//! computes it (spec §5); the rules here are this project's, kept out of the score.
//!
//! Stages, in order: `tool_selection` (a ground-truth tool never called), `missing_arguments`
//! (the closest predicted call of a ground-truth tool lacks one of its arguments),
//! `hallucinated_arguments` (…has an argument the ground truth does not), `argument_values`
//! (…gives an argument another value), and `final_answer` when the calls agree. Table
//! references (capability 1's `data_label*`, `data_source*`, `data*`) name server-side
//! results whose names differ between runs, so only their presence is compared.

use serde_json::{Map, Value};

use crate::records::Call;

/// The taxonomy's stage names, in order.
pub const STAGES: [&str; 5] = [
    "tool_selection",
    "missing_arguments",
    "hallucinated_arguments",
    "argument_values",
    "final_answer",
];

/// The argument names that refer to tables, with the legacy and live spellings made one.
fn argument_key(name: &str) -> (String, bool) {
    let live = match name {
        "data_source" => "data_label",
        "data_source_1" => "data_label_1",
        "data_source_2" => "data_label_2",
        other => other,
    };
    let is_reference = matches!(
        live,
        "data_label" | "data_label_1" | "data_label_2" | "data" | "data_1" | "data_2"
    );
    (live.to_owned(), is_reference)
}

fn arguments_of(call: &Call) -> Map<String, Value> {
    match &call.arguments {
        Value::Object(map) => map.clone(),
        Value::String(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        },
        _ => Map::new(),
    }
    .into_iter()
    .map(|(k, v)| (argument_key(&k).0, v))
    .collect()
}

fn same_value(a: &Value, b: &Value) -> bool {
    let text = |v: &Value| vakra_pytext::py_str(v).trim().to_lowercase();
    match (
        a.as_f64().or_else(|| text(a).parse().ok()),
        b.as_f64().or_else(|| text(b).parse().ok()),
    ) {
        (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        _ => text(a) == text(b),
    }
}

/// How a predicted call differs from a ground-truth call of the same tool.
#[derive(Default)]
struct Difference {
    missing: usize,
    extra: usize,
    values: usize,
}

impl Difference {
    fn of(gt: &Map<String, Value>, pred: &Map<String, Value>) -> Self {
        let mut d = Difference::default();
        for (key, want) in gt {
            match pred.get(key) {
                None => d.missing += 1,
                Some(got) if !argument_key(key).1 && !same_value(want, got) => d.values += 1,
                Some(_) => {}
            }
        }
        d.extra = pred.keys().filter(|k| !gt.contains_key(*k)).count();
        d
    }

    fn total(&self) -> usize {
        self.missing + self.extra + self.values
    }
}

/// The stage at which a failed sample's predicted calls part from the ground truth's.
pub fn error_stage(gt_calls: &[Call], pred_calls: &[Call]) -> &'static str {
    let mut closest = Vec::new();
    for gt in gt_calls {
        let want = arguments_of(gt);
        let best = pred_calls
            .iter()
            .filter(|p| p.name == gt.name)
            .map(|p| Difference::of(&want, &arguments_of(p)))
            .min_by_key(Difference::total);
        match best {
            Some(difference) => closest.push(difference),
            None => return "tool_selection",
        }
    }
    if closest.iter().any(|d| d.missing > 0) {
        "missing_arguments"
    } else if closest.iter().any(|d| d.extra > 0) {
        "hallucinated_arguments"
    } else if closest.iter().any(|d| d.values > 0) {
        "argument_values"
    } else {
        "final_answer"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, arguments: Value) -> Call {
        Call {
            name: name.into(),
            arguments,
            label: None,
        }
    }

    #[test]
    fn stages_in_order() {
        let gt = [call("a", json!({"x": 1, "y": "Z"}))];
        assert_eq!(error_stage(&gt, &[call("b", json!({}))]), "tool_selection");
        assert_eq!(error_stage(&gt, &[]), "tool_selection");
        assert_eq!(
            error_stage(&gt, &[call("a", json!({"x": 1}))]),
            "missing_arguments"
        );
        assert_eq!(
            error_stage(&gt, &[call("a", json!({"x": 1, "y": "z", "w": 0}))]),
            "hallucinated_arguments"
        );
        assert_eq!(
            error_stage(&gt, &[call("a", json!({"x": "2", "y": "z"}))]),
            "argument_values"
        );
        assert_eq!(
            error_stage(
                &gt,
                &[
                    call("a", json!({"x": 9, "y": "q"})),
                    call("a", json!({"x": "1.0", "y": "z"}))
                ]
            ),
            "final_answer"
        );
    }

    #[test]
    fn table_references_compare_by_presence_only() {
        let gt = [call(
            "filter_data",
            json!({"data_source": "$L.data_path$", "key_name": "k"}),
        )];
        let pred = [call(
            "filter_data",
            json!({"data_label": "filtered_x_1", "key_name": "k"}),
        )];
        assert_eq!(error_stage(&gt, &pred), "final_answer");
    }
}

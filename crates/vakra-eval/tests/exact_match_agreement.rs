//! In `reference` mode the exact-match verdicts equal the reference evaluator's: its verdicts
//! (score and explanation) on this project's synthetic judge inputs were recorded with
//! `scripts/record_exact_match_agreement.py` and are compared here case by case.

use serde_json::Value;
use vakra_eval::judges::exact;

#[test]
fn verdicts_equal_the_reference_evaluators() {
    let text = include_str!("fixtures/exact_match_reference_verdicts.json");
    let cases: Vec<Value> = serde_json::from_str(text).unwrap();
    assert!(cases.len() >= 20);
    let mut disagreements = Vec::new();
    for case in &cases {
        let expected = case["expected"].as_array().unwrap();
        let actual = case["actual"].as_array().unwrap();
        let ours = exact::reference(expected, actual);
        if ours.score != case["score"].as_f64().unwrap()
            || ours.explanation != case["explanation"].as_str().unwrap()
        {
            disagreements.push(format!(
                "{}: reference {} {:?}, ours {} {:?}",
                case["name"], case["score"], case["explanation"], ours.score, ours.explanation
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

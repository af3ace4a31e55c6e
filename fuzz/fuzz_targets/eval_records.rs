//! The evaluator's readers of untrusted input: trace records (ground truth and predictions),
//! the submission-format validator, the LLM judges' reply parsers, the policy reader, and the
//! exact-match and answer judges on whatever values the records hold.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use vakra_eval::judges::exact::{self, Normalization};
use vakra_eval::judges::{answer, answer_text, llm, policy};
use vakra_eval::{records, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = validate::validate_text(text);
    let _ = llm::parse_correctness(text, false);
    let _ = llm::parse_correctness(text, true);
    let _ = llm::parse_groundedness(text);
    let _ = policy::parse(text);
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let items = match &value {
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    };
    for item in &items {
        if let Ok(record) = records::parse_record(item) {
            for turn in &record.turns {
                let _ = answer_text(&turn.answer);
                let calls: Vec<&str> = turn.calls.iter().map(|c| c.name.as_str()).collect();
                let _ = policy::judge(&record.additional_instructions, &calls, &calls, &Default::default());
                let _ = exact::reference(&turn.stored_responses, &turn.stored_responses);
                let _ = exact::normalized(&turn.stored_responses, &[], &Normalization::default());
                let _ = answer::judge(&turn.answer, &turn.answer);
            }
        }
    }
    if let [expected, actual] = items.as_slice() {
        let (e, a) = (std::slice::from_ref(expected), std::slice::from_ref(actual));
        assert_eq!(exact::reference(e, e).score, 1.0, "a response always matches itself");
        let _ = exact::reference(e, a);
        let _ = exact::normalized(e, a, &Normalization::default());
        let _ = answer::judge(expected, actual);
    }
});

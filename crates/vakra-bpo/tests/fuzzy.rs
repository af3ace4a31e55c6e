//! Suggestions for unknown requisitions: rapidfuzz's `process.extract(..., scorer=WRatio,
//! limit=4)` over the requisition ids in order of first appearance.

use crate::common;

use common::{ok_text, session};
use serde_json::{Value, json};
use vakra_bpo::fuzzy::{Choices, wratio};
use vakra_test_kit::text::args;

/// The vectors of the spec (§5.2), on the reference's data.
#[test]
fn spec_suggestion_vectors() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    let vectors: [(&str, [&str; 4]); 6] = [
        ("05960BR", ["05956BR", "05962BR", "05963BR", "05952BR"]),
        ("99999BR", ["05959BR", "05952BR", "05953BR", "05954BR"]),
        ("UZLXBR", ["05952BR", "05953BR", "05954BR", "05955BR"]),
        ("", ["05952BR", "05953BR", "05954BR", "05955BR"]),
        ("5958", ["05958BR", "REQ00558", "REQ00595", "REQ00598"]),
        ("05958br", ["05958BR", "05952BR", "05953BR", "05954BR"]),
    ];
    let mut session = session();
    for (query, expected) in vectors {
        let out = session.call(
            "candidate_source_sla_per_source",
            args(json!({"requisition_id": query})),
        );
        let value: Value = serde_json::from_str(ok_text(&out)).unwrap();
        assert_eq!(value["error"], "requisition_not_found");
        assert_eq!(
            value["message"],
            format!("No job can be found with the ID {query}.")
        );
        assert_eq!(
            value["suggested_requisition_ids"],
            json!(expected),
            "{query:?}"
        );
    }
}

/// rapidfuzz 3.14's results on synthetic choices and queries (`tests/data/wratio_vectors.json`,
/// made by `tests/reference/gen_wratio_vectors.py`): the same order and bit-identical scores.
#[test]
fn rapidfuzz_vectors() {
    let file: Value =
        serde_json::from_str(include_str!("data/wratio_vectors.json")).expect("vectors JSON");
    let choices: Vec<&str> = file["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let index = Choices::new(choices.iter().copied());
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() > 300);
    for vector in vectors {
        let query = vector["query"].as_str().unwrap();
        let top: Vec<usize> = vector["top"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(index.extract(query, top.len()), top, "order for {query:?}");
        for (&i, score) in top.iter().zip(vector["scores"].as_array().unwrap()) {
            let expected = score.as_f64().unwrap();
            let actual = wratio(query, choices[i]);
            assert_eq!(
                actual.to_bits(),
                expected.to_bits(),
                "WRatio({query:?}, {:?}) = {actual}, rapidfuzz {expected}",
                choices[i]
            );
        }
    }
}

#[test]
fn huge_and_odd_queries_answer() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    let mut session = session();
    for query in [
        "x".repeat(50_000),
        "05958BR ".repeat(2_000),
        "\u{1F600}".repeat(5_000),
        "\u{0}\u{1f}\u{7f}\u{2028}".into(),
        " \t\n ".into(),
    ] {
        let out = session.call(
            "skills_data_sources_used",
            args(json!({"requisition_id": query})),
        );
        let value: Value = serde_json::from_str(ok_text(&out)).unwrap();
        assert_eq!(
            value["suggested_requisition_ids"].as_array().unwrap().len(),
            4
        );
    }
}

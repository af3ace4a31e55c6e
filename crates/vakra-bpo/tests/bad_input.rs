//! Bad calls get the reference's answers: FastMCP's unknown-tool text, pydantic's validation
//! errors (exact texts), the tools' own not-found payloads, and never a panic.

use crate::common;

use common::{ok_text, session};
use serde_json::{Map, Value, json};
use vakra_test_kit::text::args;

const DOCS: &str = "    For further information visit https://errors.pydantic.dev/2.14/v/";

fn error_text(tool: &str, arguments: Value) -> String {
    let out = session().call(tool, args(arguments));
    assert!(
        out.is_error,
        "{tool}: expected an error, got {:?}",
        out.text
    );
    assert_eq!(out.structured_content(), None);
    out.text.expect("error text")
}

/// One line error of pydantic's text.
fn line(loc: &str, message: &str, kind: &str, input: &str, input_type: &str) -> String {
    format!(
        "\n{loc}\n  {message} [type={kind}, input_value={input}, input_type={input_type}]\n{DOCS}{kind}"
    )
}

fn missing(loc: &str, input: &str) -> String {
    line(
        loc,
        "Missing required argument",
        "missing_argument",
        input,
        "dict",
    )
}

fn not_string(loc: &str, input: &str, input_type: &str) -> String {
    line(
        loc,
        "Input should be a valid string",
        "string_type",
        input,
        input_type,
    )
}

fn unexpected(loc: &str, input: &str, input_type: &str) -> String {
    line(
        loc,
        "Unexpected keyword argument",
        "unexpected_keyword_argument",
        input,
        input_type,
    )
}

#[test]
fn unknown_tool() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    assert_eq!(error_text("nope", json!({})), "Unknown tool: nope");
    assert_eq!(error_text("", json!({"a": 1})), "Unknown tool: ");
}

#[test]
fn missing_arguments() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    assert_eq!(
        error_text("skills_skill_impact_sla", json!({})),
        format!(
            "2 validation errors for call[skills_skill_impact_sla]{}{}",
            missing("requisition_id", "{}"),
            missing("skill_name", "{}")
        )
    );
}

#[test]
fn errors_come_in_parameter_order_then_unknown_keywords() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    assert_eq!(
        error_text(
            "skills_skill_impact_sla",
            json!({"zzz": 1, "requisition_id": 5})
        ),
        format!(
            "3 validation errors for call[skills_skill_impact_sla]{}{}{}",
            not_string("requisition_id", "5", "int"),
            missing("skill_name", "{'zzz': 1, 'requisition_id': 5}"),
            unexpected("zzz", "1", "int")
        )
    );
    assert_eq!(
        error_text(
            "skills_skill_impact_sla",
            json!({"skill_name": 5, "requisition_id": 6, "b": [1, 2], "a": {"k": "v"}})
        ),
        format!(
            "4 validation errors for call[skills_skill_impact_sla]{}{}{}{}",
            not_string("requisition_id", "6", "int"),
            not_string("skill_name", "5", "int"),
            unexpected("b", "[1, 2]", "list"),
            unexpected("a", "{'k': 'v'}", "dict")
        )
    );
}

#[test]
fn wrong_types_are_quoted_as_python_reprs() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    for (value, repr, ty) in [
        (json!(1.5), "1.5", "float"),
        (json!(1e300), "1e+300", "float"),
        (json!(true), "True", "bool"),
        (json!(null), "None", "NoneType"),
        (
            json!({"a": null, "b": false}),
            "{'a': None, 'b': False}",
            "dict",
        ),
        (
            json!([
                "abcdefghijklmnopqrstuvwxyz",
                "abcdefghijklmnopqrstuvwxyz",
                3
            ]),
            "['abcdefghijklmnopqrstuvw...hijklmnopqrstuvwxyz', 3]",
            "list",
        ),
    ] {
        assert_eq!(
            error_text(
                "candidate_source_sla_per_source",
                json!({"requisition_id": value})
            ),
            format!(
                "1 validation error for call[candidate_source_sla_per_source]{}",
                not_string("requisition_id", repr, ty)
            )
        );
    }
}

#[test]
fn long_inputs_are_shortened() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    assert_eq!(
        error_text(
            "candidate_source_sla_per_source",
            json!({"x": "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"})
        ),
        format!(
            "2 validation errors for call[candidate_source_sla_per_source]{}{}",
            missing(
                "requisition_id",
                "{'x': 'abcdefghijklmnopqr...efghijklmnopqrstuvwxyz'}"
            ),
            unexpected(
                "x",
                "'abcdefghijklmnopqrstuvwx...defghijklmnopqrstuvwxyz'",
                "str"
            )
        )
    );
    assert_eq!(
        error_text(
            "skills_analyze_skill_match",
            json!({"requisition_id": "05958BR", "skill_name": "Python"})
        ),
        format!(
            "2 validation errors for call[skills_analyze_skill_match]{}{}",
            missing(
                "skill_id",
                "{'requisition_id': '05958... 'skill_name': 'Python'}"
            ),
            unexpected("skill_name", "'Python'", "str")
        )
    );
}

#[test]
fn list_parameter() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    let tool = "candidate_source_candidate_volume_by_source";
    let list_error = |input: &str, ty: &str| {
        format!(
            "1 validation error for call[{tool}]{}",
            line(
                "sources",
                "Input should be a valid list",
                "list_type",
                input,
                ty
            )
        )
    };
    assert_eq!(
        error_text(
            tool,
            json!({"requisition_id": "05958BR", "sources": "Dice"})
        ),
        list_error("'Dice'", "str")
    );
    assert_eq!(
        error_text(
            tool,
            json!({"requisition_id": "05958BR", "sources": {"Dice": 1}})
        ),
        list_error("{'Dice': 1}", "dict")
    );
    assert_eq!(
        error_text(
            tool,
            json!({"requisition_id": "05958BR", "sources": [1, "Dice", 2.5]})
        ),
        format!(
            "2 validation errors for call[{tool}]{}{}",
            not_string("sources.0", "1", "int"),
            not_string("sources.2", "2.5", "float")
        )
    );
    for sources in [json!(null), json!([])] {
        let out = session().call(
            tool,
            args(json!({"requisition_id": "05958BR", "sources": sources})),
        );
        let v: Value = serde_json::from_str(ok_text(&out)).unwrap();
        assert_eq!(v["metrics"].as_array().unwrap().len(), 7);
    }
}

#[test]
fn defaults_do_not_accept_explicit_nulls() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    assert_eq!(
        error_text(
            "candidate_source_source_sla_score",
            json!({"requisition_id": "05958BR", "source_name": null})
        ),
        format!(
            "1 validation error for call[candidate_source_source_sla_score]{}",
            not_string("source_name", "None", "NoneType")
        )
    );
    let out = session().call(
        "skills_skill_lookup",
        args(json!({"requisition_id": "05958BR"})),
    );
    assert_eq!(
        ok_text(&out),
        r#"{"requisition_id":"05958BR","skill_name":null,"occurrence_count":0,"total_candidates":2913,"occurrence_rate":0.0}"#
    );
}

#[test]
fn undocumented_parameters_are_rejected() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    assert_eq!(
        error_text(
            "skills_skill_lookup",
            json!({"requisition_id": "05958BR", "skill_name": "Python", "include_history": true})
        ),
        format!(
            "1 validation error for call[skills_skill_lookup]{}",
            unexpected("include_history", "True", "bool")
        )
    );
    assert_eq!(
        error_text("skills_successful_posting_criteria", json!({"a": 1})),
        format!(
            "1 validation error for call[skills_successful_posting_criteria]{}",
            unexpected("a", "1", "int")
        )
    );
}

#[test]
fn unknown_requisitions() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    let weird = "ünïcødé\u{0}\u{1f}\u{7f}\u{2028}\u{1F600}";
    let mut session = session();
    let out = session.call(
        "candidate_source_sla_per_source",
        args(json!({"requisition_id": weird})),
    );
    assert_eq!(
        ok_text(&out),
        "{\"error\":\"requisition_not_found\",\"message\":\"No job can be found with the ID \
         ünïcødé\\u0000\\u001f\u{7f}\u{2028}\u{1F600}.\",\"suggested_requisition_ids\":[\"05952BR\",\
         \"05953BR\",\"05954BR\",\"05955BR\"]}"
    );
    let out = session.call(
        "skills_skill_summary",
        args(json!({"requisition_id": weird})),
    );
    assert_eq!(
        ok_text(&out),
        r#"{"error": "requisition_not_found", "message": "Requisition \u00fcn\u00efc\u00f8d\u00e9\u0000\u001f\u007f\u2028\ud83d\ude00 not found"}"#
    );
    let out = session.call(
        "candidate_source_requisition_details",
        args(json!({"requisition_id": "ünï\"\\"})),
    );
    assert_eq!(ok_text(&out), r#"{"err":"not_found","req":"ünï\"\\"}"#);
    for tool in [
        "candidate_source_source_sla_check",
        "candidate_source_source_sla_score",
        "candidate_source_list_all_sources",
    ] {
        let out = session.call(tool, args(json!({"requisition_id": "99999BR"})));
        assert_eq!(
            ok_text(&out),
            r#"{"error":"requisition_not_found","message":"Requisition 99999BR not found"}"#
        );
        assert!(out.structured_content().is_some());
    }
    let out = session.call(
        "candidate_source_funnel_status",
        args(json!({"requisition_id": "x"})),
    );
    assert!(out.is_error);
}

/// A small deterministic generator of arbitrary JSON.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }

    fn string(&mut self) -> String {
        let pieces = [
            "05958BR",
            "REQ0",
            " ",
            "\u{0}",
            "é",
            "\u{1F600}",
            "\u{a0}",
            "Dice",
            "Python",
            "'",
            "\"",
        ];
        let n = self.next(6);
        let mut s: String = (0..n)
            .map(|_| pieces[self.next(pieces.len() as u64) as usize])
            .collect();
        if self.next(20) == 0 {
            s = s.repeat(300);
        }
        s
    }

    fn value(&mut self, depth: u32) -> Value {
        match self.next(if depth > 2 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => json!(self.next(2) == 0),
            2 => json!(self.next(1000) as i64 - 500),
            3 => json!(self.next(1000) as f64 / 7.0),
            4 => json!(self.string()),
            5 => Value::Array((0..self.next(4)).map(|_| self.value(depth + 1)).collect()),
            _ => Value::Object(
                (0..self.next(3))
                    .map(|_| (self.string(), self.value(depth + 1)))
                    .collect(),
            ),
        }
    }
}

#[test]
fn arbitrary_arguments_never_panic() {
    let Some(_) = common::reference_dir() else {
        return;
    };
    let mut g = Gen(5);
    let mut session = session();
    let tools: Vec<_> = session.tools();
    for _ in 0..3000 {
        let tool = &tools[g.next(tools.len() as u64) as usize];
        let mut arguments = Map::new();
        for name in tool.input_schema["properties"].as_object().unwrap().keys() {
            if g.next(4) > 0 {
                let value = if g.next(2) == 0 {
                    json!(g.string())
                } else {
                    g.value(0)
                };
                arguments.insert(name.clone(), value);
            }
        }
        if g.next(5) == 0 {
            arguments.insert(g.string(), g.value(0));
        }
        let out = session.call(&tool.name, arguments);
        if out.is_error {
            assert!(!out.text.unwrap_or_default().is_empty());
        }
    }
}

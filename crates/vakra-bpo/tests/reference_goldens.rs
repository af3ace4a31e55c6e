//! Compares every answer recorded from the reference server by
//! `tests/reference/record_goldens.py` (tool listing, result texts, error flags, structured
//! content) with this crate's, when `VAKRA_BPO_GOLDENS` names the recording (and
//! `VAKRA_BPO_GOLDENS_DATA` the data folder it was recorded on, if not the reference's). The
//! recording is derived from the reference's code and data, so it is made locally and never
//! committed. Without it the comparison is skipped, unless `VAKRA_REQUIRE_REF_CHECKOUT` is set (as
//! `scripts/conformance.sh` does), which fails it.

use crate::common;

use std::fs;

use std::path::Path;
use std::sync::Arc;

use common::{descriptions, reference_data, reference_descriptions};
use serde_json::Value;
use vakra_bpo::{BpoData, BpoSession, tool_meta};
use vakra_test_kit::switches::skip_or_fail;
use vakra_test_kit::text::{args, diff};

#[test]
fn answers_match_the_recorded_reference() {
    let Ok(path) = std::env::var("VAKRA_BPO_GOLDENS") else {
        skip_or_fail(
            "VAKRA_REQUIRE_REF_CHECKOUT",
            "VAKRA_BPO_GOLDENS does not name a recording (tests/reference/record_goldens.py)",
        );
        return;
    };
    let recorded: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read the goldens")).expect("JSON");
    let data = match std::env::var("VAKRA_BPO_GOLDENS_DATA") {
        Ok(dir) => Arc::new(
            BpoData::load_with_descriptions(Path::new(&dir), descriptions())
                .expect("load the goldens' data"),
        ),
        Err(_) => {
            common::reference_dir().expect("the reference's BPO data");
            reference_data()
        }
    };
    let session = || BpoSession::new(data.clone());
    let mut failures = Vec::new();
    let mut compared = 0usize;
    let mut listings_matched = 0usize;
    let mut calls_matched = 0usize;

    // The recorded listing has the reference's descriptions: compare them only when `VAKRA_REF`
    // provides them.
    let compare_descriptions = reference_descriptions().is_some();
    if !compare_descriptions {
        eprintln!("VAKRA_REF not set: tool and model descriptions are not compared");
    }
    let tools = session().tools();
    let expected_tools = recorded["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), expected_tools.len(), "number of tools");
    for (tool, expected) in tools.iter().zip(expected_tools) {
        let mut actual = serde_json::Map::new();
        actual.insert("name".into(), tool.name.clone().into());
        actual.insert("description".into(), tool.description.clone().into());
        actual.insert(
            "inputSchema".into(),
            Value::Object(tool.input_schema.clone()),
        );
        if let Some(schema) = data.output_schema(&tool.name) {
            actual.insert("outputSchema".into(), Value::Object(schema));
        }
        actual.insert("_meta".into(), Value::Object(tool_meta()));
        let mut actual = Value::Object(actual);
        let mut expected = expected.clone();
        if !compare_descriptions {
            strip_descriptions(&mut actual);
            strip_descriptions(&mut expected);
        }
        if actual == expected {
            listings_matched += 1;
        } else {
            failures.push(format!(
                "tool listing of {}:\n{}",
                tool.name,
                diff(&expected.to_string(), &actual.to_string())
            ));
        }
    }

    for calls in recorded["sessions"].as_array().expect("sessions") {
        let mut session = session();
        for (i, call) in calls.as_array().expect("calls").iter().enumerate() {
            let tool = call["tool"].as_str().expect("tool");
            let out = session.call(tool, args(call["arguments"].clone()));
            compared += 1;
            let context = format!("call {i}: {tool} {}", call["arguments"]);
            let texts: Vec<&str> = call["texts"]
                .as_array()
                .expect("texts")
                .iter()
                .map(|t| t.as_str().expect("text"))
                .collect();
            let expected_text = texts.first().copied();
            if out.text.as_deref() != expected_text || texts.len() > 1 {
                failures.push(format!(
                    "{context}\n{}",
                    diff(
                        expected_text.unwrap_or("<no content>"),
                        out.text.as_deref().unwrap_or("<no content>")
                    )
                ));
                continue;
            }
            let mut matched = true;
            if Some(out.is_error) != call["is_error"].as_bool() {
                failures.push(format!("{context}: isError {}", out.is_error));
                matched = false;
            }
            let expected_structured = match &call["structured_content"] {
                Value::Null => None,
                v => Some(v),
            };
            let structured = out.structured_content();
            if structured.as_ref() != expected_structured {
                failures.push(format!(
                    "{context}: structuredContent\n{}",
                    diff(
                        &expected_structured
                            .map(Value::to_string)
                            .unwrap_or_default(),
                        &structured.map(|v| v.to_string()).unwrap_or_default()
                    )
                ));
                matched = false;
            }
            calls_matched += usize::from(matched);
        }
    }
    let figure = format!(
        "{listings_matched} of {} tool listings and {calls_matched} of {compared} recorded calls \
         match{}",
        expected_tools.len(),
        if compare_descriptions {
            ""
        } else {
            " (descriptions not compared)"
        }
    );
    eprintln!("{figure}");
    let shown: Vec<_> = failures.iter().take(15).collect();
    assert!(
        failures.is_empty(),
        "{figure}; {} differences, first ones:\n\n{}",
        failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// Removes every `description` string (tool and model descriptions) from a listed tool.
fn strip_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            map.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

//! Every `tool_call_results` entry recorded in the reference's six BPO task files reproduces
//! exactly as FastMCP would send it.
//!
//! The files record the value each tool function returned. FastMCP sends a string as it is,
//! `None` as no content, other values as compact JSON, and raises the simulated HTTP errors
//! (`{"status_code": …, "error": true, …}`) as `Error calling tool '<name>': <json.dumps(value)>`.
//!
//! `tasks.json` records its calls with empty arguments: the requisition comes from the result
//! (`job_id` / `requisition_id`) or else the task's question, the skill from the result. The
//! reference keeps its random generator and call counters per server process, that is per MCP
//! session, and counts them per tool; each task file is replayed in one fresh session, which is
//! how the recorded results arise (each stateful tool is called once, first, in its file).

mod common;

use std::fs;

use common::{assert_text, reference_dir, session};
use serde_json::{Map, Value, json};

struct Recorded {
    file: String,
    task: String,
    tool: String,
    args: Map<String, Value>,
    result: Value,
}

fn requisition_in(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| w.len() == 7 && w.ends_with("BR") && w[..5].bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_owned)
}

fn recorded_calls() -> Vec<Recorded> {
    let mut out = Vec::new();
    let mut files: Vec<_> = fs::read_dir(reference_dir())
        .expect("the reference's data folder (../shared)")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tasks") && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    for path in files {
        let file: Value = serde_json::from_str(&fs::read_to_string(&path).expect("read"))
            .expect("task file JSON");
        for case in file[0]["test_cases"].as_array().expect("test_cases") {
            let expected = &case["expected_output"];
            let Some(results) = expected["tool_call_results"].as_array() else {
                continue;
            };
            let calls = expected["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for (i, entry) in results.iter().enumerate() {
                let tool = entry["name"].as_str().expect("name").to_owned();
                let result = entry["result"].clone();
                let mut args = calls
                    .get(i)
                    .filter(|c| c["name"] == entry["name"])
                    .and_then(|c| c["args"].as_object().cloned())
                    .unwrap_or_default();
                if args.is_empty() && tool != "skills_successful_posting_criteria" {
                    let id = result
                        .get("job_id")
                        .or_else(|| result.get("requisition_id"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .or_else(|| requisition_in(case["intent"].as_str().unwrap_or("")))
                        .expect("a requisition id for the call");
                    args.insert("requisition_id".into(), json!(id));
                    if let Some(skill) = result.get("skill_name") {
                        args.insert("skill_name".into(), skill.clone());
                    }
                }
                out.push(Recorded {
                    file: path.file_name().unwrap().to_string_lossy().into_owned(),
                    task: case["name"].as_str().unwrap_or("?").to_owned(),
                    tool,
                    args,
                    result,
                });
            }
        }
    }
    out
}

/// What an agent receives for a recorded return value: `(text, is_error)`.
fn expected_output(tool: &str, result: &Value) -> (Option<String>, bool) {
    let raised = result.get("status_code").is_some() && result.get("error") == Some(&json!(true));
    match result {
        _ if raised => {
            let dumped = vakra_pyjson::dumps(result, &vakra_pyjson::DumpOptions::python_default())
                .expect("json.dumps");
            (Some(format!("Error calling tool '{tool}': {dumped}")), true)
        }
        Value::Null => (None, false),
        Value::String(s) => (Some(s.clone()), false),
        other => (Some(other.to_string()), false),
    }
}

#[test]
fn all_43_recorded_results_reproduce() {
    let calls = recorded_calls();
    assert_eq!(calls.len(), 43, "the six task files record 43 tool results");
    let mut by_file: Vec<(String, Vec<&Recorded>)> = Vec::new();
    for call in &calls {
        match by_file.last_mut() {
            Some((file, list)) if *file == call.file => list.push(call),
            _ => by_file.push((call.file.clone(), vec![call])),
        }
    }
    let mut matched = 0;
    for (file, calls) in by_file {
        let mut session = session();
        for call in calls {
            let context = format!("{file} {} {}({:?})", call.task, call.tool, call.args);
            let out = session.call(&call.tool, call.args.clone());
            let (text, is_error) = expected_output(&call.tool, &call.result);
            assert_eq!(out.is_error, is_error, "{context}: isError");
            match (&text, &out.text) {
                (Some(expected), Some(actual)) => assert_text(&context, expected, actual),
                (None, None) => {}
                _ => panic!("{context}: expected {text:?}, got {:?}", out.text),
            }
            matched += 1;
        }
    }
    assert_eq!(matched, 43);
}

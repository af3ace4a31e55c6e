//! The tool results recorded in the reference's six BPO task files (`tasks*.json` in its BPO
//! data folder), as calls to replay and the texts an agent receives for them.
//!
//! Shared by vakra-bpo's session-level test (`tests/recorded.rs`) and the MCP-level test of the
//! command-line crate (`crates/vakra-cli/tests/bpo_mcp.rs`), so both replay exactly the same
//! calls.
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

use std::fs;
use std::path::Path;

use serde_json::{Map, Value, json};

/// How many results the six files record.
pub const RECORDED_RESULTS: usize = 43;

/// One recorded call and its result.
pub struct Recorded {
    pub file: String,
    pub task: String,
    pub tool: String,
    pub args: Map<String, Value>,
    pub result: Value,
}

impl Recorded {
    /// Names the call in assertion messages.
    pub fn context(&self) -> String {
        format!("{} {} {}({:?})", self.file, self.task, self.tool, self.args)
    }

    /// What an agent receives for the recorded return value: `(text, is_error)`, no text when
    /// the tool returned `None`.
    pub fn expected(&self) -> (Option<String>, bool) {
        let result = &self.result;
        let raised =
            result.get("status_code").is_some() && result.get("error") == Some(&json!(true));
        match result {
            _ if raised => {
                let dumped =
                    vakra_pytext::dumps(result, &vakra_pytext::DumpOptions::python_default())
                        .expect("json.dumps");
                (
                    Some(format!("Error calling tool '{}': {dumped}", self.tool)),
                    true,
                )
            }
            Value::Null => (None, false),
            Value::String(s) => (Some(s.clone()), false),
            other => (Some(other.to_string()), false),
        }
    }
}

fn requisition_in(text: &str) -> Option<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| w.len() == 7 && w.ends_with("BR") && w[..5].bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_owned)
}

/// Every recorded call of the task files in `dir`, grouped by file (files in name order, calls
/// in recorded order): each group is replayed in one fresh session.
pub fn recorded_sessions(dir: &Path) -> Vec<(String, Vec<Recorded>)> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the reference's data folder)", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tasks") && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    let mut sessions = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file: Value = serde_json::from_str(&fs::read_to_string(&path).expect("read"))
            .expect("task file JSON");
        let mut calls = Vec::new();
        for case in file[0]["test_cases"].as_array().expect("test_cases") {
            let expected = &case["expected_output"];
            let Some(results) = expected["tool_call_results"].as_array() else {
                continue;
            };
            let recorded_calls = expected["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for (i, entry) in results.iter().enumerate() {
                let tool = entry["name"].as_str().expect("name").to_owned();
                let result = entry["result"].clone();
                let mut args = recorded_calls
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
                calls.push(Recorded {
                    file: name.clone(),
                    task: case["name"].as_str().unwrap_or("?").to_owned(),
                    tool,
                    args,
                    result,
                });
            }
        }
        if !calls.is_empty() {
            sessions.push((name, calls));
        }
    }
    sessions
}

//! The demo data set (`bpo/` at the repository root, from `scripts/build_demo_bpo.py`) loads
//! from its JSON-lines file and every tool answers on it.

use crate::common;

use std::sync::Arc;

use common::{demo_dir, ok_text};
use serde_json::{Value, json};
use vakra_bpo::{BpoData, BpoSession};
use vakra_test_kit::text::args;

fn demo() -> BpoSession {
    BpoSession::new(Arc::new(
        BpoData::load(&demo_dir()).expect("load the demo data"),
    ))
}

#[test]
fn demo_data_loads() {
    let data = BpoData::load(&demo_dir()).unwrap();
    assert!(data.len() > 200, "{} rows", data.len());
    assert!(data.requisition_ids().count() >= 25);
}

#[test]
fn every_tool_answers_on_the_demo() {
    let mut session = demo();
    let id = "DMO0001";
    for tool in session.tools() {
        let mut arguments = serde_json::Map::new();
        for name in tool.input_schema["properties"].as_object().unwrap().keys() {
            let value = match name.as_str() {
                "requisition_id" => json!(id),
                "skill_name" | "skill_id" => json!("Excel"),
                "source_name" => json!("Referral"),
                "sources" => json!(["Referral", "Campus"]),
                other => panic!("unexpected parameter {other}"),
            };
            arguments.insert(name.clone(), value);
        }
        let out = session.call(&tool.name, arguments);
        match tool.name.as_str() {
            "candidate_source_source_sla_check" | "candidate_source_funnel_status" => {
                assert!(out.is_error, "{}", tool.name);
            }
            // Every source recruits for junior finance roles: no inactive source, no content.
            "candidate_source_inactive_sources" => assert_eq!(out.text, None),
            _ => {
                assert!(!out.is_error, "{}: {:?}", tool.name, out.text);
                let text = ok_text(&out);
                assert!(!text.contains("not found"), "{}: {text}", tool.name);
            }
        }
    }
}

#[test]
fn demo_covers_the_interesting_cases() {
    let mut session = demo();
    let call = |session: &mut BpoSession, tool: &str, arguments: Value| {
        session.call(tool, args(arguments))
    };
    // Senior roles never come from the campus channel, so their groups have an inactive source.
    let out = call(
        &mut session,
        "candidate_source_inactive_sources",
        json!({"requisition_id": "DMO0009"}),
    );
    assert_eq!(ok_text(&out), r#"["Campus"]"#);
    // The legal template has one requisition and falls back to department and seniority.
    let out = call(
        &mut session,
        "candidate_source_metadata_and_timeframe",
        json!({"requisition_id": "DMO0030"}),
    );
    let v: Value = serde_json::from_str(ok_text(&out)).unwrap();
    assert_eq!(v["total_requisitions_analysed"], 1);
    // The requisition with a blank template joins the operations seniors.
    let out = call(
        &mut session,
        "candidate_source_metadata_and_timeframe",
        json!({"requisition_id": "DMO0031"}),
    );
    let v: Value = serde_json::from_str(ok_text(&out)).unwrap();
    assert_eq!(v["total_requisitions_analysed"], 8);
    let out = call(
        &mut session,
        "candidate_source_full_candidate_details",
        json!({"requisition_id": "DMO0001"}),
    );
    let v: Value = serde_json::from_str(ok_text(&out)).unwrap();
    assert_eq!(v["total_records"], 100);
    let out = call(
        &mut session,
        "candidate_source_sla_per_source",
        json!({"requisition_id": "DMO0100"}),
    );
    let v: Value = serde_json::from_str(ok_text(&out)).unwrap();
    assert_eq!(v["suggested_requisition_ids"].as_array().unwrap().len(), 4);
}

/// The committed demo files are exactly what `scripts/build_demo_bpo.py` writes (needs python3).
#[test]
fn demo_files_are_what_the_script_writes() {
    let out = tempfile::tempdir().unwrap();
    let script = demo_dir().join("../scripts/build_demo_bpo.py");
    let run = std::process::Command::new("python3")
        .arg(&script)
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("python3 is needed for this test");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for file in [
        "candidate_data.jsonl",
        "large_response_fixture.json",
        vakra_bpo::DESCRIPTIONS_FILE,
    ] {
        let written = std::fs::read(out.path().join(file)).unwrap();
        let committed = std::fs::read(demo_dir().join(file)).unwrap();
        assert!(
            written == committed,
            "bpo/{file} differs from what scripts/build_demo_bpo.py writes: rerun it"
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "candidate_data.jsonl",
            "descriptions.json",
            "large_response_fixture.json"
        ]
    );
}

//! `vakra validate --bundle`: the demo split's ground truth turned into submission-format
//! predictions (a run's folder name for one capability), validated, bundled, and the ZIP read
//! back and evaluated again — the bundle scores as the files it was made from; metadata.json
//! and submission.md describe it. An invalid file stops the bundle.

use std::io::Read;
use std::path::Path;

use crate::common::{demo_root, demo_split, run_eval, vakra};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use vakra_test_kit::process::output_ok;

/// The ground truth of capabilities 2 and 3 as a runner writes predictions: submission
/// records, capability 2 under a dated run folder as the reference runner names it.
fn runner_output(into: &Path) {
    for (source, target) in [
        ("capability_2_dashboard_apis", "capability_2_mar_22_11_30am"),
        (
            "capability_3_multihop_reasoning",
            "capability_3_multihop_reasoning",
        ),
    ] {
        let folder = into.join(target);
        std::fs::create_dir_all(&folder).unwrap();
        for file in std::fs::read_dir(demo_split().join(source).join("output"))
            .unwrap()
            .flatten()
        {
            let records: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
            let predictions: Vec<Value> = records
                .iter()
                .map(|r| {
                    let turn = r["output"].as_array().unwrap().last().unwrap();
                    json!({"uuid": r["uuid"], "domain": r["domain"], "status": "success",
                           "error": "", "duration_s": 1.5,
                           "output": [{"turn_id": turn["turn_id"], "query": turn["query"],
                                       "answer": turn["answer"][0].as_str().unwrap_or(""),
                                       "sequence": {"tool_call": turn["sequence"]["tool_call"]}}]})
                })
                .collect();
            std::fs::write(
                folder.join(file.file_name()),
                json!(predictions).to_string(),
            )
            .unwrap();
        }
        // A tool-log sidecar is not part of a submission.
        std::fs::write(folder.join("library_tools.json"), "[]").unwrap();
    }
}

#[test]
fn validated_predictions_are_bundled_and_the_bundle_scores_as_they_do() {
    let root = demo_root(true);
    let output = tempfile::tempdir().unwrap();
    runner_output(output.path());
    let only = ["--capability", "2", "--capability", "3"];
    let (_, report) = run_eval(root.path(), output.path(), &only);
    let dir = tempfile::tempdir().unwrap();
    let report_path = dir.path().join("report.json");
    std::fs::write(&report_path, report.to_string()).unwrap();
    let extra = dir.path().join("extra.json");
    std::fs::write(
        &extra,
        r#"{"temperature": 0, "code": "https://example.org/agent"}"#,
    )
    .unwrap();
    let bundle = dir.path().join("bundle");
    let out = output_ok(
        vakra()
            .args(["validate", "--all", "--output-dir"])
            .arg(output.path())
            .arg("--bundle")
            .arg(&bundle)
            .args(["--agent-name", "demo-oracle", "--maintainer", "vakra-rs"])
            .args(["--model", "none", "--model", "also-none"])
            .args(["--description", "The ground truth, replayed."])
            .arg("--metadata")
            .arg(&extra)
            .arg("--report")
            .arg(&report_path),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("5 files checked, 0 failed"), "{stdout}");

    // The ZIP: the benchmark's folder names, every domain file, byte for byte.
    let zip_bytes = std::fs::read(bundle.join("predictions.zip")).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&zip_bytes)).unwrap();
    let mut names: Vec<String> = archive
        .file_names()
        .map(|name| name.unwrap().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "capability_2_dashboard_apis/library.json",
            "capability_2_dashboard_apis/weather.json",
            "capability_3_multihop_reasoning/bpo.json",
            "capability_3_multihop_reasoning/library.json",
            "capability_3_multihop_reasoning/weather.json",
        ]
    );
    let unpacked = tempfile::tempdir().unwrap();
    for name in &names {
        let mut text = String::new();
        archive
            .by_name(name)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        let (folder, file) = name.split_once('/').unwrap();
        let source_folder = if folder.starts_with("capability_2") {
            "capability_2_mar_22_11_30am"
        } else {
            folder
        };
        let original = std::fs::read_to_string(output.path().join(source_folder).join(file));
        assert_eq!(text, original.unwrap(), "{name}");
        std::fs::create_dir_all(unpacked.path().join(folder)).unwrap();
        std::fs::write(unpacked.path().join(name), text).unwrap();
    }
    // The bundle, evaluated, scores as the run did.
    let (_, again) = run_eval(root.path(), unpacked.path(), &only);
    assert_eq!(again["leaderboard_score"], report["leaderboard_score"]);
    assert_eq!(again["capabilities"]["2"]["score"], 100.0);

    // metadata.json: the template's fields, the ZIP's digest, the files, the scores.
    let metadata: Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("metadata.json")).unwrap())
            .unwrap();
    assert_eq!(metadata["agent_name"], "demo-oracle");
    assert_eq!(metadata["models"], json!(["none", "also-none"]));
    assert_eq!(metadata["metadata"]["temperature"], 0);
    assert_eq!(
        metadata["zip"]["sha256"],
        hex::encode(Sha256::digest(&zip_bytes))
    );
    assert_eq!(metadata["zip"]["bytes"], zip_bytes.len());
    let library = &metadata["capabilities"]["2"]["domains"]["library"];
    assert_eq!(library["records"], 2);
    assert_eq!(
        metadata["capabilities"]["2"]["folder"],
        "capability_2_dashboard_apis"
    );
    assert_eq!(
        metadata["scores"]["leaderboard_score"],
        report["leaderboard_score"]
    );
    assert_eq!(metadata["scores"]["capabilities"]["3"], 100.0);
    let form = std::fs::read_to_string(bundle.join("submission.md")).unwrap();
    assert!(form.contains("## Agent Name\ndemo-oracle\n"), "{form}");
    assert!(form.contains("- `capability_3_multihop_reasoning/bpo.json` (1 record)"));
    assert!(form.contains("- `capability_2_dashboard_apis/library.json` (2 records)"));

    // The same files give the same ZIP.
    let again_dir = dir.path().join("bundle-again");
    output_ok(
        vakra()
            .args(["validate", "--all", "--output-dir"])
            .arg(output.path())
            .arg("--bundle")
            .arg(&again_dir)
            .args(["--agent-name", "a", "--maintainer", "m", "--model", "x"])
            .args(["--description", "d"]),
    );
    assert_eq!(
        std::fs::read(again_dir.join("predictions.zip")).unwrap(),
        zip_bytes
    );
}

#[test]
fn an_invalid_file_stops_the_bundle() {
    let output = tempfile::tempdir().unwrap();
    runner_output(output.path());
    std::fs::write(
        output
            .path()
            .join("capability_3_multihop_reasoning/weather.json"),
        r#"[{"uuid": "u", "domain": "weather"}]"#,
    )
    .unwrap();
    let bundle = output.path().join("bundle");
    let out = vakra()
        .args(["validate", "--all", "--output-dir"])
        .arg(output.path())
        .arg("--bundle")
        .arg(&bundle)
        .args(["--agent-name", "a", "--maintainer", "m", "--model", "x"])
        .args(["--description", "d"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no bundle written"));
    assert!(!bundle.exists());
    // The template's required fields are required.
    let out = vakra()
        .args(["validate", "--all", "--output-dir"])
        .arg(output.path())
        .arg("--bundle")
        .arg(&bundle)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--agent-name"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

//! What `vakra eval` and `vakra validate` are given: one combined prediction file, files that
//! are not regular (a FIFO, a link to `/dev/zero`), values nested as deep as Python's `json`
//! reads, and the ground truth passed as predictions.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{demo_root, demo_split, run_eval, vakra};
use serde_json::{Value, json};

/// Every ground-truth record of the demo split (capabilities 1–3), in the submission format
/// (status, error and duration added; answers as text), with its capability folder and file.
fn ground_truth_submissions() -> Vec<(String, String, Value)> {
    let mut records = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(demo_split()).unwrap().flatten().collect();
    dirs.sort_by_key(|e| e.file_name());
    for dir in dirs {
        let name = dir.file_name().to_string_lossy().into_owned();
        if name.starts_with("capability_4") {
            continue;
        }
        let mut files: Vec<_> = std::fs::read_dir(dir.path().join("output"))
            .unwrap()
            .flatten()
            .collect();
        files.sort_by_key(|e| e.file_name());
        for file in files {
            let text = std::fs::read_to_string(file.path()).unwrap();
            let Value::Array(items) = serde_json::from_str(&text).unwrap() else {
                panic!("not an array")
            };
            for mut item in items {
                item["status"] = json!("success");
                item["error"] = json!("");
                item["duration_s"] = json!(1.0);
                for turn in item["output"].as_array_mut().unwrap() {
                    if !turn["answer"].is_string() {
                        turn["answer"] = json!(turn["answer"].to_string());
                    }
                }
                let file_name = file.file_name().to_string_lossy().into_owned();
                records.push((name.clone(), file_name, item));
            }
        }
    }
    records
}

fn validate(target: &Path) -> (bool, String, Duration) {
    let started = Instant::now();
    let output = vakra()
        .arg("validate")
        .arg(target)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.success(), stdout, started.elapsed())
}

#[test]
fn a_single_combined_file_is_evaluated_like_its_folders() {
    let root = demo_root(false);
    let dir = tempfile::tempdir().unwrap();
    let records = ground_truth_submissions();
    let file = dir.path().join("predictions.json");
    let all: Vec<&Value> = records.iter().map(|(_, _, r)| r).collect();
    std::fs::write(&file, serde_json::to_vec(&all).unwrap()).unwrap();
    let (ok, stdout, _) = validate(&file);
    assert!(ok, "{stdout}");
    // The same records laid out as folders.
    let folders = dir.path().join("folders");
    let mut by_file: std::collections::BTreeMap<(String, String), Vec<&Value>> = Default::default();
    for (capability, name, record) in &records {
        by_file
            .entry((capability.clone(), name.clone()))
            .or_default()
            .push(record);
    }
    for ((capability, name), records) in by_file {
        std::fs::create_dir_all(folders.join(&capability)).unwrap();
        std::fs::write(
            folders.join(&capability).join(name),
            serde_json::to_vec(&records).unwrap(),
        )
        .unwrap();
    }
    let only = [
        "--capability",
        "1",
        "--capability",
        "2",
        "--capability",
        "3",
    ];
    let (_, from_file) = run_eval(root.path(), &file, &only);
    let (_, from_folders) = run_eval(root.path(), &folders, &only);
    for key in ["leaderboard_score", "capabilities"] {
        assert_eq!(from_file[key], from_folders[key], "{key}");
    }
    assert!(
        from_file["leaderboard_score"].as_f64().unwrap() > 50.0,
        "{from_file}"
    );
    assert_eq!(from_file["capabilities"].as_object().unwrap().len(), 3);
}

#[test]
fn files_that_are_not_regular_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("capability_2_dashboard_apis");
    std::fs::create_dir(&folder).unwrap();
    let fifo = folder.join("library.json");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo only creates the named pipe at a path of this test's own folder.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink("/dev/zero", folder.join("weather.json")).unwrap();
    let (ok, stdout, took) = validate(&folder);
    assert!(!ok && took < Duration::from_secs(10), "{took:?} {stdout}");
    assert_eq!(
        stdout
            .matches("Cannot read the file: not a regular file (a FIFO, device or socket)")
            .count(),
        2,
        "{stdout}"
    );
    // The evaluator reads the same way: it finishes, each file a problem of the report.
    let root = demo_root(false);
    let started = Instant::now();
    let (_, report) = run_eval(root.path(), dir.path(), &["--capability", "2"]);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(report.is_object());
}

fn nested(depth: usize) -> Value {
    let mut value = json!(0);
    for _ in 0..depth {
        value = json!([value]);
    }
    json!([{"uuid": "x", "domain": "library", "status": "success", "error": "",
        "duration_s": 1, "output": [{"turn_id": 1, "query": "q", "answer": "a",
        "sequence": {"tool_call": [{"name": "t", "arguments": {"a": value}}]}}]}])
}

#[test]
fn values_nest_as_deep_as_python_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.json");
    // serde_json's writer has no depth limit; 900 levels is within Python's ~1,000.
    std::fs::write(&file, serde_json::to_string(&nested(900)).unwrap()).unwrap();
    let (ok, stdout, _) = validate(&file);
    assert!(ok, "{stdout}");
    std::fs::write(&file, serde_json::to_string(&nested(1_100)).unwrap()).unwrap();
    let (ok, stdout, _) = validate(&file);
    assert!(!ok, "{stdout}");
    assert!(stdout.contains("more than 1000"), "{stdout}");
}

#[test]
fn the_ground_truth_as_predictions_is_warned_about() {
    let root = demo_root(false);
    let output = vakra()
        .args(["eval", "--quiet", "--capability", "2", "--ground-truth"])
        .arg(demo_split())
        .arg("--predictions")
        .arg(demo_split())
        .arg("--root")
        .arg(root.path())
        .arg("--report")
        .arg(root.path().join("report.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr
            .contains("is the ground truth (or inside it): its scores say nothing about an agent"),
        "{stderr}"
    );
}

/// A hostile prediction file gets a bounded report: problems listed up to 1,000 per file and
/// counted after that, records of unknown samples named up to 1,000, a long answer judged whole
/// but shown cut.
#[test]
fn hostile_predictions_get_a_bounded_report() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("capability_2_dashboard_apis");
    std::fs::create_dir(&folder).unwrap();
    let zeros = vec!["0"; 200_000].join(",");
    std::fs::write(folder.join("weather.json"), format!("[{zeros}]")).unwrap();
    let gt = crate::common::demo_ground_truth("capability_2_dashboard_apis", "library");
    let mut record = gt[0].clone();
    let long_answer = "y".repeat(50_000);
    record["output"].as_array_mut().unwrap().last_mut().unwrap()["answer"] = json!(long_answer);
    let mut records = vec![record.clone()];
    records.extend((0..1_500).map(|i| json!({"uuid": format!("unknown-{i}")})));
    std::fs::write(
        folder.join("library.json"),
        Value::Array(records).to_string(),
    )
    .unwrap();

    let root = demo_root(false);
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("report.json");
    let output = vakra()
        .args(["eval", "--quiet", "--capability", "2", "--ground-truth"])
        .arg(crate::common::demo_split())
        .arg("--predictions")
        .arg(dir.path())
        .arg("--root")
        .arg(root.path())
        .arg("--report")
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 1_000_000, "the report holds {size} bytes");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let problems = report["problems"].as_array().unwrap();
    let of_weather: Vec<&str> = problems
        .iter()
        .filter(|p| p["file"].as_str().unwrap().ends_with("weather.json"))
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert_eq!(of_weather.len(), 1_001, "{:?}", &of_weather[..3]);
    assert_eq!(
        of_weather[1_000],
        "199000 more unusable records, not listed"
    );
    let capability = &report["capabilities"]["2"];
    assert_eq!(
        capability["extra_prediction_uuids"]
            .as_array()
            .unwrap()
            .len(),
        1_000
    );
    assert!(
        problems.iter().any(|p| p["message"]
            == "500 more records of samples not in the ground truth, not listed in extra_prediction_uuids"),
        "{problems:?}"
    );
    let uuid = gt[0]["uuid"].as_str().unwrap();
    let sample = crate::common::report_sample(&report, "2", uuid);
    let shown = sample["pred_answer"].as_str().unwrap();
    assert!(
        shown.starts_with(&"y".repeat(10_000))
            && shown.ends_with("… (40000 more characters not shown)"),
        "{}",
        &shown[9_990..]
    );
}

/// `vakra eval diff`, `merge` and `board` refuse a FIFO or a device at once with a clear error.
#[test]
fn reports_that_are_not_regular_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.json");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo only creates the named pipe at a path of this test's own folder.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let zero = Path::new("/dev/zero");
    let html = dir.path().join("board.html");
    let runs: [Vec<&std::ffi::OsStr>; 4] = [
        vec!["diff".as_ref(), fifo.as_ref(), zero.as_ref()],
        vec!["diff".as_ref(), zero.as_ref(), fifo.as_ref()],
        vec![
            "merge".as_ref(),
            fifo.as_ref(),
            zero.as_ref(),
            "--report".as_ref(),
            html.as_ref(),
        ],
        vec![
            "board".as_ref(),
            zero.as_ref(),
            "--html".as_ref(),
            html.as_ref(),
        ],
    ];
    for args in runs {
        let started = Instant::now();
        let output = vakra()
            .arg("eval")
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}");
        assert!(started.elapsed() < Duration::from_secs(30), "{args:?}");
    }
}

/// The input and report limits are flags: `--max-listed`, `--max-shown-chars`, `--max-trials`
/// and `--max-input-bytes` of `vakra eval` (and the first and last of `vakra validate`) act at
/// the values given, each with a log line.
#[test]
fn the_input_limits_are_flags() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("capability_2_dashboard_apis");
    std::fs::create_dir(&folder).unwrap();
    let zeros = vec!["0"; 20].join(",");
    std::fs::write(folder.join("weather.json"), format!("[{zeros}]")).unwrap();
    let gt = crate::common::demo_ground_truth("capability_2_dashboard_apis", "library");
    let mut record = gt[0].clone();
    record["output"].as_array_mut().unwrap().last_mut().unwrap()["answer"] = json!("y".repeat(500));
    let records: Vec<Value> = (0..4)
        .map(|trial| {
            let mut record = record.clone();
            record["trial"] = json!(trial);
            record
        })
        .collect();
    std::fs::write(
        folder.join("library.json"),
        Value::Array(records).to_string(),
    )
    .unwrap();
    let root = demo_root(false);
    let flags = [
        "--capability",
        "2",
        "--max-listed",
        "5",
        "--max-shown-chars",
        "100",
        "--max-trials",
        "2",
    ];
    let (output, report) =
        crate::common::run_eval_split(&demo_split(), root.path(), dir.path(), &flags);
    let log = String::from_utf8_lossy(&output.stderr);
    let problems = report["problems"].as_array().unwrap();
    let messages = |file: &str| -> Vec<&str> {
        problems
            .iter()
            .filter(|p| p["file"].as_str().unwrap().ends_with(file))
            .map(|p| p["message"].as_str().unwrap())
            .collect()
    };
    let of_weather = messages("weather.json");
    assert_eq!(of_weather.len(), 6, "{of_weather:?}");
    assert_eq!(of_weather[5], "15 more unusable records, not listed");
    let of_library = messages("library.json");
    assert_eq!(
        of_library,
        [
            "more than 2 trials of one sample: trial 2 is not scored",
            "more than 2 trials of one sample: trial 3 is not scored"
        ]
    );
    let uuid = gt[0]["uuid"].as_str().unwrap();
    let sample = crate::common::report_sample(&report, "2", uuid);
    assert_eq!(
        sample["pred_answer"],
        format!("{}… (400 more characters not shown)", "y".repeat(100))
    );
    for flag in ["--max-listed", "--max-trials", "--max-shown-chars"] {
        assert!(log.contains(flag), "no log line names {flag}: {log}");
    }

    // Every file is larger than 64 bytes: each is one problem naming its size.
    let (output, report) = crate::common::run_eval_split(
        &demo_split(),
        root.path(),
        dir.path(),
        &["--capability", "2", "--max-input-bytes", "64"],
    );
    let problems = report["problems"].as_array().unwrap();
    for file in ["weather.json", "library.json"] {
        assert!(
            problems
                .iter()
                .any(|p| p["file"].as_str().unwrap().ends_with(file)
                    && p["message"]
                        .as_str()
                        .unwrap()
                        .contains("more than the limit of 64")),
            "{problems:?}"
        );
    }
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(log.contains("--max-input-bytes"), "{log}");

    let weather = folder.join("weather.json");
    let output = vakra()
        .args(["validate", "--max-listed", "3"])
        .arg(&weather)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("… and 17 more errors, not listed"),
        "{stdout}"
    );
    let output = vakra()
        .args(["validate", "--max-input-bytes", "16"])
        .arg(&weather)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success() && stdout.contains("more than the limit of 16"),
        "{stdout}"
    );
}

//! Every endpoint form of the reference (spec §1.3–1.7), end to end: the `forms` fixture routers
//! are imported, their databases built, and each recorded request of the real FastAPI reference
//! (`calls.jsonl`) must give the same status and the same body, byte for byte.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;
use vakra_endpoint::RestBird;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vakra-import/tests/fixtures/forms")
}

fn build_root() -> (tempfile::TempDir, Arc<RestBird>) {
    let dir = tempfile::tempdir().unwrap();
    let report = vakra_import::import(&vakra_import::ImportOptions {
        vakra_repo: fixture(),
        out: dir.path().to_owned(),
        dataset: None,
        progress: false,
    })
    .unwrap();
    assert!(
        report.unexpressed.is_empty(),
        "not expressible: {:?}",
        report.unexpressed
    );
    assert_eq!(
        report.domains, 2,
        "forms and forms_extra, not the unmounted module"
    );
    for domain in ["forms", "forms_extra"] {
        let db_dir = dir.path().join("databases").join(domain);
        std::fs::create_dir_all(&db_dir).unwrap();
        let sql = std::fs::read_to_string(fixture().join(format!("{domain}.sql"))).unwrap();
        rusqlite::Connection::open(db_dir.join(format!("{domain}.sqlite")))
            .unwrap()
            .execute_batch(&sql)
            .unwrap();
    }
    let bird = crate::load_bird(dir.path(), Duration::from_secs(10));
    (dir, bird)
}

#[tokio::test]
async fn recorded_reference_answers_reproduce() {
    let (_dir, bird) = build_root();
    let app = vakra_rest::router(vakra_rest::RestApi::new(bird));
    let calls = std::fs::read_to_string(fixture().join("calls.jsonl")).unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in calls.lines().filter(|l| !l.trim().is_empty()) {
        count += 1;
        let call: Value = serde_json::from_str(line).unwrap();
        let path = call["path"].as_str().unwrap();
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (k, v) in call["params"].as_object().unwrap() {
            query.append_pair(
                k,
                v.as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| v.to_string())
                    .as_str(),
            );
        }
        let uri = format!("{path}?{}", query.finish());
        let response = app
            .clone()
            .oneshot(Request::get(&uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let want_status = call["status"].as_u64().unwrap() as u16;
        let (want_text, got_text) = match call.get("body") {
            Some(body) => (
                vakra_pytext::dumps(body, &vakra_pytext::DumpOptions::compact_utf8()).unwrap(),
                text.clone(),
            ),
            None => (call["text"].as_str().unwrap().to_owned(), text.clone()),
        };
        if status != StatusCode::from_u16(want_status).unwrap() || want_text != got_text {
            failures.push(format!(
                "{uri}\n  want {want_status} {want_text}\n  got  {} {got_text}",
                status.as_u16()
            ));
        }
        if want_status == 500 && content_type != "text/plain; charset=utf-8" {
            failures.push(format!("{uri}: 500 with content-type {content_type:?}"));
        }
    }
    assert!(count >= 50, "only {count} recorded calls");
    assert!(
        failures.is_empty(),
        "{} of {count} calls differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

//! Shared test helpers: the reference's data folder, sessions on it, the descriptions the tools
//! are listed with, and readable diffs.

#![allow(dead_code)]

pub mod recorded;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};
use vakra_bpo::{BpoData, BpoSession, DESCRIPTIONS_FILE, Descriptions, ToolOutput};

/// The reference's BPO data folder beside the repository (`../shared`), as CI has it.
pub fn reference_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/reference/environment/bpo/data"
    ))
}

/// Whether `VAKRA_REQUIRE_REF` is set (to anything but an empty string or `0`): the checks that
/// need reference inputs (`VAKRA_REF`, `VAKRA_BPO_GOLDENS`) then fail when those are missing
/// instead of being skipped, as `scripts/conformance.sh` runs them.
pub fn reference_required() -> bool {
    std::env::var("VAKRA_REQUIRE_REF").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Skips a reference-gated check (saying why on stderr), or fails it under
/// `VAKRA_REQUIRE_REF`.
#[track_caller]
pub fn skip_without_reference(why: &str) {
    assert!(!reference_required(), "VAKRA_REQUIRE_REF is set but {why}");
    eprintln!("skipped: {why}");
}

/// The reference's descriptions file as `vakra import` builds it, from the checkout `VAKRA_REF`
/// names; `None` when it is not set (a failure under `VAKRA_REQUIRE_REF`).
pub fn reference_descriptions() -> Option<Value> {
    let Some(checkout) = std::env::var_os("VAKRA_REF") else {
        assert!(
            !reference_required(),
            "VAKRA_REQUIRE_REF is set but VAKRA_REF does not name a reference checkout"
        );
        return None;
    };
    let texts = vakra_import::docstrings::bpo_texts(Path::new(&checkout))
        .expect("read the reference's BPO descriptions")
        .expect("VAKRA_REF has no BPO server");
    Some(texts)
}

/// The demo data root's descriptions file.
pub fn demo_descriptions() -> Value {
    let path = demo_dir().join(DESCRIPTIONS_FILE);
    let text = std::fs::read_to_string(&path).expect("read the demo descriptions");
    serde_json::from_str(&text).expect("the demo descriptions are JSON")
}

/// The descriptions the tests list tools with: the reference's when `VAKRA_REF` is set, the
/// demo's otherwise.
pub fn descriptions_json() -> Value {
    reference_descriptions().unwrap_or_else(demo_descriptions)
}

pub fn descriptions() -> Descriptions {
    Descriptions::from_json(&descriptions_json()).expect("a well-formed descriptions file")
}

/// The reference data set (whose checkout folder has no descriptions file: see
/// [`descriptions`]), loaded once for all tests of a binary.
pub fn reference_data() -> Arc<BpoData> {
    static DATA: OnceLock<Arc<BpoData>> = OnceLock::new();
    DATA.get_or_init(|| {
        Arc::new(
            BpoData::load_with_descriptions(&reference_dir(), descriptions())
                .expect("load the reference's BPO data"),
        )
    })
    .clone()
}

/// The demo data set (the repository's top-level `bpo/`).
pub fn demo_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bpo"))
}

pub fn session() -> BpoSession {
    BpoSession::new(reference_data())
}

pub fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

/// The text of a successful call.
pub fn ok_text(out: &ToolOutput) -> &str {
    assert!(!out.is_error, "unexpected error: {:?}", out.text);
    out.text.as_deref().expect("a text result")
}

/// Pretty-printed JSON when `text` parses, so differences show line by line.
fn pretty(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_owned())
}

/// Lines around the first difference of two texts, marked `-` (expected) and `+` (actual).
pub fn diff(expected: &str, actual: &str) -> String {
    let (expected, actual) = (pretty(expected), pretty(actual));
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let first = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let from = first.saturating_sub(4);
    let mut out = format!("first difference at line {}:\n", first + 1);
    for line in &e[from..e.len().min(from + 4)] {
        out.push_str(&format!("  {line}\n"));
    }
    for line in e.iter().skip(from.max(first)).take(6) {
        out.push_str(&format!("- {line}\n"));
    }
    for line in a.iter().skip(from.max(first)).take(6) {
        out.push_str(&format!("+ {line}\n"));
    }
    out
}

/// Asserts two texts are equal, showing a readable diff when not.
#[track_caller]
pub fn assert_text(context: &str, expected: &str, actual: &str) {
    if expected != actual {
        panic!("{context}: texts differ\n{}", diff(expected, actual));
    }
}

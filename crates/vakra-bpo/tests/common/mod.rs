//! Helpers of this crate's tests: the reference's data folder, sessions on it and the
//! descriptions the tools are listed with (what is not about BPO comes from vakra-test-kit).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use vakra_bpo::{BpoData, BpoSession, DESCRIPTIONS_FILE, Descriptions, ToolOutput};
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::reference;

/// The reference's BPO data folder ([`reference::file`]); `None` skips the test. A test on the
/// reference's data calls it first: [`reference_data`] and [`session`] then find it.
pub fn reference_dir() -> Option<PathBuf> {
    reference::file("environment/bpo/data")
}

/// The reference's descriptions file as `vakra import` builds it, from a reference checkout
/// ([`reference::optional_checkout`]); `None` without one.
pub fn reference_descriptions() -> Option<Value> {
    let checkout = reference::optional_checkout("the reference's BPO descriptions")?;
    let texts = vakra_import::docstrings::bpo_texts(&checkout)
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
        let dir = reference_dir().expect("the test checked reference_dir() first");
        Arc::new(
            BpoData::load_with_descriptions(&dir, descriptions())
                .expect("load the reference's BPO data"),
        )
    })
    .clone()
}

/// The demo data set (the repository's top-level `bpo/`).
pub fn demo_dir() -> PathBuf {
    repo_root().join("bpo")
}

pub fn session() -> BpoSession {
    BpoSession::new(reference_data())
}

/// The text of a successful call.
pub fn ok_text(out: &ToolOutput) -> &str {
    assert!(!out.is_error, "unexpected error: {:?}", out.text);
    out.text.as_deref().expect("a text result")
}

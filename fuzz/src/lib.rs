//! Fixtures shared by the fuzz targets: the repository's demo data root, and the small data
//! roots the targets build once per process.

use std::path::{Path, PathBuf};

/// The repository's top directory, a data root with the demo domains.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fuzz/ has a parent")
        .to_owned()
}

/// The arguments of a tool call from fuzz input: a JSON object, or nothing.
pub fn json_object(bytes: &[u8]) -> Option<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_slice(bytes) {
        Ok(serde_json::Value::Object(map)) => Some(map),
        _ => None,
    }
}

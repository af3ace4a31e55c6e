//! The data root's JSON files that `vakra import` writes from the reference's prose and the
//! crates read: read here, in one way, with the path in every error.

use std::path::Path;

/// A JSON file of the data root, with its path (for reports); `None` when the root has none.
pub fn read_imported<T: serde::de::DeserializeOwned>(
    root: &Path,
    file: &str,
) -> Result<Option<(T, String)>, String> {
    let path = root.join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(|value| Some((value, path.display().to_string())))
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

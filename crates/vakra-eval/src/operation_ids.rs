//! The operation-id maps: legacy FastAPI operation ids → today's tool names, read from the
//! files the reference publishes (and simpler shapes of them).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

/// Reads the operation-id maps (legacy operation id → tool name) in any of their forms: the
/// reference's `mapping_metadata/all_operation_id_mappings.json`
/// (`{"total_files", "total_mappings", "files": {"<f>.py": {old: new}}}`), the same with each
/// file's pairs under `"mappings"`, `{"mappings": {old: new}}`, or a flat `{old: new}` object.
/// Any other shape is an error, so that a wrong file never passes as an empty map.
pub fn read_operation_id_map(path: &Path) -> Result<HashMap<String, String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    operation_id_map(&value).map_err(|e| format!("{}: {e}", path.display()))
}

/// The pairs of an operation-id map file's JSON (see [`read_operation_id_map`]).
fn operation_id_map(value: &Value) -> Result<HashMap<String, String>, String> {
    let pairs = |map: &Map<String, Value>, at: &str, out: &mut HashMap<String, String>| {
        for (old, new) in map {
            let new = new.as_str().ok_or_else(|| {
                format!("{at}\"{old}\" maps to {new}, expected a tool name (a string)")
            })?;
            out.insert(old.clone(), new.to_owned());
        }
        Ok::<usize, String>(map.len())
    };
    let object = value
        .as_object()
        .ok_or("expected a JSON object of operation-id mappings")?;
    let mut out = HashMap::new();
    if let Some(files) = object.get("files") {
        let files = files
            .as_object()
            .ok_or("\"files\" must be an object of {\"<file>.py\": {old: new}}")?;
        let mut read = 0;
        for (file, entry) in files {
            let map = match entry.get("mappings") {
                Some(mappings) => mappings.as_object(),
                None => entry.as_object(),
            }
            .ok_or_else(|| format!("files.\"{file}\" must be an object of {{old: new}}"))?;
            read += pairs(map, &format!("files.\"{file}\": "), &mut out)?;
        }
        if let Some(total) = object.get("total_mappings").and_then(Value::as_u64)
            && total != read as u64
        {
            return Err(format!(
                "\"total_mappings\" says {total} but the files hold {read} mappings"
            ));
        }
        return Ok(out);
    }
    match object.get("mappings") {
        Some(Value::Object(map)) => pairs(map, "mappings.", &mut out)?,
        Some(_) => return Err("\"mappings\" must be an object of {old: new}".into()),
        None => pairs(object, "", &mut out)?,
    };
    Ok(out)
}

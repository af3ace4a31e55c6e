//! MCP tools derived from catalog operations, exactly as the reference's OpenAPI-to-MCP wrapper
//! derives them (tool name = operation id, description = summary, a minimal input schema), and
//! the reference's tool checksum.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::Operation;

/// A tool as listed by `tools/list`: only these three fields exist in the reference's listing.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Map<String, Value>,
}

/// The tool an operation becomes. The schema carries no titles or defaults, key order is
/// `type`, `properties`, `required`, and `required` lists required parameters in declaration
/// order (possibly empty) — this is what the reference's checksums hash.
pub fn tool_for(op: &Operation) -> ToolSpec {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &op.params {
        properties.insert(
            param.name.clone(),
            json!({"type": param.ty.json_type(), "description": param.description}),
        );
        if param.required {
            required.push(Value::String(param.name.clone()));
        }
    }
    let mut input_schema = Map::new();
    input_schema.insert("type".into(), "object".into());
    input_schema.insert("properties".into(), Value::Object(properties));
    input_schema.insert("required".into(), Value::Array(required));
    ToolSpec {
        name: op.operation_id.clone(),
        description: op.summary.clone(),
        input_schema,
    }
}

/// The reference wrapper's domain filter: a raw prefix test on the path, without a trailing
/// slash, so `movie` also selects `movie_3`, `movie_platform`, `movielens` and `movies_4`. With
/// `exact` (the quirk-fixed mode) only the domain's own paths match.
pub fn path_in_domain(path: &str, domain: &str, exact: bool) -> bool {
    let Some(rest) = path
        .strip_prefix("/v1/")
        .and_then(|p| p.strip_prefix(domain))
    else {
        return false;
    };
    !exact || rest.starts_with('/')
}

/// Whether a domain's catalog can contribute tools for a filter (its paths all start with
/// `/v1/<domain>/`), so that a server loads only those catalogs.
pub fn domain_selected(catalog_domain: &str, filter: &str, exact: bool) -> bool {
    if exact {
        catalog_domain == filter
    } else {
        catalog_domain.starts_with(filter)
    }
}

/// The reference's tool checksum (`environment/tool_checksums.py`): tools stably sorted by name,
/// `[{"name", "inputSchema"}]` dumped with sorted keys and compact separators, SHA-256 hex.
pub fn checksum(tools: &[ToolSpec]) -> String {
    let mut sorted: Vec<&ToolSpec> = tools.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let entries: Vec<Value> = sorted
        .iter()
        .map(|t| json!({"name": t.name, "inputSchema": Value::Object(t.input_schema.clone())}))
        .collect();
    let text = vakra_pytext::dumps(
        &Value::Array(entries),
        &vakra_pytext::DumpOptions::checksum(),
    )
    .unwrap_or_default();
    hex::encode(Sha256::digest(text.as_bytes()))
}

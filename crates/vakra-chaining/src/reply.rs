//! What a capability-1 session answers: the tools it lists and the reply to one call.

use std::sync::Arc;

use serde_json::{Map, Value};
use vakra_pytext::{DumpOptions, dumps};

/// A listed tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    pub name: String,
    pub description: String,
    pub input_schema: Arc<Map<String, Value>>,
}

/// A tool's answer: one text content, and whether the reference marks it `isError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub text: String,
    pub is_error: bool,
}

impl Reply {
    pub(crate) fn ok(text: String) -> Self {
        Self {
            text,
            is_error: false,
        }
    }

    pub(crate) fn error(text: String) -> Self {
        Self {
            text,
            is_error: true,
        }
    }

    /// `json.dumps({"error": message})`, returned as a normal result.
    pub(crate) fn error_json(message: String) -> Self {
        let mut object = Map::new();
        object.insert("error".into(), Value::String(message));
        Self::ok(dumps(&Value::Object(object), &DumpOptions::python_default()).unwrap_or_default())
    }
}

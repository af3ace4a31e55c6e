//! The texts the tool list shows: each tool's description and each response model's
//! description. They are the reference's prose, so they are not part of this crate: `vakra import`
//! writes them into a data root's `bpo/descriptions.json` from the user's checkout (the demo data
//! root ships descriptions of its own).
//!
//! The file is `{"tools": [{"name": "<tool>", "description": "<text or null>"}, …], "models":
//! {"<pydantic class name>": "<text>", …}}`.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::error::BpoError;

/// The file name inside a BPO data folder.
pub const DESCRIPTIONS_FILE: &str = vakra_catalog::files::BPO_DESCRIPTIONS.name();

/// Tool and model descriptions, by name.
#[derive(Debug, Clone, Default)]
pub struct Descriptions {
    tools: HashMap<String, String>,
    models: HashMap<String, String>,
}

impl Descriptions {
    /// Reads a descriptions file; a missing or malformed file is an error naming it.
    pub fn read(path: &Path) -> Result<Self, BpoError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BpoError::NoDescriptions {
                    path: path.to_path_buf(),
                });
            }
            Err(source) => {
                return Err(BpoError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let malformed = |message: String| BpoError::Descriptions {
            path: path.to_path_buf(),
            message,
        };
        let value: Value = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
        Self::from_json(&value).map_err(malformed)
    }

    /// Descriptions from the JSON value of a descriptions file (as `vakra import` builds it).
    pub fn from_json(value: &Value) -> Result<Self, String> {
        let object = value
            .as_object()
            .ok_or("expected a JSON object with `tools` and `models`")?;
        let tools = object
            .get("tools")
            .and_then(Value::as_array)
            .ok_or("`tools` should be an array of {\"name\", \"description\"} objects")?;
        let mut descriptions = Self::default();
        for (i, tool) in tools.iter().enumerate() {
            let name = tool
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("tools[{i}]: `name` should be a string"))?;
            let description = match tool.get("description") {
                Some(Value::String(text)) => text.clone(),
                None | Some(Value::Null) => String::new(),
                Some(_) => {
                    return Err(format!(
                        "tools[{i}] ({name}): `description` should be a string or null"
                    ));
                }
            };
            descriptions.tools.insert(name.to_owned(), description);
        }
        let models = object
            .get("models")
            .and_then(Value::as_object)
            .ok_or("`models` should be an object mapping class names to descriptions")?;
        for (name, description) in models {
            let text = description
                .as_str()
                .ok_or_else(|| format!("models.{name}: the description should be a string"))?;
            descriptions.models.insert(name.clone(), text.to_owned());
        }
        Ok(descriptions)
    }

    /// A tool's description; empty when the file does not describe it.
    pub fn tool(&self, name: &str) -> &str {
        self.tools.get(name).map_or("", String::as_str)
    }

    /// A response model's description, by its class name.
    pub fn model(&self, name: &str) -> Option<&str> {
        self.models.get(name).map(String::as_str)
    }
}

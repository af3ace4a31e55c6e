//! The prose of the capability-1 tool listing: tool descriptions, model and field descriptions,
//! the handle-argument description.
//!
//! It is benchmark content, so it is never part of this repository: `vakra import` reads it from
//! the reference's source into [`crate::files::TOOL_TEXTS`], and the demo data root carries texts
//! written for it. The structure of the schemas (names, types, defaults, order) is behaviour and
//! lives in `vakra-chaining`'s listing; only the strings come from here. A text that is absent leaves its
//! `description` key out, as pydantic does for a field without one.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::CatalogError;
use crate::root_file::RootFile;

/// The prose of capability 1's tool listing.
pub const TOOL_TEXTS: RootFile<ToolTexts> = crate::files::CAPABILITY1.file("texts.json");

/// The strings of the listing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolTexts {
    /// The description of every `data_label*` argument (the handle convention).
    #[serde(default)]
    pub handle: Option<String>,
    /// The description of `get_data`.
    #[serde(default)]
    pub get_data: Option<String>,
    /// The `Args:` line of a getter's docstring.
    #[serde(default)]
    pub getter_args: Option<String>,
    /// The SLOT-BIRD tools' own descriptions (the tool registry's docstrings), by tool name.
    #[serde(default)]
    pub tools: HashMap<String, String>,
    /// Input models and enums by class name: their description and their fields' descriptions.
    #[serde(default)]
    pub models: HashMap<String, ModelTexts>,
    /// The descriptions of the preset (constant) fields of SEL-BIRD tools, by tool name.
    #[serde(default)]
    pub presets: HashMap<String, HashMap<String, String>>,
}

/// The strings of one pydantic model or enum.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelTexts {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub fields: HashMap<String, String>,
}

impl ToolTexts {
    /// Reads [`TOOL_TEXTS`] of `root`.
    pub fn load(root: &Path) -> Result<Self, CatalogError> {
        let path = TOOL_TEXTS.path(root);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            CatalogError::ToolTexts(format!(
                "cannot read {}: {e} (run `vakra import` to create it)",
                path.display()
            ))
        })?;
        serde_json::from_str(&text)
            .map_err(|e| CatalogError::ToolTexts(format!("{}: {e}", path.display())))
    }

    /// The description of an input model or enum.
    pub fn model(&self, model: &str) -> Option<&str> {
        self.models.get(model)?.description.as_deref()
    }

    /// The description of one field of an input model.
    pub fn field(&self, model: &str, field: &str) -> Option<&str> {
        self.models
            .get(model)?
            .fields
            .get(field)
            .map(String::as_str)
    }

    /// The description of a SEL-BIRD tool's preset field.
    pub fn preset(&self, tool: &str, field: &str) -> Option<&str> {
        self.presets.get(tool)?.get(field).map(String::as_str)
    }
}

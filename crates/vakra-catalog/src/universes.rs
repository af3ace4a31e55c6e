//! Capability 1's tool-universe mapping: universe id → domain, `init_args` and toolset.
//!
//! The reference parses a 1.2 MB YAML file at every start. `vakra import` converts it once into
//! [`crate::files::UNIVERSES`] (same content, same order), which starts in milliseconds; order
//! matters because a domain's first id decides its startup universe, the `Unknown universe ID`
//! error quotes the first ten ids of the file, and alias order decides the join.

use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::CatalogError;
use crate::root_file::RootFile;

/// Capability 1's universe mapping, converted from the reference's YAML.
pub const UNIVERSES: RootFile<Universes> = crate::files::CAPABILITY1.file("universes.json");

/// One universe of the mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Universe {
    pub domain: String,
    pub init_args: InitArgs,
    /// The natural-language question the universe was made for (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// `slot_filling` or `selection`; missing means `slot_filling`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_type: Option<String>,
}

impl Universe {
    /// The toolset a switch into this universe activates.
    pub fn toolset(&self) -> Toolset {
        match self.server_type.as_deref() {
            Some("selection") => Toolset::Selection,
            _ => Toolset::SlotFilling,
        }
    }
}

/// SLOT-BIRD (`slot_filling`, generic tools) or SEL-BIRD (`selection`, specialised tools and
/// column getters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Toolset {
    SlotFilling,
    Selection,
}

/// Every universe of the mapping, in file order.
#[derive(Debug, Clone, Default)]
pub struct Universes {
    entries: IndexMap<String, Universe>,
}

impl Universes {
    /// Parses the reference's YAML mapping, keeping the file's order.
    pub fn from_yaml(text: &str) -> Result<Self, CatalogError> {
        let entries: IndexMap<String, Universe> = serde_yaml_ng::from_str(text)
            .map_err(|e| CatalogError::Universes(format!("not a universe mapping: {e}")))?;
        Ok(Self { entries })
    }

    /// Parses the converted JSON form.
    pub fn from_json(text: &str) -> Result<Self, CatalogError> {
        let entries: IndexMap<String, Universe> = serde_json::from_str(text)
            .map_err(|e| CatalogError::Universes(format!("not a universe mapping: {e}")))?;
        Ok(Self { entries })
    }

    /// Reads [`UNIVERSES`] of `root`.
    pub fn load(root: &Path) -> Result<Self, CatalogError> {
        let path = UNIVERSES.path(root);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            CatalogError::Universes(format!(
                "cannot read {}: {e} (run `vakra import` to create it)",
                path.display()
            ))
        })?;
        Self::from_json(&text)
            .map_err(|e| CatalogError::Universes(format!("{}: {e}", path.display())))
    }

    /// The JSON form written into a data root.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.entries).unwrap_or_default()
    }

    /// Writes [`UNIVERSES`] of `root` (its folder created).
    pub fn write(&self, root: &Path) -> std::io::Result<()> {
        UNIVERSES.write_text(root, &self.to_json())
    }

    /// Adds universes after the existing ones (a later id replaces an earlier one in place).
    pub fn extend(&mut self, other: Universes) {
        self.entries.extend(other.entries);
    }

    pub fn get(&self, id: &str) -> Option<&Universe> {
        self.entries.get(id)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All ids in file order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The ids of one domain, in file order (the first is the startup universe).
    pub fn ids_of_domain<'a>(&'a self, domain: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries
            .iter()
            .filter(move |(_, u)| u.domain == domain)
            .map(|(id, _)| id.as_str())
    }

    /// The domains, in order of first appearance.
    pub fn domains(&self) -> Vec<&str> {
        let mut seen = indexmap::IndexSet::new();
        for universe in self.entries.values() {
            seen.insert(universe.domain.as_str());
        }
        seen.into_iter().collect()
    }
}

/// The `init_args` of a universe in the mapping YAML (the arguments of the ground-truth
/// `initialize_active_data` call).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitArgs {
    /// Alias → table, in file order: the first alias anchors the `FROM`, the last one names the
    /// single-table result, and the order decides the column order.
    pub alias_to_table_dict: IndexMap<String, TableSpec>,
    /// Join conditions `[left "alias.column", right "alias.column", join type]`; the join type
    /// is ignored (always INNER).
    pub condition_sequence: Vec<Vec<String>>,
    /// The database file; the servers overwrite it with their own path before loading.
    pub database_path: String,
}

/// One entry of `alias_to_table_dict`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSpec {
    /// The prefix of the output column names (`<modified>_<column>`).
    pub modified_table_name: String,
    /// The SQLite table.
    pub original_table_name: String,
}

//! Where retriever data lives in a data root.
//!
//! ```text
//! <root>/documents/chroma.sqlite3        the benchmark's Chroma store (`vakra import --dataset`)
//! <root>/documents/<domain>.jsonl        plain collections: {"id", "text", "metadata"} per line
//! <root>/retrievers/domain_negatives.json, domain_description_dict.json,
//!                   default_descriptions.json
//! <root>/indexes/<domain>/               one search index per domain (`vakra index`)
//! ```

use std::path::{Path, PathBuf};

use vakra_catalog::DataRoot;
use vakra_catalog::files::{
    CHROMA, DEFAULT_DESCRIPTIONS, DOCUMENTS, DOMAIN_DESCRIPTIONS, DOMAIN_NEGATIVES,
};

use crate::manifest::Manifest;

/// The paths of one data root that this crate reads and writes.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    root: PathBuf,
    indexes: PathBuf,
}

impl Layout {
    pub(crate) fn new(root: &DataRoot) -> Self {
        Self {
            root: root.path().to_path_buf(),
            indexes: root.indexes_dir(),
        }
    }

    pub(crate) fn documents_dir(&self) -> PathBuf {
        DOCUMENTS.path(&self.root)
    }

    pub(crate) fn chroma_file(&self) -> PathBuf {
        CHROMA.path(&self.root)
    }

    pub(crate) fn negatives_file(&self) -> PathBuf {
        DOMAIN_NEGATIVES.path(&self.root)
    }

    pub(crate) fn descriptions_file(&self) -> PathBuf {
        DOMAIN_DESCRIPTIONS.path(&self.root)
    }

    pub(crate) fn default_descriptions_file(&self) -> PathBuf {
        DEFAULT_DESCRIPTIONS.path(&self.root)
    }

    pub(crate) fn indexes_dir(&self) -> &Path {
        &self.indexes
    }

    /// The manifests of the finished indexes (unreadable ones left out: opening them says why).
    pub(crate) fn manifests(&self) -> Vec<Manifest> {
        std::fs::read_dir(&self.indexes)
            .into_iter()
            .flatten()
            .filter_map(|entry| Manifest::read(&entry.ok()?.path()).ok().flatten())
            .collect()
    }

    /// The index folder of a domain whose name has been checked.
    pub(crate) fn index_dir(&self, domain: &str) -> PathBuf {
        self.indexes.join(domain)
    }
}

//! `vakra-retrieval.json`, written last into a finished index folder: what was indexed, from
//! where, and with which embedding model, so that a server can refuse an index it cannot use.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::RetrievalError;

/// The file in an index folder that says what was indexed; its presence marks a finished index.
pub(crate) const MANIFEST_FILE: &str = "vakra-retrieval.json";

/// Bumped whenever the schema, the analyzer or the vector file changes meaning.
pub(crate) const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub(crate) format: u32,
    pub(crate) domain: String,
    pub(crate) documents: u64,
    /// `chroma` or `jsonl`.
    pub(crate) source: String,
    /// Present when document embeddings were stored beside the BM25 index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dense: Option<DenseManifest>,
}

/// The document vectors beside the BM25 index; queries must be embedded by their model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct DenseManifest {
    /// The model folder's name (embedded here), or the Chroma collection's embedding function
    /// (vectors read from the store).
    pub(crate) model: String,
    /// The model files' fingerprint, when embedded here; empty for vectors read from a store.
    pub(crate) fingerprint: String,
    pub(crate) dimension: usize,
    /// Chunks whose vector was read from the Chroma store (the rest were embedded here).
    #[serde(default)]
    pub(crate) from_store: u64,
}

impl Manifest {
    pub(crate) fn write(&self, dir: &Path) -> Result<(), RetrievalError> {
        let path = dir.join(MANIFEST_FILE);
        let text = serde_json::to_string_pretty(self).map_err(|e| RetrievalError::DataFile {
            path: path.clone(),
            message: e.to_string(),
        })?;
        std::fs::write(&path, text + "\n").map_err(|e| RetrievalError::io(path, e))
    }

    /// `Ok(None)` when the folder has no manifest (no finished index).
    pub(crate) fn read(dir: &Path) -> Result<Option<Self>, String> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let manifest: Manifest =
            serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        if manifest.format != FORMAT {
            return Err(format!(
                "index format {} is not the supported format {FORMAT}; rebuild it with `vakra index`",
                manifest.format
            ));
        }
        Ok(Some(manifest))
    }
}

//! The plain collection format: `<root>/documents/<domain>.jsonl`, one
//! `{"id": str, "text": str, "metadata": {…}}` object per line (`metadata` optional).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};
use vakra_catalog::is_valid_domain_name;

use crate::{Document, RetrievalError};

/// The collection files of a documents folder.
#[derive(Debug, Default)]
pub(crate) struct CollectionFiles {
    /// `(domain, path)` of each `<domain>.jsonl`, sorted by domain.
    pub(crate) found: Vec<(String, PathBuf)>,
    /// `*.jsonl` files whose stem is not a valid domain name, for the caller to report.
    pub(crate) ignored: Vec<PathBuf>,
}

/// The `*.jsonl` files of a folder (none when it does not exist).
pub(crate) fn collection_files(dir: &Path) -> Result<CollectionFiles, RetrievalError> {
    let mut found = Vec::new();
    let mut ignored = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(CollectionFiles::default());
        }
        Err(e) => return Err(RetrievalError::io(dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| RetrievalError::io(dir, e))?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        match path.file_stem().and_then(|s| s.to_str()) {
            Some(stem) if is_valid_domain_name(stem) => found.push((stem.to_owned(), path)),
            _ => ignored.push(path),
        }
    }
    found.sort();
    ignored.sort();
    Ok(CollectionFiles { found, ignored })
}

/// Reads every document of one file; any malformed line fails the file with its line number.
pub(crate) fn read(path: &Path) -> Result<Vec<Document>, RetrievalError> {
    let file = File::open(path).map_err(|e| RetrievalError::io(path, e))?;
    let mut documents = Vec::new();
    for (index, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| RetrievalError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let fail = |message: String| RetrievalError::Jsonl {
            path: path.to_path_buf(),
            line: index + 1,
            message,
        };
        let record: Record = serde_json::from_str(&line).map_err(|e| {
            fail(if e.is_data() {
                format!("expected {{\"id\": string, \"text\": string, \"metadata\": object}}: {e}")
            } else {
                format!("invalid JSON: {e}")
            })
        })?;
        documents.push(Document {
            id: record.id,
            text: record.text,
            metadata: record.metadata.unwrap_or_default(),
        });
    }
    Ok(documents)
}

/// One line; unknown keys are ignored.
#[derive(Deserialize)]
struct Record {
    id: String,
    text: String,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

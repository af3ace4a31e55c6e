//! The reference's two retriever data files, as `vakra import` copies them into
//! `<root>/retrievers/`.
//!
//! * `domain_negatives.json`: `{"<domain>": ["<domain>", …]}`: the retriever domains a
//!   capability-4 session on `<domain>` offers (itself and confusable distractors).
//! * `domain_description_dict.json`: `{"<domain>": {"description": "…"}}`: the query tools'
//!   descriptions.
//!
//! Either file may be absent, as in the reference: no negatives means a session offers only its
//! own domain; no description means the reference's default text.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::RetrievalError;

/// Both files, parsed and checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct RetrieverFiles {
    /// `None` when the file is absent.
    pub(crate) negatives: Option<Vec<(String, Vec<String>)>>,
    /// Domain → its `description` (`None` when the entry has none).
    pub(crate) descriptions: HashMap<String, Option<String>>,
}

impl RetrieverFiles {
    pub(crate) fn load(negatives: &Path, descriptions: &Path) -> Result<Self, RetrievalError> {
        Ok(Self {
            negatives: read_json(negatives)?
                .map(|v| parse_negatives(negatives, v))
                .transpose()?,
            descriptions: read_json(descriptions)?
                .map(|v| parse_descriptions(descriptions, v))
                .transpose()?
                .unwrap_or_default(),
        })
    }

    /// The retriever domains of a session on `primary`, in the negatives file's order.
    pub(crate) fn retriever_domains(&self, primary: &str) -> Vec<String> {
        self.negatives
            .as_ref()
            .and_then(|n| n.iter().find(|(d, _)| d == primary))
            .map_or_else(|| vec![primary.to_owned()], |(_, list)| list.clone())
    }

    /// Whether the negatives file names `domain` as a key or as a distractor: such domains are
    /// the benchmark's retriever domains and are listed even before their index is built.
    pub(crate) fn names(&self, domain: &str) -> bool {
        self.negatives.as_ref().is_some_and(|n| {
            n.iter()
                .any(|(key, list)| key == domain || list.iter().any(|d| d == domain))
        })
    }
}

fn read_json(path: &Path) -> Result<Option<Value>, RetrievalError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(RetrievalError::io(path, e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| RetrievalError::DataFile {
            path: path.to_path_buf(),
            message: format!("invalid JSON: {e}"),
        })
}

fn invalid(path: &Path, message: String) -> RetrievalError {
    RetrievalError::DataFile {
        path: path.to_path_buf(),
        message,
    }
}

fn parse_negatives(
    path: &Path,
    value: Value,
) -> Result<Vec<(String, Vec<String>)>, RetrievalError> {
    let Value::Object(object) = value else {
        return Err(invalid(path, "expected an object of domain lists".into()));
    };
    object
        .into_iter()
        .map(|(domain, list)| {
            let names = match list {
                Value::Array(items) => items
                    .into_iter()
                    .map(|item| match item {
                        Value::String(name) => Ok(name),
                        _ => Err(()),
                    })
                    .collect::<Result<Vec<_>, ()>>()
                    .ok(),
                _ => None,
            };
            names
                .map(|names| (domain.clone(), names))
                .ok_or_else(|| invalid(path, format!("{domain:?}: expected a list of domains")))
        })
        .collect()
}

fn parse_descriptions(
    path: &Path,
    value: Value,
) -> Result<HashMap<String, Option<String>>, RetrievalError> {
    let Value::Object(object) = value else {
        return Err(invalid(path, "expected an object of domain entries".into()));
    };
    object
        .into_iter()
        .map(|(domain, entry)| match entry {
            Value::Object(mut fields) => match fields.remove("description") {
                None => Ok((domain, None)),
                Some(Value::String(text)) => Ok((domain, Some(text))),
                Some(_) => Err(invalid(
                    path,
                    format!("{domain:?}: description is not a string"),
                )),
            },
            _ => Err(invalid(
                path,
                format!("{domain:?}: expected {{\"description\": …}}"),
            )),
        })
        .collect()
}

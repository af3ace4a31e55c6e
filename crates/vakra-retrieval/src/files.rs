//! The reference's retriever data files, as `vakra import` copies them into
//! `<root>/retrievers/`.
//!
//! * `domain_negatives.json`: `{"<domain>": ["<domain>", …]}`: the retriever domains a
//!   capability-4 session on `<domain>` offers (itself and confusable distractors).
//! * `domain_description_dict.json`: `{"<domain>": {"description": "…"}}`: the query tools'
//!   descriptions.
//! * `default_descriptions.json`: `{"no_description": "…", "empty_description": "…"}`: the
//!   reference's two default texts, templates over `{domain}`, that `vakra import` reads from
//!   its source (they are its prose, so the crate has none): the retriever server's, for a
//!   domain without an entry or without a `description` key, and the combined MCP wrapper's,
//!   for a description that FastAPI publishes empty (`null`, blank).
//!
//! Any file may be absent, as in the reference: no negatives means a session offers only its
//! own domain; the defaults are needed only by a domain without a description.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::RetrievalError;

/// Both files, parsed and checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct RetrieverFiles {
    /// `None` when the file is absent.
    pub(crate) negatives: Option<Vec<(String, Vec<String>)>>,
    /// Domain → its `description` (`None` when the entry has none; `null` is an empty text).
    pub(crate) descriptions: HashMap<String, Option<String>>,
    /// The default texts, `None` when the file is absent.
    pub(crate) defaults: Option<DefaultDescriptions>,
    /// Where the default texts are read from, named when they are needed but absent.
    pub(crate) defaults_path: std::path::PathBuf,
}

/// The reference's default descriptions, templates over [`DOMAIN_PLACEHOLDER`].
#[derive(Debug, Clone, Default)]
pub(crate) struct DefaultDescriptions {
    /// The retriever server's, for a domain without a description entry or key.
    pub(crate) no_description: String,
    /// The combined wrapper's, for a description published empty.
    pub(crate) empty_description: String,
}

/// What stands for the domain name in a default description.
pub(crate) const DOMAIN_PLACEHOLDER: &str = "{domain}";

impl RetrieverFiles {
    pub(crate) fn load(
        negatives: &Path,
        descriptions: &Path,
        defaults: &Path,
    ) -> Result<Self, RetrievalError> {
        Ok(Self {
            negatives: read_json(negatives)?
                .map(|v| parse_negatives(negatives, v))
                .transpose()?,
            descriptions: read_json(descriptions)?
                .map(|v| parse_descriptions(descriptions, v))
                .transpose()?
                .unwrap_or_default(),
            defaults: read_json(defaults)?
                .map(|v| parse_defaults(defaults, v))
                .transpose()?,
            defaults_path: defaults.to_path_buf(),
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
                // FastAPI publishes `description=None` as no description, like an empty one.
                Some(Value::Null) => Ok((domain, Some(String::new()))),
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

fn parse_defaults(path: &Path, value: Value) -> Result<DefaultDescriptions, RetrievalError> {
    let text = |key: &str| match value.get(key) {
        Some(Value::String(text)) => Ok(text.clone()),
        _ => Err(invalid(path, format!("expected a string {key:?}"))),
    };
    Ok(DefaultDescriptions {
        no_description: text("no_description")?,
        empty_description: text("empty_description")?,
    })
}

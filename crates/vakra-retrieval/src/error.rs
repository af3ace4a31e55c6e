//! The crate's error type.

use std::path::PathBuf;

/// Why indexing, opening or searching failed. Variants name the file or domain involved, because
/// these messages reach operators (CLI, logs); agents get path-free texts built from them.
#[derive(Debug, thiserror::Error)]
pub enum RetrievalError {
    /// A file or folder of the data root could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `documents/chroma.sqlite3` is not a readable Chroma store.
    #[error("{path}: cannot read the Chroma store: {source}")]
    Chroma {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// A line of a JSONL collection is not a document.
    #[error("{path}:{line}: {message}")]
    Jsonl {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A retriever data file (negatives, descriptions) or a manifest is malformed.
    #[error("{path}: {message}")]
    DataFile { path: PathBuf, message: String },
    /// Two chunks of a domain share an id, which would make results ambiguous.
    #[error("domain {domain:?}: document id {id:?} occurs more than once")]
    DuplicateId { domain: String, id: String },
    /// Domain names become folder names, so only `[A-Za-z0-9_]+` is accepted.
    #[error("invalid domain name {0:?} (expected [A-Za-z0-9_]+)")]
    InvalidDomain(String),
    /// The domain has no finished index (never built, or the build was interrupted).
    #[error(
        "the search index of domain {domain:?} is missing ({path}); build it with `vakra index`"
    )]
    MissingIndex { domain: String, path: PathBuf },
    /// The index exists but cannot be read: damaged files, another format, wrong counts.
    #[error("the search index of domain {domain:?} cannot be used ({path}): {message}")]
    CorruptIndex {
        domain: String,
        path: PathBuf,
        message: String,
    },
    /// tantivy failed while writing or reading an index.
    #[error("search index of domain {domain:?}: {source}")]
    Tantivy {
        domain: String,
        source: tantivy::TantivyError,
    },
    /// Chroma only accepts `1..=u32::MAX` results; the reference answers others with a 500.
    #[error("n_results must be between 1 and 4294967295, got {0}")]
    InvalidNResults(i128),
    /// Dense or hybrid search is not available: no feature, no model, or an index without
    /// (matching) embeddings.
    #[error("{0}")]
    Dense(String),
    #[error(transparent)]
    Embed(#[from] vakra_embed::EmbedError),
}

impl RetrievalError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

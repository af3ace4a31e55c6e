use std::path::PathBuf;

/// Why a catalog or data root could not be read or written. Messages name the file and, where
/// it helps, the operation, so that a broken catalog is easy to find.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a valid catalog document: {source}", path.display())]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("unknown domain {0:?}")]
    UnknownDomain(String),
    #[error("capability-1 universe mapping: {0}")]
    Universes(String),
    #[error("capability-1 tool texts: {0}")]
    ToolTexts(String),
}

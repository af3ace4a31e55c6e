//! [`EmbedError`]: why a model could not be found, loaded or run.

use std::path::PathBuf;

/// Why a model could not be found, loaded or run. The texts name the folder and what fixes it.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// No folder, a folder without the files a model needs, or a model that failed to run.
    #[error("{0}")]
    Model(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

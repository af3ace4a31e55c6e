//! Why a BPO data folder could not be loaded. Tool calls never fail with these: bad calls are
//! answered with the reference's texts.

use std::path::PathBuf;

/// A problem with the data folder, found when it is loaded.
#[derive(Debug, thiserror::Error)]
pub enum BpoError {
    #[error("{dir}: no candidate data (neither candidate_data.parquet nor candidate_data.jsonl)")]
    NoCandidateData { dir: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Parquet {
        path: PathBuf,
        #[source]
        source: parquet::errors::ParquetError,
    },
    #[error("{path}: column `{column}` is missing")]
    MissingColumn { path: PathBuf, column: &'static str },
    #[error("{path}: column `{column}` should hold {expected}")]
    ColumnType {
        path: PathBuf,
        column: &'static str,
        expected: &'static str,
    },
    #[error("{path}: row {row}: `{column}` is null or invalid")]
    BadValue {
        path: PathBuf,
        row: usize,
        column: &'static str,
    },
    #[error("{path}: line {line}: {message}")]
    Jsonl {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Fixture { path: PathBuf, message: String },
    #[error(
        "{path} is missing: the BPO tool and model descriptions (`vakra import` writes it from the reference checkout)"
    )]
    NoDescriptions { path: PathBuf },
    #[error("{path}: malformed descriptions file: {message}")]
    Descriptions { path: PathBuf, message: String },
}

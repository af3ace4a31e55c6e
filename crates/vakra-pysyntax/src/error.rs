//! The single error type of the crate.

use crate::ast::Pos;

/// A syntax error, located at the token or character where parsing failed.
///
/// Every malformed input ends here rather than in a panic, so callers can
/// report which router module and which line could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line of the offending position.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// What went wrong, in the style of CPython's messages.
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(pos: Pos, message: impl Into<String>) -> Self {
        ParseError {
            line: pos.line,
            column: pos.col,
            message: message.into(),
        }
    }
}

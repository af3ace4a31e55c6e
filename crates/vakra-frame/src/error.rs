//! The failures of the engine, each carrying the exact text the reference shows.

use vakra_pytext::str_repr;

/// A tool failed the way the reference's tool function raises: the message is Python's
/// `str(exception)`, which the server prints after `Input validation error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An exception whose `str()` is `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// `KeyError(key)`, whose `str()` is the repr of the key.
    pub(crate) fn key_error(key: &str) -> Self {
        Self::new(str_repr(key))
    }

    /// `str(exception)`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Fails when the server stopped the call running on this thread (its time limit passed or
/// its client went away; see `vakra_interrupt`): loops whose length a client controls ask it
/// once per row. The server answers a stopped call with its own text, not this one.
pub(crate) fn interrupted() -> Result<(), ToolError> {
    if vakra_interrupt::stopped() {
        return Err(ToolError::new(
            "the call was stopped (time limit or cancellation)",
        ));
    }
    Ok(())
}

/// Loading a universe's table failed; the text is what the reference puts after
/// `Error switching to universe: ` (or after `Input validation error: ` when
/// `initialize_active_data` is called directly).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FrameError {
    message: String,
}

impl FrameError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// `str(exception)`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// `json.dumps` refused a value: only `bytes` (SQLite BLOBs) can cause it. The reference does
/// not catch this, so the MCP SDK reports it with `isError: true` and this text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Object of type bytes is not JSON serializable")]
pub struct RenderError;

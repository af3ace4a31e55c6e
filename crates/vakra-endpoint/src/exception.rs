//! The Python exception that evaluation raises: its class name and message.

/// A Python exception raised while evaluating.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct PyError {
    pub kind: &'static str,
    pub message: String,
}

impl PyError {
    pub(crate) fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    pub(crate) fn type_error(message: impl Into<String>) -> Self {
        Self::new("TypeError", message)
    }
    pub(crate) fn value_error(message: impl Into<String>) -> Self {
        Self::new("ValueError", message)
    }
    pub(crate) fn name_error(name: &str) -> Self {
        Self::new("NameError", format!("name '{name}' is not defined"))
    }
    pub(crate) fn programming_error(message: impl Into<String>) -> Self {
        Self::new("ProgrammingError", message)
    }
}

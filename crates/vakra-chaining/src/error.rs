//! Why a capability-1 server cannot start.

/// A capability-1 server could not be set up (tool calls never fail this way: their failures
/// are answers).
#[derive(Debug, thiserror::Error)]
pub enum ChainingError {
    #[error("{0}")]
    Startup(String),
}

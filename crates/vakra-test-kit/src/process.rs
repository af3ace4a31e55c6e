//! Commands the tests run.

use std::process::{Command, Output};

/// Runs `command`, which must succeed (its stderr is shown when it does not).
#[track_caller]
pub fn output_ok(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

//! The official MCP client (the Python `mcp` SDK) in the Python that `VAKRA_PYTHON` names
//! (`make test` sets it to `.venv-test`'s).

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

use crate::paths::repo_root;
use crate::switches::skip_or_fail;

/// The Python that `VAKRA_PYTHON` names, or `None` after [`skip_or_fail`] under
/// `VAKRA_REQUIRE_PYTHON`.
#[track_caller]
pub fn python() -> Option<PathBuf> {
    let python = std::env::var_os("VAKRA_PYTHON").map(PathBuf::from);
    if python.is_none() {
        skip_or_fail(
            "VAKRA_REQUIRE_PYTHON",
            "VAKRA_PYTHON does not name the python of .venv-test (make test sets it), \
             so the official Python client cannot run",
        );
    }
    python
}

/// Runs the check script `tests/python/<script>` with `args` in [`python`] (skipped without
/// it): it must exit with success and print `summary` (such as `" passed, 0 failed"`).
#[track_caller]
pub fn run_check<I>(script: &str, args: I, summary: &str)
where
    I: IntoIterator,
    I::Item: AsRef<OsStr>,
{
    let Some(python) = python() else {
        return;
    };
    let output = Command::new(python)
        .arg(repo_root().join("tests/python").join(script))
        .args(args)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains(summary),
        "{script}: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

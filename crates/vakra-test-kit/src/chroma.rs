//! Chroma stores written by the real `chromadb` package (`scripts/make_chroma_store.py tests`,
//! in the Python that `VAKRA_CHROMA_PYTHON` names; `make test` sets it to `.venv-chroma`'s), with
//! what chromadb answers for them. Written once per test process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::paths::repo_root;
use crate::switches::skip_or_fail;

/// The folder the script wrote (`root/`, `wrongdim/`, `partial/`, `expected.json`), or `None`
/// after [`skip_or_fail`] under `VAKRA_REQUIRE_CHROMA`. A failing script fails the test.
#[track_caller]
pub fn chroma_stores() -> Option<&'static Path> {
    static STORES: OnceLock<Result<(tempfile::TempDir, PathBuf), String>> = OnceLock::new();
    let Some(python) = std::env::var_os("VAKRA_CHROMA_PYTHON") else {
        skip_or_fail(
            "VAKRA_REQUIRE_CHROMA",
            "VAKRA_CHROMA_PYTHON does not name the python of .venv-chroma (make test sets it), \
             so no Chroma store can be written",
        );
        return None;
    };
    let made = STORES.get_or_init(|| {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = dir.path().join("stores");
        let output = Command::new(python)
            .arg(repo_root().join("scripts/make_chroma_store.py"))
            .arg("tests")
            .arg(&out)
            .output()
            .map_err(|e| format!("make_chroma_store.py: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "make_chroma_store.py failed: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Ok((dir, out))
    });
    match made {
        Ok((_, out)) => Some(out.as_path()),
        Err(e) => panic!("{e}"),
    }
}

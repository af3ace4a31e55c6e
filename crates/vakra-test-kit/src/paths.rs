//! Where the tests' data lives: the repository (the demo data root) and `shared/`.

use std::path::{Path, PathBuf};

use crate::switches;

/// The repository root, which is also the data root with the demo domains.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// The `shared/` folder: the one `VAKRA_SHARED` names, else the repository's sibling
/// `../shared` (as CI has it). Its files are read in place, never copied into the repository.
/// The reference's files in `shared/reference` are found through [`crate::reference`].
pub fn shared_dir() -> PathBuf {
    std::env::var_os("VAKRA_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared"))
}

/// A path under `shared/`, or `None` when it is missing: then the test is skipped, unless
/// `VAKRA_REQUIRE_SHARED` is on ([`switches::skip_or_fail`]).
#[track_caller]
pub fn shared_path_or_skip(relative: &str) -> Option<PathBuf> {
    let path = shared_dir().join(relative);
    if path.exists() {
        return Some(path);
    }
    switches::skip_or_fail(
        "VAKRA_REQUIRE_SHARED",
        &format!("{} is missing (set VAKRA_SHARED)", path.display()),
    );
    None
}

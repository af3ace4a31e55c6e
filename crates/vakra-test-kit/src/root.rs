//! Temporary data roots, empty or with the demo's data.

use std::path::Path;

use tempfile::TempDir;

use crate::paths::repo_root;

/// The demo's folders a test may only read, linked into a temporary root.
const LINKED: [&str; 4] = ["openapi", "databases", "capability1", "bpo"];
/// The demo's folders that commands write beside (indexes), copied into a temporary root.
const COPIED: [&str; 2] = ["documents", "retrievers"];

/// A data root in a fresh temporary folder, removed when dropped.
pub struct TempRoot {
    dir: TempDir,
}

impl Default for TempRoot {
    fn default() -> Self {
        Self::new()
    }
}

impl TempRoot {
    /// An empty data root.
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    /// A copy of the demo data root: catalogs, databases, capability-1 and BPO files linked,
    /// documents and retriever files copied.
    pub fn demo() -> Self {
        let root = Self::new().with_demo_data();
        for folder in LINKED {
            std::os::unix::fs::symlink(repo_root().join(folder), root.path().join(folder))
                .expect("link a demo folder");
        }
        root
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The temporary folder itself (removed when it is dropped).
    pub fn into_dir(self) -> TempDir {
        self.dir
    }

    /// Writes `relative` (creating its folders).
    pub fn write_file(&self, relative: &str, contents: &str) {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("a parent folder")).expect("mkdir");
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    /// Copies the demo's documents and retriever files into this root.
    pub fn with_demo_data(self) -> Self {
        for folder in COPIED {
            std::fs::create_dir_all(self.path().join(folder)).expect("mkdir");
            for entry in std::fs::read_dir(repo_root().join(folder)).expect("a demo folder") {
                let path = entry.expect("a folder entry").path();
                let name = path.file_name().expect("a file name");
                std::fs::copy(&path, self.path().join(folder).join(name))
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
        self
    }
}

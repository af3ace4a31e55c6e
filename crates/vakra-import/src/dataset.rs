//! Linking a downloaded benchmark dataset (the reference's `data/` folder) into a data root.

use std::path::Path;

use vakra_catalog::files::{DATABASES, DOCUMENTS, TASKS};
use vakra_catalog::{DataRoot, is_valid_domain_name};

use crate::{ImportError, io_error};

/// Links `DATASET/databases/<domain>/` into the root's `databases/`, and the document store
/// (`indexed_documents/`) and task files (`test/`) as `documents/` and `tasks/`. Existing links
/// are replaced; real files are never overwritten.
pub fn link_dataset(dataset: &Path, root: &DataRoot) -> Result<Vec<String>, ImportError> {
    let dataset = dataset.canonicalize().map_err(io_error(dataset))?;
    let mut linked = Vec::new();
    let databases = dataset.join("databases");
    if databases.is_dir() {
        let target_dir = root.databases_dir();
        std::fs::create_dir_all(&target_dir).map_err(io_error(&target_dir))?;
        let mut entries: Vec<_> = std::fs::read_dir(&databases)
            .map_err(io_error(&databases))?
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_valid_domain_name(&name) {
                continue;
            }
            link(&entry.path(), &target_dir.join(&name))?;
            linked.push(DATABASES.relative_file(&name));
        }
    }
    for (source, target) in [("indexed_documents", DOCUMENTS), ("test", TASKS)] {
        let from = dataset.join(source);
        if from.is_dir() {
            link(&from, &target.path(root.path()))?;
            linked.push(target.relative().to_owned());
        }
    }
    if linked.is_empty() {
        return Err(ImportError::Layout(format!(
            "{}: no databases/, indexed_documents/ or test/ folder found (expected the benchmark's data/ folder)",
            dataset.display()
        )));
    }
    Ok(linked)
}

fn link(from: &Path, to: &Path) -> Result<(), ImportError> {
    if let Ok(meta) = std::fs::symlink_metadata(to) {
        if !meta.file_type().is_symlink() {
            return Err(ImportError::Layout(format!(
                "{} exists and is not a link; not replacing it",
                to.display()
            )));
        }
        std::fs::remove_file(to).map_err(io_error(to))?;
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(from, to).map_err(io_error(to))
    }
    #[cfg(not(unix))]
    {
        let _ = from;
        Err(ImportError::Layout(
            "linking a dataset needs a Unix system".into(),
        ))
    }
}

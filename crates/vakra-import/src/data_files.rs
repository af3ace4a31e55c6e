//! The reference's data files that the other capabilities read, copied into the data root.

use std::path::Path;

use vakra_catalog::DataRoot;
use vakra_catalog::files::{
    BPO, CAPABILITY1, DOMAIN_DESCRIPTIONS, DOMAIN_NEGATIVES, MAPPINGS, RootDir, TOP,
};

use crate::{ImportError, io_error};

/// Files copied as they are: (path in the checkout, folder in the data root). A folder source
/// copies every file directly inside it.
pub const DATA_FILES: &[(&str, RootDir)] = &[
    (
        "environment/configs/mcp_tool_universe_id_mapping.yaml",
        CAPABILITY1,
    ),
    (
        "environment/retrievers/domain_negatives.json",
        DOMAIN_NEGATIVES.dir(),
    ),
    (
        "environment/retrievers/domain_description_dict.json",
        DOMAIN_DESCRIPTIONS.dir(),
    ),
    ("environment/bpo/data", BPO),
    ("environment/m3/rest/server/mapping_metadata", MAPPINGS),
    ("tool_checksums.json", TOP),
];

/// What was copied, and what the checkout did not have.
#[derive(Debug, Default)]
pub struct Copied {
    pub copied: Vec<String>,
    pub missing: Vec<String>,
}

/// Copies [`DATA_FILES`] from `repo` into `root`.
pub fn copy_data_files(repo: &Path, root: &DataRoot) -> Result<Copied, ImportError> {
    let mut result = Copied::default();
    for (source, folder) in DATA_FILES {
        let from = repo.join(source);
        let to_dir = folder.path(root.path());
        let files: Vec<_> = if from.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(&from)
                .map_err(io_error(&from))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "__init__.py"))
                .collect();
            entries.sort();
            entries
        } else if from.is_file() {
            vec![from.clone()]
        } else {
            result.missing.push((*source).to_owned());
            continue;
        };
        std::fs::create_dir_all(&to_dir).map_err(io_error(&to_dir))?;
        for file in files {
            let Some(name) = file.file_name() else {
                continue;
            };
            let target = to_dir.join(name);
            std::fs::copy(&file, &target).map_err(io_error(&file))?;
            result
                .copied
                .push(folder.relative_file(&name.to_string_lossy()));
        }
    }
    Ok(result)
}

//! The pandas version a data root was imported for (`vakra import --pandas`), which servers
//! started on the root use unless told otherwise. MCP clients start stdio servers with a bare
//! environment, so a switch set where the root was made must travel with the root.

use std::path::Path;

use vakra_frame::Pandas;

use vakra_catalog::files::PANDAS;

use crate::ChainingError;

/// The version recorded in `root`, if any.
pub fn root_pandas(root: &Path) -> Result<Option<Pandas>, ChainingError> {
    let path = PANDAS.path(root);
    match std::fs::read_to_string(&path) {
        Ok(text) => text
            .parse()
            .map(Some)
            .map_err(|e| ChainingError::Startup(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ChainingError::Startup(format!("{}: {e}", path.display()))),
    }
}

/// Records `pandas` in `root`.
pub fn write_root_pandas(root: &Path, pandas: Pandas) -> std::io::Result<()> {
    PANDAS.write_text(root, &format!("{}\n", pandas.major()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_records_its_pandas() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(root_pandas(dir.path()).unwrap(), None);
        write_root_pandas(dir.path(), Pandas::V2).unwrap();
        assert_eq!(root_pandas(dir.path()).unwrap(), Some(Pandas::V2));
        std::fs::write(PANDAS.path(dir.path()), "4").unwrap();
        let err = root_pandas(dir.path()).unwrap_err().to_string();
        assert!(err.contains("unknown pandas version \"4\""), "{err}");
    }
}

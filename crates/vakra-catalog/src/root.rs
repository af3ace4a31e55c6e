//! The layout of a data root.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files::{BPO, CAPABILITY1, DATABASES, DOMAIN_INDEX, INDEXES, OPENAPI};
use crate::{CatalogError, DomainCatalog, read_domain};

/// A folder holding everything the servers read: `openapi/` (catalogs and `domains.json`),
/// `databases/<domain>/<domain>.sqlite`, `indexes/`, and the data files `vakra import` copies
/// for the other capabilities ([`crate::files`] names each). The repository root is itself a
/// data root with the demo domains.
#[derive(Debug, Clone)]
pub struct DataRoot {
    root: PathBuf,
}

/// `openapi/domains.json`: the mounted domains in mount order. The order is observable (it is
/// the order of tools and decides which duplicate name wins), and the index lets a server load
/// only the catalogs it needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainIndex {
    pub domains: Vec<String>,
}

/// Domain names become file names, so only `[A-Za-z0-9_]` is accepted: no separators, no dots,
/// nothing that could leave the data root.
pub fn is_valid_domain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl DataRoot {
    /// A data root at `root`; nothing is read yet.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The folder itself.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Where catalogs live.
    pub fn openapi_dir(&self) -> PathBuf {
        OPENAPI.path(&self.root)
    }

    /// The default database root (`--db-root` overrides it).
    pub fn databases_dir(&self) -> PathBuf {
        DATABASES.path(&self.root)
    }

    /// Where search indexes live.
    pub fn indexes_dir(&self) -> PathBuf {
        INDEXES.path(&self.root)
    }

    /// The catalog file of `domain`, after checking the name.
    pub fn domain_file(&self, domain: &str) -> Result<PathBuf, CatalogError> {
        if !is_valid_domain_name(domain) {
            return Err(CatalogError::UnknownDomain(domain.to_owned()));
        }
        Ok(self.openapi_dir().join(format!("{domain}.json")))
    }

    fn index_file(&self) -> PathBuf {
        DOMAIN_INDEX.path(&self.root)
    }

    /// Where capability 3's BPO data set lives.
    pub fn bpo_dir(&self) -> PathBuf {
        BPO.path(&self.root)
    }

    /// Whether the folder holds any servers' data at all: the REST index, capability 1's or
    /// BPO's folder.
    pub fn holds_data(&self) -> bool {
        self.index_file().exists()
            || CAPABILITY1.path(&self.root).exists()
            || self.bpo_dir().exists()
    }

    /// What [`Self::holds_data`] looks for, for an error saying it found none.
    pub fn data_markers() -> String {
        format!(
            "{}, {}/ or {}/",
            DOMAIN_INDEX.relative(),
            CAPABILITY1.relative(),
            BPO.relative()
        )
    }

    /// Reads `openapi/domains.json`.
    pub fn read_index(&self) -> Result<DomainIndex, CatalogError> {
        let path = self.index_file();
        let bytes = std::fs::read(&path).map_err(|source| CatalogError::Io {
            path: path.clone(),
            source,
        })?;
        let index: DomainIndex =
            serde_json::from_slice(&bytes).map_err(|source| CatalogError::Json {
                path: path.clone(),
                source,
            })?;
        if let Some(bad) = index.domains.iter().find(|d| !is_valid_domain_name(d)) {
            return Err(CatalogError::Invalid {
                path,
                message: format!("invalid domain name {bad:?}"),
            });
        }
        Ok(index)
    }

    /// Writes `openapi/domains.json`.
    pub fn write_index(&self, index: &DomainIndex) -> Result<(), CatalogError> {
        let path = self.index_file();
        let text = serde_json::to_string_pretty(index).map_err(|source| CatalogError::Json {
            path: path.clone(),
            source,
        })?;
        std::fs::write(&path, text + "\n").map_err(|source| CatalogError::Io { path, source })
    }

    /// Loads the catalog of one indexed domain, checking that the file names the same domain.
    pub fn load_domain(&self, name: &str) -> Result<DomainCatalog, CatalogError> {
        let path = self.domain_file(name)?;
        let catalog = read_domain(&path)?;
        if catalog.name != name {
            return Err(CatalogError::Invalid {
                path,
                message: format!(
                    "names domain {:?}, but the index calls it {name:?}",
                    catalog.name
                ),
            });
        }
        Ok(catalog)
    }
}

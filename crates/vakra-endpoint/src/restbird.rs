use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use vakra_catalog::{CatalogError, DataRoot, DomainCatalog};
use vakra_sql::DatabaseSet;

use crate::{CompileError, Endpoint, ParamError, ParamsError, parse_params};

/// Every REST-BIRD endpoint of a data root (or of the domains a server was asked for), in mount
/// order, indexed by path so that lookup costs the same for the first and the last domain.
pub struct RestBird {
    catalogs: Vec<DomainCatalog>,
    endpoints: Vec<Arc<Endpoint>>,
    by_path: HashMap<String, usize>,
    databases: DatabaseSet,
}

/// Why a data root could not be served.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("{domain}: {source}")]
    Compile {
        domain: String,
        source: CompileError,
    },
    #[error("path {path} is defined twice (domains {first} and {second})")]
    DuplicatePath {
        path: String,
        first: String,
        second: String,
    },
}

/// What a request came to, in HTTP terms: the reference's status codes are observable through
/// both the REST API and the MCP error texts.
#[derive(Debug)]
pub enum Outcome {
    /// 200 with this JSON body.
    Ok(Value),
    /// 422: FastAPI rejected the parameters.
    Invalid(Vec<ParamError>),
    /// 500 `Internal Server Error`; the message says why, for logs.
    Failed(String),
}

impl RestBird {
    /// Loads and compiles the catalogs of the indexed domains that `wanted` accepts. Databases
    /// are looked up under `db_root` (`<domain>/<domain>.sqlite`) on first use.
    pub fn load(
        root: &DataRoot,
        db_root: PathBuf,
        wanted: impl Fn(&str) -> bool,
        time_limit: Duration,
    ) -> Result<Self, LoadError> {
        let catalogs = root.load_domains(wanted)?;
        let mut endpoints = Vec::new();
        let mut by_path = HashMap::new();
        for catalog in &catalogs {
            for op in &catalog.operations {
                let endpoint = Endpoint::compile(&catalog.name, op.clone()).map_err(|source| {
                    LoadError::Compile {
                        domain: catalog.name.clone(),
                        source,
                    }
                })?;
                if let Some(&first) = by_path.get(&op.path) {
                    let first: &Arc<Endpoint> = &endpoints[first];
                    return Err(LoadError::DuplicatePath {
                        path: op.path.clone(),
                        first: first.domain().to_owned(),
                        second: catalog.name.clone(),
                    });
                }
                by_path.insert(op.path.clone(), endpoints.len());
                endpoints.push(Arc::new(endpoint));
            }
        }
        Ok(Self {
            catalogs,
            endpoints,
            by_path,
            databases: DatabaseSet::new(db_root, time_limit),
        })
    }

    /// The loaded catalogs, in mount order.
    pub fn catalogs(&self) -> &[DomainCatalog] {
        &self.catalogs
    }

    /// Every endpoint, in mount order.
    pub fn endpoints(&self) -> &[Arc<Endpoint>] {
        &self.endpoints
    }

    /// The endpoint serving `path`, if any.
    pub fn find(&self, path: &str) -> Option<&Arc<Endpoint>> {
        self.by_path.get(path).map(|&i| &self.endpoints[i])
    }

    /// Where databases are looked up.
    pub fn databases(&self) -> &DatabaseSet {
        &self.databases
    }

    /// Runs `endpoint` for raw query pairs, as FastAPI would: 422 for bad parameters, 500 for
    /// any failure while running.
    pub fn execute(&self, endpoint: &Endpoint, query: &[(String, String)]) -> Outcome {
        let args = match parse_params(&endpoint.operation().params, query) {
            Ok(args) => args,
            Err(ParamsError::Invalid(errors)) => return Outcome::Invalid(errors),
            Err(ParamsError::Overflow(message)) => return Outcome::Failed(message),
        };
        let result = self
            .databases
            .get(endpoint.domain())
            .map_err(Into::into)
            .and_then(|db| endpoint.call(&db, args));
        match result {
            Ok(body) => Outcome::Ok(body),
            Err(e) => Outcome::Failed(e.to_string()),
        }
    }
}

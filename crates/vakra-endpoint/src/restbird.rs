use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use std::ops::Range;

use vakra_catalog::{CatalogError, DataRoot};
use vakra_sql::{Database, DatabaseSet};

use crate::{CallError, CompileError, Endpoint, ParamError, ParamsError, PyValue, parse_params};

/// Every REST-BIRD endpoint of a data root (or of the domains a server was asked for), in mount
/// order, indexed by path so that lookup costs the same for the first and the last domain.
pub struct RestBird {
    domains: Vec<LoadedDomain>,
    endpoints: Vec<Arc<Endpoint>>,
    by_path: HashMap<String, usize>,
    databases: DatabaseSet,
}

/// A loaded domain: its name, where its catalog came from, and its endpoints' positions.
#[derive(Debug, Clone)]
pub struct LoadedDomain {
    pub name: String,
    pub source: Option<String>,
    pub endpoints: Range<usize>,
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
    #[error("a catalog loader thread panicked")]
    Panicked,
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
pub enum Outcome<B = Value> {
    /// 200 with this JSON body (a value, or its text).
    Ok(B),
    /// 422: FastAPI rejected the parameters.
    Invalid(Vec<ParamError>),
    /// 500 `Internal Server Error`; the message says why, for logs.
    Failed(String),
}

type CompiledDomain = (String, Option<String>, Vec<Endpoint>);

fn compile_domain(root: &DataRoot, name: &str) -> Result<CompiledDomain, LoadError> {
    let catalog = root.load_domain(name)?;
    let endpoints = catalog
        .operations
        .into_iter()
        .map(|op| {
            Endpoint::compile(&catalog.name, op).map_err(|source| LoadError::Compile {
                domain: catalog.name.clone(),
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((catalog.name, catalog.source, endpoints))
}

impl RestBird {
    /// Loads and compiles the catalogs of the indexed domains that `wanted` accepts, reading
    /// domains in parallel. Databases are looked up under `db_root` (`<domain>/<domain>.sqlite`)
    /// on first use.
    pub fn load(
        root: &DataRoot,
        db_root: PathBuf,
        wanted: impl Fn(&str) -> bool,
        time_limit: Duration,
    ) -> Result<Self, LoadError> {
        let names: Vec<String> = root
            .read_index()?
            .domains
            .into_iter()
            .filter(|d| wanted(d))
            .collect();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(names.len().max(1));
        let chunk = names.len().div_ceil(threads).max(1);
        let compiled: Vec<Result<Vec<_>, LoadError>> = std::thread::scope(|scope| {
            let workers: Vec<_> = names
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|name| compile_domain(root, name))
                            .collect::<Result<Vec<_>, _>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|_| Err(LoadError::Panicked)))
                .collect()
        });
        let mut domains = Vec::with_capacity(names.len());
        let mut endpoints = Vec::new();
        let mut by_path = HashMap::new();
        for (name, source, domain_endpoints) in compiled
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
        {
            let start = endpoints.len();
            for endpoint in domain_endpoints {
                let path = endpoint.operation().path.clone();
                if let Some(&first) = by_path.get(&path) {
                    let first: &Arc<Endpoint> = &endpoints[first];
                    return Err(LoadError::DuplicatePath {
                        path,
                        first: first.domain().to_owned(),
                        second: name,
                    });
                }
                by_path.insert(path, endpoints.len());
                endpoints.push(Arc::new(endpoint));
            }
            domains.push(LoadedDomain {
                name,
                source,
                endpoints: start..endpoints.len(),
            });
        }
        Ok(Self {
            domains,
            endpoints,
            by_path,
            databases: DatabaseSet::new(db_root, time_limit),
        })
    }

    /// The loaded domains, in mount order.
    pub fn domains(&self) -> &[LoadedDomain] {
        &self.domains
    }

    /// The endpoints of one loaded domain, in source order.
    pub fn domain_endpoints(&self, domain: &LoadedDomain) -> &[Arc<Endpoint>] {
        &self.endpoints[domain.endpoints.clone()]
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
        self.execute_with(endpoint, query, |db, args| endpoint.call(db, args))
    }

    /// [`RestBird::execute`] with the 200 body as the REST API's text (Starlette's
    /// `JSONResponse`), written without building a JSON value.
    pub fn execute_json(&self, endpoint: &Endpoint, query: &[(String, String)]) -> Outcome<String> {
        self.execute_with(endpoint, query, |db, args| {
            let mut body = String::new();
            endpoint.call_json(db, args, &mut body).map(|()| body)
        })
    }

    fn execute_with<B>(
        &self,
        endpoint: &Endpoint,
        query: &[(String, String)],
        call: impl FnOnce(&Database, Vec<PyValue>) -> Result<B, CallError>,
    ) -> Outcome<B> {
        let args = match parse_params(&endpoint.operation().params, query) {
            Ok(args) => args,
            Err(ParamsError::Invalid(errors)) => return Outcome::Invalid(errors),
            Err(ParamsError::Overflow(message)) => return Outcome::Failed(message),
        };
        let result = self
            .databases
            .get(endpoint.domain())
            .map_err(Into::into)
            .and_then(|db| call(&db, args));
        match result {
            Ok(body) => Outcome::Ok(body),
            Err(e) => Outcome::Failed(e.to_string()),
        }
    }
}

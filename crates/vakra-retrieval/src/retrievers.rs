//! [`Retrievers`]: the retriever side of a data root as the servers use it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};
use vakra_catalog::tools::ToolSpec;
use vakra_catalog::{DataRoot, is_valid_domain_name};

use crate::RetrievalError;
use crate::chroma::ChromaStore;
use crate::files::RetrieverFiles;
use crate::layout::{Layout, MANIFEST_FILE};
use crate::request::{self, QueryBody};
use crate::search::{DomainIndex, QueryResult, results_json};
use crate::tools::{self, DEFAULT_BASE_URL};

/// How queries are ranked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SearchMode {
    /// BM25 over the chunk texts (the default; needs no model).
    #[default]
    Bm25,
    /// Cosine similarity of sentence embeddings (feature `dense`, an index built with a model).
    Dense,
    /// Reciprocal rank fusion of BM25 and dense rankings (feature `dense`).
    Hybrid,
}

impl SearchMode {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Bm25 => "bm25",
            SearchMode::Dense => "dense",
            SearchMode::Hybrid => "hybrid",
        }
    }
}

impl std::fmt::Display for SearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SearchMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [SearchMode::Bm25, SearchMode::Dense, SearchMode::Hybrid]
            .into_iter()
            .find(|mode| mode.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown search mode {s:?} (expected bm25, dense or hybrid)"))
    }
}

/// How [`Retrievers::open_with`] serves queries.
#[derive(Debug, Clone)]
pub struct RetrieverOptions {
    pub mode: SearchMode,
    /// The embedding model folder for [`SearchMode::Dense`] and [`SearchMode::Hybrid`]; it must
    /// be the model the indexes were built with.
    pub dense_model: Option<PathBuf>,
    /// The reference's `RETRIEVER_BASE_URL`, quoted in `Error calling API` texts.
    pub base_url: String,
}

impl Default for RetrieverOptions {
    fn default() -> Self {
        Self {
            mode: SearchMode::Bm25,
            dense_model: None,
            base_url: DEFAULT_BASE_URL.to_owned(),
        }
    }
}

/// The document retrievers of a data root: the query tools a capability-4 session lists, their
/// calls, and the searches behind the HTTP API. Indexes are opened on first use and kept open;
/// a missing or damaged index is reported on each use, so that building it later needs no
/// restart.
pub struct Retrievers {
    layout: Layout,
    files: RetrieverFiles,
    /// Chroma's collection order, when the data root has a Chroma store.
    collection_order: Vec<String>,
    options: RetrieverOptions,
    opened: RwLock<HashMap<String, Arc<DomainIndex>>>,
    /// The embedding model of the dense and hybrid modes, loaded at open.
    #[cfg(feature = "dense")]
    embedder: Option<Arc<crate::dense::Embedder>>,
}

impl std::fmt::Debug for Retrievers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retrievers")
            .field("layout", &self.layout)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Retrievers {
    /// BM25 retrievers with the reference's default base URL.
    pub fn open(root: &DataRoot) -> Result<Self, RetrievalError> {
        Self::open_with(root, RetrieverOptions::default())
    }

    /// Reads the data root's retriever files and, when it has a Chroma store, its collection
    /// order, and loads the embedding model of the dense and hybrid modes (so that a missing
    /// or broken model stops a server at start, not at every query). Indexes are not opened yet.
    pub fn open_with(root: &DataRoot, options: RetrieverOptions) -> Result<Self, RetrievalError> {
        let layout = Layout::new(root);
        check_mode(&options)?;
        #[cfg(feature = "dense")]
        let embedder = match (&options.dense_model, options.mode) {
            (Some(dir), SearchMode::Dense | SearchMode::Hybrid) => {
                Some(Arc::new(crate::dense::Embedder::load(dir)?))
            }
            _ => None,
        };
        let files = RetrieverFiles::load(
            &layout.negatives_file(),
            &layout.descriptions_file(),
            &layout.default_descriptions_file(),
        )?;
        let chroma_file = layout.chroma_file();
        let collection_order = if chroma_file.is_file() {
            match ChromaStore::open(&chroma_file).and_then(|s| s.collections()) {
                Ok(collections) => collections.into_iter().map(|c| c.name).collect(),
                Err(e) => {
                    tracing::warn!("retriever tools keep the negatives order: {e}");
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        Ok(Self {
            layout,
            files,
            collection_order,
            options,
            opened: RwLock::new(HashMap::new()),
            #[cfg(feature = "dense")]
            embedder,
        })
    }

    /// The base URL quoted in error texts.
    pub fn base_url(&self) -> &str {
        &self.options.base_url
    }

    /// The search mode queries use.
    pub fn mode(&self) -> SearchMode {
        self.options.mode
    }

    /// The retriever domains a session on `domain` offers, in listing order: the domain and
    /// its distractors from `domain_negatives.json` (or the domain alone), keeping those that
    /// the negatives file names or that have an index, ordered as the Chroma store lists its
    /// collections (the reference lists routes in that order; without a store the negatives
    /// order is kept).
    pub fn retriever_domains(&self, domain: &str) -> Result<Vec<String>, RetrievalError> {
        self.retriever_domains_of(&[domain])
    }

    /// [`Self::retriever_domains`] for a comma-separated `MCP_DOMAIN` list, merged without
    /// duplicates as the reference merges it.
    pub fn retriever_domains_of(&self, primaries: &[&str]) -> Result<Vec<String>, RetrievalError> {
        let mut candidates: Vec<String> = Vec::new();
        for primary in primaries {
            if !is_valid_domain_name(primary) {
                return Err(RetrievalError::InvalidDomain((*primary).to_owned()));
            }
            for domain in self.files.retriever_domains(primary) {
                if !candidates.contains(&domain) {
                    candidates.push(domain);
                }
            }
        }
        candidates
            .retain(|d| is_valid_domain_name(d) && (self.files.names(d) || self.index_exists(d)));
        let rank = |d: &String| {
            self.collection_order
                .iter()
                .position(|c| c == d)
                .unwrap_or(usize::MAX)
        };
        candidates.sort_by_key(rank);
        Ok(candidates)
    }

    /// The `query_<d>` tools the reference's combined server appends to the REST tools of
    /// `domain`. Listed even when an index is missing (calls then say so).
    pub fn tools_for(&self, domain: &str) -> Result<Vec<ToolSpec>, RetrievalError> {
        self.tools_for_domains(&[domain])
    }

    /// [`Self::tools_for`] for a list of primary domains.
    /// A domain without a description whose default text is missing (no
    /// `retrievers/default_descriptions.json`) is an error naming that file.
    pub fn tools_for_domains(&self, primaries: &[&str]) -> Result<Vec<ToolSpec>, RetrievalError> {
        self.retriever_domains_of(primaries)?
            .iter()
            .map(|d| tools::tool_spec(&self.files, d))
            .collect()
    }

    /// The tools of a session without a domain filter: one per indexed domain. Fails as
    /// [`Self::tools_for_domains`] does.
    pub fn all_tools(&self) -> Result<Vec<ToolSpec>, RetrievalError> {
        self.indexed_domains()
            .iter()
            .map(|d| tools::tool_spec(&self.files, d))
            .collect()
    }

    /// The domains with a finished index, in Chroma's collection order then by name: the
    /// collections the reference's retriever would serve.
    pub fn indexed_domains(&self) -> Vec<String> {
        let mut domains: Vec<String> = std::fs::read_dir(self.layout.indexes_dir())
            .into_iter()
            .flatten()
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| is_valid_domain_name(name) && self.index_exists(name))
            .collect();
        domains.sort_by(|a, b| {
            let rank = |d: &String| self.collection_order.iter().position(|c| c == d);
            let (ra, rb) = (rank(a), rank(b));
            match (ra, rb) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => a.cmp(b),
            }
        });
        domains
    }

    /// Whether `domain` has a finished index (its manifest exists; not opened or checked).
    pub fn index_exists(&self, domain: &str) -> bool {
        is_valid_domain_name(domain) && self.layout.index_dir(domain).join(MANIFEST_FILE).is_file()
    }

    /// Runs a query tool and returns the text an agent sees and whether the result is an MCP
    /// error, as the reference's combined server would answer; `None` when `tool` is not one of
    /// `domain`'s retriever tools (the caller reports the unknown tool).
    pub fn call(
        &self,
        domain: &str,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> Option<(String, bool)> {
        let target = self
            .retriever_domains(domain)
            .ok()?
            .into_iter()
            .find(|d| tools::tool_name(d) == tool)?;
        if let Some(message) = tools::validation_error(arguments) {
            return Some((format!("Input validation error: {message}"), true));
        }
        let url = tools::query_url(&self.options.base_url, &target);
        let body = request::body_from_arguments(arguments);
        let text = match request::parse_body(body.as_ref()) {
            Err(_) => tools::http_error_text(422, &url),
            Ok(QueryBody {
                question,
                n_results,
            }) => match self.query(&target, &question, n_results) {
                Ok(results) => tools::success_text(&results_json(&results)),
                Err(RetrievalError::InvalidNResults(_)) => tools::http_error_text(500, &url),
                Err(e) => {
                    tracing::error!("query_{target}: {e}");
                    format!("Error: {}", agent_message(&target, &e))
                }
            },
        };
        Some((text, false))
    }

    /// Searches `domain`'s index. `n_results` must be in `1..=u32::MAX` (Chroma refuses other
    /// values); more results than documents is not an error, all documents are returned.
    pub fn query(
        &self,
        domain: &str,
        question: &str,
        n_results: i128,
    ) -> Result<Vec<QueryResult>, RetrievalError> {
        let index = self.index(domain)?;
        if !(1..=i128::from(u32::MAX)).contains(&n_results) {
            return Err(RetrievalError::InvalidNResults(n_results));
        }
        let k = usize::try_from(n_results)
            .unwrap_or(usize::MAX)
            .min(usize::try_from(index.num_docs()).unwrap_or(usize::MAX));
        if k == 0 {
            return Ok(Vec::new());
        }
        let ranked = match self.options.mode {
            SearchMode::Bm25 => index.bm25(question, k)?,
            #[cfg(feature = "dense")]
            SearchMode::Dense => crate::dense::search(&index, self.embedder()?, question, k)?,
            #[cfg(feature = "dense")]
            SearchMode::Hybrid => crate::dense::hybrid(&index, self.embedder()?, question, k)?,
            #[cfg(not(feature = "dense"))]
            SearchMode::Dense | SearchMode::Hybrid => return Err(no_dense_feature()),
        };
        index.fetch(&ranked)
    }

    /// The opened index of a domain, opening it on first use.
    fn index(&self, domain: &str) -> Result<Arc<DomainIndex>, RetrievalError> {
        if !is_valid_domain_name(domain) {
            return Err(RetrievalError::InvalidDomain(domain.to_owned()));
        }
        if let Some(index) = self
            .opened
            .read()
            .ok()
            .and_then(|map| map.get(domain).cloned())
        {
            return Ok(index);
        }
        let index = Arc::new(DomainIndex::open(domain, &self.layout.index_dir(domain))?);
        #[cfg(feature = "dense")]
        if self.options.mode != SearchMode::Bm25 {
            crate::dense::check_compatible(&index, self.embedder()?)?;
        }
        if let Ok(mut map) = self.opened.write() {
            map.entry(domain.to_owned())
                .or_insert_with(|| index.clone());
        }
        Ok(index)
    }

    #[cfg(feature = "dense")]
    fn embedder(&self) -> Result<&crate::dense::Embedder, RetrievalError> {
        self.embedder.as_deref().ok_or_else(no_model)
    }
}

/// Refuses at start-up a mode this build or configuration cannot serve.
fn check_mode(options: &RetrieverOptions) -> Result<(), RetrievalError> {
    if options.mode == SearchMode::Bm25 {
        return Ok(());
    }
    if cfg!(not(feature = "dense")) {
        return Err(no_dense_feature());
    }
    if options.dense_model.is_none() {
        return Err(no_model());
    }
    Ok(())
}

fn no_model() -> RetrievalError {
    RetrievalError::Dense("dense and hybrid search need an embedding model folder".into())
}

fn no_dense_feature() -> RetrievalError {
    RetrievalError::Dense(NO_DENSE_FEATURE.into())
}

/// Why dense and hybrid search or embedding are refused by a build without the `dense` feature.
pub const NO_DENSE_FEATURE: &str = "this vakra was built without the `dense` feature, which dense and hybrid search and document embeddings need (build with `--features dense`)";

/// The error text an agent sees: what is wrong and what fixes it, without server paths.
fn agent_message(domain: &str, error: &RetrievalError) -> String {
    match error {
        RetrievalError::MissingIndex { .. } => format!(
            "the document index of domain '{domain}' has not been built (run `vakra index`)"
        ),
        RetrievalError::CorruptIndex { .. } | RetrievalError::Tantivy { .. } => format!(
            "the document index of domain '{domain}' is damaged or incompatible (rebuild it with `vakra index`)"
        ),
        other => other.to_string(),
    }
}

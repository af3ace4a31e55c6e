//! [`Retrievers`]: the retriever side of a data root as the servers use it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};
use vakra_catalog::tools::ToolSpec;
use vakra_catalog::{DataRoot, is_valid_domain_name};
use vakra_embed::{EMBEDDING_MODEL, Embedder, ModelInfo};

use crate::RetrievalError;
use crate::chroma::ChromaStore;

use crate::files::RetrieverFiles;
use crate::layout::Layout;
use crate::manifest::MANIFEST_FILE;
use crate::request::{self, LargeNumbers, QueryBody};
use crate::search::{DomainIndex, QueryResult, results_json};
use crate::tools::{self, DEFAULT_BASE_URL};

/// How queries are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    /// BM25 over the chunk texts (needs no model; not the reference's ranking).
    Bm25,
    /// The reference's: the nearest document vectors by squared L2 distance to the question's
    /// embedding (indexes with vectors, the embedding model).
    Dense,
    /// Reciprocal rank fusion of BM25 and dense rankings.
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
    /// The ranking asked for. `None`, the default, is the reference's wherever it can be: dense
    /// when the indexes hold document vectors and the embedding model can be had (see
    /// [`vakra_embed::locate`]), else BM25 with a warning.
    pub mode: Option<SearchMode>,
    /// The embedding-model folder a flag names, the lookup's first place; it must be the model
    /// of the indexes' vectors.
    pub embedding_model: Option<PathBuf>,
    /// The reference's `RETRIEVER_BASE_URL`, quoted in `Error calling API` texts.
    pub base_url: String,
}

impl Default for RetrieverOptions {
    fn default() -> Self {
        Self {
            mode: None,
            embedding_model: None,
            base_url: DEFAULT_BASE_URL.to_owned(),
        }
    }
}

/// The ranking a data root's retrievers use, and why: for logs and comparability records.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchSetup {
    #[serde(serialize_with = "mode_name")]
    pub mode: SearchMode,
    /// The embedding model of the dense and hybrid modes.
    pub model: Option<ModelInfo>,
    /// Why the ranking is not the reference's, when it is not.
    pub not_reference: Option<String>,
}

fn mode_name<S: serde::Serializer>(mode: &SearchMode, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(mode.name())
}

impl SearchSetup {
    /// `dense` when the ranking is the reference's, else what it is: the comparability
    /// record's `capability_4_search`.
    pub fn label(&self) -> String {
        match (&self.not_reference, self.mode) {
            (Some(_), SearchMode::Dense) => "dense over vectors embedded by `vakra index`".into(),
            (_, mode) => mode.name().to_owned(),
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
    /// The Chroma store's collections in its order, when the data root has a readable store.
    collections: Option<Vec<String>>,
    options: RetrieverOptions,
    setup: SearchSetup,
    opened: RwLock<HashMap<String, Arc<DomainIndex>>>,
    /// The embedding model of the dense and hybrid modes, loaded at open.
    embedder: Option<Arc<crate::dense::QueryEmbedder>>,
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
    /// order, and settles the ranking ([`RetrieverOptions::mode`]), loading the embedding model
    /// of the dense and hybrid modes (so that a missing or broken model shows at start, not at
    /// every query). Indexes are not opened yet.
    pub fn open_with(root: &DataRoot, options: RetrieverOptions) -> Result<Self, RetrievalError> {
        let layout = Layout::new(root);
        let (setup, embedder) = settle(&layout, &options)?;
        let files = RetrieverFiles::load(
            &layout.negatives_file(),
            &layout.descriptions_file(),
            &layout.default_descriptions_file(),
        )?;
        let chroma_file = layout.chroma_file();
        let collections = if chroma_file.is_file() {
            match ChromaStore::open(&chroma_file).and_then(|s| s.collections()) {
                Ok(collections) => Some(collections.into_iter().map(|c| c.name).collect()),
                Err(e) => {
                    tracing::warn!("retriever tools keep the negatives order: {e}");
                    None
                }
            }
        } else {
            None
        };
        Ok(Self {
            layout,
            files,
            collections,
            options,
            setup,
            opened: RwLock::new(HashMap::new()),
            embedder: embedder.map(|e| Arc::new(crate::dense::QueryEmbedder::new(e))),
        })
    }

    /// The base URL quoted in error texts.
    pub fn base_url(&self) -> &str {
        &self.options.base_url
    }

    /// The search mode queries use.
    pub fn mode(&self) -> SearchMode {
        self.setup.mode
    }

    /// The ranking queries use, its model, and whether it is the reference's.
    pub fn search_setup(&self) -> &SearchSetup {
        &self.setup
    }

    /// The retriever domains a session on `domain` offers, in listing order: the domain and
    /// its distractors from `domain_negatives.json` (or the domain alone). With a Chroma store,
    /// those with a collection, in the store's order (the reference's retriever has a route for
    /// each collection, listed in that order); without one, those that the negatives file
    /// names or that have an index, in the negatives order.
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
        let Some(collections) = &self.collections else {
            candidates.retain(|d| {
                is_valid_domain_name(d) && (self.files.names(d) || self.index_exists(d))
            });
            return Ok(candidates);
        };
        Ok(collections
            .iter()
            .filter(|c| candidates.contains(c) && is_valid_domain_name(c))
            .cloned()
            .collect())
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
        let order = self.collections.as_deref().unwrap_or_default();
        domains.sort_by(|a, b| {
            let rank = |d: &String| order.iter().position(|c| c == d);
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
        // MCP arguments arrive parsed: a number beyond 64 bits is taken as the integer an
        // agent writes (docs/compatibility.md).
        let text = match request::parse_body(body.as_ref(), LargeNumbers::Integers) {
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
        let k = result_count(&index, n_results)?;
        if k == 0 {
            return Ok(Vec::new());
        }
        let ranked = match self.setup.mode {
            SearchMode::Bm25 => index.bm25(question, k)?,
            SearchMode::Dense => crate::dense::search(&index, self.embedder()?, question, k)?,
            SearchMode::Hybrid => crate::dense::hybrid(&index, self.embedder()?, question, k)?,
        };
        index.fetch(&ranked)
    }

    /// The `n_results` chunks nearest to `vector` (a question's embedding, made by the caller)
    /// in `domain`'s stored vectors, ranked as dense search ranks them. Needs an index with
    /// vectors of the same dimension; `n_results` as for [`Self::query`].
    pub fn query_vector(
        &self,
        domain: &str,
        vector: &[f32],
        n_results: i128,
    ) -> Result<Vec<QueryResult>, RetrievalError> {
        let index = self.index(domain)?;
        let k = result_count(&index, n_results)?;
        index.fetch(&crate::dense::search_vector(&index, vector, k)?)
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
        if self.setup.mode != SearchMode::Bm25 {
            crate::dense::check_compatible(&index, self.embedder()?.model())?;
        }
        if let Ok(mut map) = self.opened.write() {
            map.entry(domain.to_owned())
                .or_insert_with(|| index.clone());
        }
        Ok(index)
    }

    fn embedder(&self) -> Result<&crate::dense::QueryEmbedder, RetrievalError> {
        self.embedder
            .as_deref()
            .ok_or_else(|| RetrievalError::Dense("no embedding model was loaded".into()))
    }
}

/// How many results a query of `index` returns: `n_results` must be in `1..=u32::MAX` (Chroma
/// refuses other values), and more than the documents returns them all.
fn result_count(index: &DomainIndex, n_results: i128) -> Result<usize, RetrievalError> {
    if !(1..=i128::from(u32::MAX)).contains(&n_results) {
        return Err(RetrievalError::InvalidNResults(n_results));
    }
    Ok(usize::try_from(n_results)
        .unwrap_or(usize::MAX)
        .min(usize::try_from(index.num_docs()).unwrap_or(usize::MAX)))
}

/// The ranking `options` ask for on this data root, with its model: an explicit dense or
/// hybrid mode needs the model; the default is dense when an index holds document vectors and
/// the model can be had, else BM25, with a warning saying why.
fn settle(
    layout: &Layout,
    options: &RetrieverOptions,
) -> Result<(SearchSetup, Option<Embedder>), RetrievalError> {
    let explicit = options.embedding_model.as_deref();
    let indexes = layout.manifests();
    let with_vectors = indexes.iter().filter_map(|m| Some((m, m.dense.as_ref()?)));
    let any_vectors = with_vectors.clone().next().is_some();
    let all_from_store = with_vectors
        .clone()
        .all(|(m, d)| d.from_store == m.documents);
    let bm25 = |why: String| SearchSetup {
        mode: SearchMode::Bm25,
        model: None,
        not_reference: Some(why),
    };
    let with_model = |mode: SearchMode, (embedder, info): (Embedder, ModelInfo)| {
        let not_reference = match mode {
            SearchMode::Hybrid => Some("hybrid ranking was chosen (--search-mode hybrid)".into()),
            _ if !all_from_store => Some(
                "some document vectors were embedded by `vakra index`, not read from the \
                 reference's Chroma store"
                    .into(),
            ),
            _ => None,
        };
        tracing::info!(
            "capability 4 searches by {mode} with the embedding model in {} (found by {})",
            info.folder,
            info.source
        );
        let setup = SearchSetup {
            mode,
            model: Some(info),
            not_reference,
        };
        (setup, Some(embedder))
    };
    match options.mode {
        Some(SearchMode::Bm25) => Ok((bm25("BM25 was chosen (--search-mode bm25)".into()), None)),
        Some(mode) => {
            let model = vakra_embed::load(&EMBEDDING_MODEL, explicit)?;
            Ok(with_model(mode, model))
        }
        None if !any_vectors => {
            let why = "no index holds document vectors (documents without stored embeddings; \
                       `vakra index --embedding-model DIR` embeds them)"
                .to_owned();
            // Not a fault (the demo's documents come without vectors): said, not warned.
            if !indexes.is_empty() {
                tracing::info!("capability 4 searches by BM25, not as the reference: {why}");
            }
            Ok((bm25(why), None))
        }
        None => match vakra_embed::load(&EMBEDDING_MODEL, explicit) {
            Ok(model) => Ok(with_model(SearchMode::Dense, model)),
            Err(e) if explicit.is_some() => Err(e.into()),
            Err(e) => {
                let why = format!("the embedding model could not be had: {e}");
                tracing::warn!("capability 4 searches by BM25, not as the reference: {why}");
                Ok((bm25(why), None))
            }
        },
    }
}

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

//! Building the per-domain indexes of a data root (`vakra index`).
//!
//! Each domain is indexed into a fresh folder beside its final place and moved there only when
//! complete, so a failed or interrupted build never leaves a half-written index where a server
//! would open it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use tantivy::{Index, TantivyDocument};
use vakra_catalog::{DataRoot, is_valid_domain_name};

use crate::chroma::{ChromaStore, Collection, StoredVectors};
use crate::dense::DocumentEmbedder;
use crate::layout::Layout;
use crate::manifest::{FORMAT, Manifest};
use crate::schema::{self, Fields};
use crate::{Document, RetrievalError, jsonl};

/// Memory for the index writer, per indexing thread.
const HEAP_PER_THREAD: usize = 64 << 20;
/// More threads than this only add segments to merge.
const MAX_THREADS: usize = 4;

/// What [`build_indexes_with`] should do besides the BM25 index.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Draw a progress bar per domain on stderr.
    pub progress: bool,
    /// A sentence-embedding model folder (`config.json`, `tokenizer.json`,
    /// `model.safetensors`, `modules.json`) that embeds the documents that come without a
    /// vector (JSONL files), for dense and hybrid search. Chroma's own vectors are always used
    /// as they are, never re-embedded.
    pub embedding_model: Option<PathBuf>,
}

/// Where a domain's documents came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A collection of the Chroma store `documents/chroma.sqlite3`.
    Chroma,
    /// `documents/<domain>.jsonl`.
    Jsonl,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Chroma => "chroma",
            Source::Jsonl => "jsonl",
        }
    }
}

/// One domain that was indexed.
#[derive(Debug, Clone)]
pub struct DomainReport {
    pub domain: String,
    pub source: Source,
    /// Chunks indexed (each is one search result).
    pub documents: usize,
    /// Whether document vectors were stored too.
    pub dense: bool,
    /// Of those, the vectors read from the Chroma store (the rest were embedded).
    pub from_store: usize,
    /// Wall time of reading, indexing and (with a model) embedding the domain.
    pub seconds: f64,
}

/// The outcome of a build: the indexed domains in build order, and what was skipped and why.
#[derive(Debug, Clone, Default)]
pub struct IndexReport {
    pub domains: Vec<DomainReport>,
    /// Sources that were skipped (invalid domain names, a JSONL file shadowed by a Chroma
    /// collection, Chroma records without a text), for the operator to see.
    pub warnings: Vec<String>,
    /// Chroma records left out because they have no document text.
    pub skipped_records: usize,
}

/// Builds (or rebuilds) the BM25 index of every domain with documents under `root`: the
/// collections of `documents/chroma.sqlite3` and the `documents/<domain>.jsonl` files, into
/// `indexes/<domain>/`. A domain found in both is read from Chroma (the benchmark's data).
pub fn build_indexes(root: &DataRoot, progress: bool) -> Result<IndexReport, RetrievalError> {
    build_indexes_with(
        root,
        &BuildOptions {
            progress,
            embedding_model: None,
        },
    )
}

/// [`build_indexes`] with all options.
pub fn build_indexes_with(
    root: &DataRoot,
    options: &BuildOptions,
) -> Result<IndexReport, RetrievalError> {
    let layout = Layout::new(root);
    let mut report = IndexReport::default();
    let sources = find_sources(&layout, &mut report.warnings)?;
    let embedder = DocumentEmbedder::new(options.embedding_model.clone());
    std::fs::create_dir_all(layout.indexes_dir())
        .map_err(|e| RetrievalError::io(layout.indexes_dir(), e))?;
    for source in sources {
        let started = Instant::now();
        let (documents, stored, kind) = match &source.origin {
            Origin::Chroma { store, collection } => {
                let records = store.documents(&collection.id)?;
                if !records.without_text.is_empty() {
                    report.warnings.push(format!(
                        "domain {:?}: {} Chroma records without a document text skipped (first: {:?})",
                        source.domain,
                        records.without_text.len(),
                        records.without_text[0]
                    ));
                    report.skipped_records += records.without_text.len();
                }
                let vectors = store.vectors(collection)?;
                (records.documents, Some(vectors), Source::Chroma)
            }
            Origin::Jsonl(path) => (jsonl::read(path)?, None, Source::Jsonl),
        };
        let bar = progress_bar(options.progress, &source.domain, documents.len());
        let manifest = write_index(
            &layout.index_dir(&source.domain),
            &source.domain,
            documents,
            stored,
            kind,
            &bar,
            &embedder,
        )?;
        bar.finish();
        report.domains.push(DomainReport {
            domain: source.domain,
            source: kind,
            documents: manifest.documents as usize,
            dense: manifest.dense.is_some(),
            from_store: manifest.dense.as_ref().map_or(0, |d| d.from_store as usize),
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    Ok(report)
}

enum Origin {
    Chroma {
        store: std::rc::Rc<ChromaStore>,
        collection: Collection,
    },
    Jsonl(PathBuf),
}

struct SourceEntry {
    domain: String,
    origin: Origin,
}

fn find_sources(
    layout: &Layout,
    warnings: &mut Vec<String>,
) -> Result<Vec<SourceEntry>, RetrievalError> {
    let mut sources = Vec::new();
    let chroma_file = layout.chroma_file();
    if chroma_file.is_file() {
        let store = std::rc::Rc::new(ChromaStore::open(&chroma_file)?);
        for collection in store.collections()? {
            if is_valid_domain_name(&collection.name) {
                sources.push(SourceEntry {
                    domain: collection.name.clone(),
                    origin: Origin::Chroma {
                        store: store.clone(),
                        collection,
                    },
                });
            } else {
                warnings.push(format!(
                    "{}: collection {:?} skipped: not a valid domain name",
                    chroma_file.display(),
                    collection.name
                ));
            }
        }
    }
    let files = jsonl::collection_files(&layout.documents_dir())?;
    for path in files.ignored {
        warnings.push(format!(
            "{}: skipped: the file name is not a valid domain name",
            path.display()
        ));
    }
    for (domain, path) in files.found {
        if sources.iter().any(|s| s.domain == domain) {
            warnings.push(format!(
                "{}: skipped: domain {domain:?} is indexed from the Chroma store",
                path.display()
            ));
        } else {
            sources.push(SourceEntry {
                domain,
                origin: Origin::Jsonl(path),
            });
        }
    }
    Ok(sources)
}

fn progress_bar(enabled: bool, domain: &str, len: usize) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64).with_message(domain.to_owned());
    if let Ok(style) =
        ProgressStyle::with_template("{msg:>24} [{bar:32}] {pos}/{len} docs ({per_sec})")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Writes one domain's index to `dir`, replacing any index there once the new one is complete.
fn write_index(
    dir: &Path,
    domain: &str,
    documents: Vec<Document>,
    stored: Option<StoredVectors>,
    source: Source,
    bar: &ProgressBar,
    embedder: &DocumentEmbedder,
) -> Result<Manifest, RetrievalError> {
    let ords = ordinals(domain, &documents)?;
    let parent = dir.parent().unwrap_or(Path::new("."));
    let staging = parent.join(format!(".{domain}.building"));
    remove_dir_if_present(&staging)?;
    std::fs::create_dir_all(&staging).map_err(|e| RetrievalError::io(&staging, e))?;
    let result = fill_index(
        &staging, domain, &documents, stored, &ords, source, bar, embedder,
    );
    let manifest = match result {
        Ok(manifest) => manifest,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    let old = parent.join(format!(".{domain}.old"));
    remove_dir_if_present(&old)?;
    if dir.exists() {
        std::fs::rename(dir, &old).map_err(|e| RetrievalError::io(dir, e))?;
    }
    std::fs::rename(&staging, dir).map_err(|e| RetrievalError::io(dir, e))?;
    remove_dir_if_present(&old)?;
    Ok(manifest)
}

fn remove_dir_if_present(dir: &Path) -> Result<(), RetrievalError> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(RetrievalError::io(dir, e)),
    }
}

/// The rank of each document's id in byte order; fails on a repeated id, which would make
/// results ambiguous.
fn ordinals(domain: &str, documents: &[Document]) -> Result<Vec<u64>, RetrievalError> {
    let mut by_id: Vec<usize> = (0..documents.len()).collect();
    by_id.sort_unstable_by(|&a, &b| documents[a].id.cmp(&documents[b].id));
    if let Some(pair) = by_id
        .windows(2)
        .find(|pair| documents[pair[0]].id == documents[pair[1]].id)
    {
        return Err(RetrievalError::DuplicateId {
            domain: domain.to_owned(),
            id: documents[pair[0]].id.clone(),
        });
    }
    let mut ords = vec![0u64; documents.len()];
    for (rank, &position) in by_id.iter().enumerate() {
        ords[position] = rank as u64;
    }
    Ok(ords)
}

#[expect(
    clippy::too_many_arguments,
    reason = "one call site, each argument a different part"
)]
fn fill_index(
    dir: &Path,
    domain: &str,
    documents: &[Document],
    stored: Option<StoredVectors>,
    ords: &[u64],
    source: Source,
    bar: &ProgressBar,
    embedder: &DocumentEmbedder,
) -> Result<Manifest, RetrievalError> {
    let tantivy_error = |source| RetrievalError::Tantivy {
        domain: domain.to_owned(),
        source,
    };
    let (schema, fields) = schema::schema();
    let index = Index::create_in_dir(dir, schema).map_err(tantivy_error)?;
    schema::register(&index);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS);
    let mut writer = index
        .writer_with_num_threads::<TantivyDocument>(threads, threads * HEAP_PER_THREAD)
        .map_err(tantivy_error)?;
    for (document, &ord) in documents.iter().zip(ords) {
        writer
            .add_document(tantivy_document(&fields, document, ord))
            .map_err(tantivy_error)?;
        bar.inc(1);
    }
    writer.commit().map_err(tantivy_error)?;
    writer.wait_merging_threads().map_err(tantivy_error)?;
    let dense = match crate::dense::document_vectors(domain, documents, stored, embedder, bar)? {
        Some((rows, manifest)) => {
            crate::vectors::write_vectors(dir, &rows, ords, manifest.dimension)?;
            Some(manifest)
        }
        None => None,
    };
    let manifest = Manifest {
        format: FORMAT,
        domain: domain.to_owned(),
        documents: documents.len() as u64,
        source: source.name().to_owned(),
        dense,
    };
    manifest.write(dir)?;
    Ok(manifest)
}

fn tantivy_document(fields: &Fields, document: &Document, ord: u64) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.id, &document.id);
    doc.add_text(fields.text, &document.text);
    doc.add_text(
        fields.metadata,
        serde_json::to_string(&document.metadata).unwrap_or_else(|_| "{}".to_owned()),
    );
    doc.add_u64(fields.ord, ord);
    doc
}

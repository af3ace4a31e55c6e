//! Which vectors an index gets — the Chroma store's own, or embedded here for documents without
//! one — and the dense and hybrid rankings over them (the vectors file is `vectors.rs`). Distances are squared
//! L2 computed as hnswlib computes them for Chroma (see [`l2_squared`]); the search is exact.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use indicatif::ProgressBar;
use vakra_embed::Embedder;

use crate::chroma::StoredVectors;
use crate::manifest::DenseManifest;
use crate::search::{DomainIndex, Ranked};
use crate::vectors::Vectors;
use crate::{Document, RetrievalError};

/// The usual reciprocal-rank-fusion constant.
const RRF_K: f32 = 60.0;
/// How deep each ranking is read for fusion (at least `n_results`).
const HYBRID_DEPTH: usize = 100;

/// The model that embeds documents without a stored vector: the folder a flag names, loaded
/// when first needed.
pub(crate) struct DocumentEmbedder {
    folder: Option<PathBuf>,
    loaded: OnceLock<Result<Embedder, String>>,
}

impl DocumentEmbedder {
    pub(crate) fn new(folder: Option<PathBuf>) -> Self {
        Self {
            folder,
            loaded: OnceLock::new(),
        }
    }

    /// The model, `None` when no folder was named.
    fn get(&self) -> Option<Result<&Embedder, RetrievalError>> {
        let folder = self.folder.as_deref()?;
        let loaded = self.loaded.get_or_init(|| {
            vakra_embed::load(&vakra_embed::EMBEDDING_MODEL, Some(folder))
                .map(|(embedder, _)| embedder)
                .map_err(|e| e.to_string())
        });
        Some(
            loaded
                .as_ref()
                .map_err(|e| RetrievalError::Dense(e.clone())),
        )
    }
}

/// Every document's vector by position, and the manifest entry that describes them.
pub(crate) type DocumentVectors = (Vec<Vec<f32>>, DenseManifest);

/// Every document's vector, by position, and the manifest entry that describes them: the
/// store's own vectors where it has them, the others embedded by `embedder`. `None` when
/// there is nothing to store: no stored vector and no model. A store that has vectors for some
/// chunks only is partial: an error, unless a model embeds the rest.
pub(crate) fn document_vectors(
    domain: &str,
    documents: &[Document],
    stored: Option<StoredVectors>,
    embedder: &DocumentEmbedder,
    bar: &ProgressBar,
) -> Result<Option<DocumentVectors>, RetrievalError> {
    let (mut by_id, store_dimension, function) = match stored {
        Some(s) => (s.by_id, s.dimension, s.embedding_function),
        None => Default::default(),
    };
    let mut rows: Vec<Option<Vec<f32>>> = documents.iter().map(|d| by_id.remove(&d.id)).collect();
    let from_store = rows.iter().filter(|r| r.is_some()).count();
    let missing: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].is_none()).collect();
    let model = if missing.is_empty() {
        None
    } else {
        match embedder.get() {
            Some(model) => Some(model?),
            None if from_store == 0 => return Ok(None),
            None => {
                return Err(RetrievalError::Dense(format!(
                    "domain {domain:?}: {} of {} chunks have no vector in the Chroma store \
                     (first: {:?}); the store is partial — restore it, or name an embedding \
                     model (--embedding-model) to embed those chunks",
                    missing.len(),
                    documents.len(),
                    documents[missing[0]].id
                )));
            }
        }
    };
    if documents.is_empty() {
        return Ok(None);
    }
    if let Some(embedder) = model {
        if let Some(d) = store_dimension.filter(|&d| from_store > 0 && d != embedder.dimension()) {
            return Err(RetrievalError::Dense(format!(
                "domain {domain:?}: the store's vectors have dimension {d}, the model {:?} embeds {}",
                embedder.name(),
                embedder.dimension()
            )));
        }
        bar.set_position(0);
        bar.set_length(missing.len() as u64);
        bar.set_message(format!("{} (embedding)", bar.message()));
        for batch in missing.chunks(256) {
            let texts: Vec<&str> = batch.iter().map(|&i| documents[i].text.as_str()).collect();
            for (&i, vector) in batch.iter().zip(embedder.embed(&texts)?) {
                rows[i] = Some(vector);
            }
            bar.inc(batch.len() as u64);
        }
    }
    let rows: Vec<Vec<f32>> = rows.into_iter().flatten().collect();
    let dimension = rows.first().map_or(0, Vec::len);
    if let Some(bad) = rows.iter().position(|r| r.len() != dimension) {
        return Err(RetrievalError::Dense(format!(
            "domain {domain:?}: chunk {:?} has a vector of dimension {}, others {dimension}",
            documents[bad].id,
            rows[bad].len()
        )));
    }
    let manifest = DenseManifest {
        model: match (from_store, model) {
            (0, Some(embedder)) => embedder.name().to_owned(),
            _ => function.unwrap_or_else(|| "chroma".to_owned()),
        },
        fingerprint: model
            .map(|e| e.fingerprint().to_owned())
            .unwrap_or_default(),
        dimension,
        from_store: from_store as u64,
    };
    Ok(Some((rows, manifest)))
}

/// Refuses an index without vectors, or with vectors of another model.
pub(crate) fn check_compatible(
    index: &DomainIndex,
    embedder: &Embedder,
) -> Result<(), RetrievalError> {
    let domain = &index.manifest.domain;
    match &index.manifest.dense {
        None => Err(RetrievalError::Dense(format!(
            "the index of domain {domain:?} has no document embeddings; rebuild it with an embedding model"
        ))),
        Some(dense)
            if (!dense.fingerprint.is_empty() && dense.fingerprint != embedder.fingerprint())
                || dense.dimension != embedder.dimension() =>
        {
            Err(RetrievalError::Dense(format!(
                "the index of domain {domain:?} was embedded with model {:?}, not with {:?}; rebuild it",
                dense.model,
                embedder.name()
            )))
        }
        Some(_) => Ok(()),
    }
}

fn vectors_of(index: &DomainIndex) -> Result<&Vectors, RetrievalError> {
    index.vectors.as_ref().ok_or_else(|| {
        RetrievalError::Dense(format!(
            "the index of domain {:?} has no document embeddings",
            index.manifest.domain
        ))
    })
}

/// Squared L2 distance in `f32` as hnswlib computes it for Chroma's `l2` space, so that equal
/// vectors give bit-identical distances: with SSE, squares are summed in 4 interleaved lanes
/// (element `i` into lane `i % 4`) which are then added left to right, over the whole vector
/// when its length is a multiple of 4, else over the longest prefix that is a multiple of 16
/// (or of 4, for lengths under 16) with the rest summed one by one and added last; vectors
/// shorter than 4 are summed one by one.
pub(crate) fn l2_squared(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let lanes = |len: usize| {
        let mut sums = [0f32; 4];
        for i in 0..len {
            let d = a[i] - b[i];
            sums[i % 4] += d * d;
        }
        ((sums[0] + sums[1]) + sums[2]) + sums[3]
    };
    let one_by_one = |from: usize| {
        (from..n).fold(0f32, |sum, i| {
            let d = a[i] - b[i];
            sum + d * d
        })
    };
    let head = if n.is_multiple_of(4) {
        n
    } else if n > 16 {
        n / 16 * 16
    } else {
        n / 4 * 4
    };
    if head == 0 {
        one_by_one(0)
    } else if head == n {
        lanes(n)
    } else {
        lanes(head) + one_by_one(head)
    }
}

/// The `depth` nearest documents: (squared L2 distance, ord), ties by ord (the chunk ids'
/// byte order).
fn nearest(vectors: &Vectors, query: &[f32], depth: usize) -> Vec<(f32, usize)> {
    let mut scored: Vec<(f32, usize)> = (0..vectors.len())
        .map(|ord| (l2_squared(vectors.row(ord), query), ord))
        .collect();
    let by_distance = |a: &(f32, usize), b: &(f32, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if depth < scored.len() {
        scored.select_nth_unstable_by(depth, by_distance);
        scored.truncate(depth);
    }
    scored.sort_by(by_distance);
    scored
}

/// Questions whose embeddings are kept.
const RECENT_QUESTIONS: usize = 4096;
/// Longer questions are embedded every time, so the kept ones stay within a few tens of MiB.
const MAX_KEPT_QUESTION_BYTES: usize = 4096;

/// The model that embeds questions, with the embeddings of recent questions kept: the same
/// question comes back in every trial of a sample and from many agents, and embedding one costs
/// tens of milliseconds where the search costs one (`docs/benchmarks.md`). Oldest out first.
pub(crate) struct QueryEmbedder {
    model: Embedder,
    recent: Mutex<Recent>,
}

#[derive(Default)]
struct Recent {
    vectors: HashMap<String, Arc<[f32]>>,
    order: VecDeque<String>,
}

impl QueryEmbedder {
    pub(crate) fn new(model: Embedder) -> Self {
        Self {
            model,
            recent: Mutex::new(Recent::default()),
        }
    }

    pub(crate) fn model(&self) -> &Embedder {
        &self.model
    }

    fn embed(&self, question: &str) -> Result<Arc<[f32]>, RetrievalError> {
        if let Some(vector) = self
            .recent
            .lock()
            .ok()
            .and_then(|recent| recent.vectors.get(question).cloned())
        {
            return Ok(vector);
        }
        let vector: Arc<[f32]> = self
            .model
            .embed(&[question])?
            .pop()
            .ok_or_else(|| RetrievalError::Dense("the model returned no embedding".into()))?
            .into();
        if question.len() <= MAX_KEPT_QUESTION_BYTES
            && let Ok(mut recent) = self.recent.lock()
            && recent
                .vectors
                .insert(question.to_owned(), vector.clone())
                .is_none()
        {
            recent.order.push_back(question.to_owned());
            while recent.order.len() > RECENT_QUESTIONS {
                if let Some(oldest) = recent.order.pop_front() {
                    recent.vectors.remove(&oldest);
                }
            }
        }
        Ok(vector)
    }
}

/// Dense ranking: the `k` documents nearest to the question.
pub(crate) fn search(
    index: &DomainIndex,
    embedder: &QueryEmbedder,
    question: &str,
    k: usize,
) -> Result<Vec<Ranked>, RetrievalError> {
    search_vector(index, &embedder.embed(question)?, k)
}

/// The `k` documents nearest to `query` (at most all of them).
pub(crate) fn search_vector(
    index: &DomainIndex,
    query: &[f32],
    k: usize,
) -> Result<Vec<Ranked>, RetrievalError> {
    let vectors = vectors_of(index)?;
    if query.len() != vectors.dimension() {
        return Err(RetrievalError::Dense(format!(
            "a query vector of dimension {}, the index of domain {:?} holds {}",
            query.len(),
            index.manifest.domain,
            vectors.dimension()
        )));
    }
    Ok(nearest(vectors, query, k.min(vectors.len()))
        .into_iter()
        .map(|(distance, ord)| Ranked {
            address: vectors.address(ord),
            ord: ord as u64,
            distance,
        })
        .collect())
}

/// Hybrid ranking: reciprocal rank fusion of the BM25 and dense rankings (each read
/// `max(k, 100)` deep), ties by ord. `distance = 1 - rrf / rrf_max`, so a document ranked first
/// by both is at 0.
pub(crate) fn hybrid(
    index: &DomainIndex,
    embedder: &QueryEmbedder,
    question: &str,
    k: usize,
) -> Result<Vec<Ranked>, RetrievalError> {
    let vectors = vectors_of(index)?;
    let depth = k.max(HYBRID_DEPTH).min(vectors.len());
    let query = embedder.embed(question)?;
    let mut fused: HashMap<usize, f32> = HashMap::new();
    for (rank, (_, ord)) in nearest(vectors, &query, depth).into_iter().enumerate() {
        *fused.entry(ord).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
    }
    for (rank, ranked) in index
        .bm25_matching(question, depth)?
        .into_iter()
        .enumerate()
    {
        let ord = usize::try_from(ranked.ord)
            .ok()
            .filter(|&ord| ord < vectors.len())
            .ok_or_else(|| RetrievalError::Dense("a BM25 result has no vector".into()))?;
        *fused.entry(ord).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
    }
    let mut fused: Vec<(f32, usize)> = fused.into_iter().map(|(ord, score)| (score, ord)).collect();
    fused.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    fused.truncate(k);
    let best = 2.0 / (RRF_K + 1.0);
    Ok(fused
        .into_iter()
        .map(|(score, ord)| Ranked {
            address: vectors.address(ord),
            ord: ord as u64,
            distance: (1.0 - score / best).max(0.0),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{QueryEmbedder, RECENT_QUESTIONS, l2_squared};

    /// A question asked again is not embedded again; the oldest of more than
    /// `RECENT_QUESTIONS` is.
    #[test]
    fn recent_questions_keep_their_embeddings() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../vakra-embed/tests/fixtures/modernbert-tiny/cls");
        let embedder = QueryEmbedder::new(vakra_embed::Embedder::load(&folder).unwrap());
        let first = embedder.embed("which branch opens first").unwrap();
        let again = embedder.embed("which branch opens first").unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        for i in 0..RECENT_QUESTIONS {
            embedder.embed(&format!("q{i}")).unwrap();
        }
        let later = embedder.embed("which branch opens first").unwrap();
        assert!(!Arc::ptr_eq(&first, &later), "the oldest was dropped");
        assert_eq!(first, later);
        assert_eq!(
            embedder.recent.lock().unwrap().vectors.len(),
            RECENT_QUESTIONS
        );
    }

    /// The lane order against a plain sum: one large square and many ones, which a running
    /// sum loses one by one and the lanes keep.
    #[test]
    fn distances_sum_in_hnswlib_lanes() {
        let mut a = vec![1f32; 64];
        a[0] = 1e4;
        let b = vec![0f32; 64];
        let sequential = a.iter().fold(0f32, |s, x| s + x * x);
        assert_eq!(sequential, 1e8, "a running sum loses every 1");
        assert_eq!(l2_squared(&a, &b), 1e8 + 48.0, "lanes 1-3 hold 16 each");
        // Lengths that are not multiples of 4: lanes over 16 elements, then the tail.
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.7).collect();
        let zero = vec![0f32; 19];
        let expected =
            l2_squared(&a[..16], &zero[..16]) + a[16..].iter().fold(0f32, |s, x| s + x * x);
        assert_eq!(l2_squared(&a, &zero), expected);
        assert_eq!(l2_squared(&[3.0, 4.0], &[0.0, 0.0]), 25.0);
    }
}

//! Document vectors beside a BM25 index, and the dense and hybrid rankings over them.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use indicatif::ProgressBar;
use tantivy::DocAddress;

use super::Embedder;
use crate::manifest::{DenseManifest, Manifest};
use crate::search::{DomainIndex, Ranked};
use crate::{Document, RetrievalError};

/// Row `r` holds the unit vector of the document whose ord is `r`, little-endian `f32`.
const VECTORS_FILE: &str = "vectors.f32";
/// The usual reciprocal-rank-fusion constant.
const RRF_K: f32 = 60.0;
/// How deep each ranking is read for fusion (at least `n_results`).
const HYBRID_DEPTH: usize = 100;

/// The document vectors of an index.
pub(crate) struct Vectors {
    data: Vec<f32>,
    dimension: usize,
    /// Document address by ord, to read the stored fields of dense results.
    addresses: Vec<DocAddress>,
}

impl Vectors {
    /// Reads the vectors of an index built with a model (`Ok(None)` for a BM25-only index).
    pub(crate) fn open(
        dir: &Path,
        manifest: &Manifest,
        addresses: impl FnOnce() -> Result<Vec<DocAddress>, String>,
    ) -> Result<Option<Self>, String> {
        let Some(dense) = &manifest.dense else {
            return Ok(None);
        };
        let path = dir.join(VECTORS_FILE);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let expected = (manifest.documents as usize)
            .checked_mul(dense.dimension)
            .and_then(|n| n.checked_mul(4));
        if expected != Some(bytes.len()) {
            return Err(format!("{}: wrong size", path.display()));
        }
        let data = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Some(Self {
            data,
            dimension: dense.dimension,
            addresses: addresses()?,
        }))
    }

    fn row(&self, ord: usize) -> &[f32] {
        &self.data[ord * self.dimension..(ord + 1) * self.dimension]
    }

    fn len(&self) -> usize {
        self.addresses.len()
    }
}

/// Embeds every document and writes the vector file; returns the manifest entry.
pub(crate) fn store_vectors(
    embedder: &Embedder,
    dir: &Path,
    documents: &[Document],
    ords: &[u64],
    bar: &ProgressBar,
) -> Result<DenseManifest, RetrievalError> {
    bar.set_position(0);
    bar.set_message(format!("{} (embedding)", bar.message()));
    let dimension = embedder.dimension;
    let mut data = vec![0f32; documents.len() * dimension];
    for (start, batch) in (0..documents.len())
        .step_by(256)
        .map(|start| (start, &documents[start..(start + 256).min(documents.len())]))
    {
        let texts: Vec<&str> = batch.iter().map(|d| d.text.as_str()).collect();
        for (offset, vector) in embedder.embed(&texts)?.into_iter().enumerate() {
            let ord = ords[start + offset] as usize;
            data[ord * dimension..(ord + 1) * dimension].copy_from_slice(&vector);
        }
        bar.inc(batch.len() as u64);
    }
    let path = dir.join(VECTORS_FILE);
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(&path).map_err(|e| RetrievalError::io(&path, e))?,
    );
    for value in &data {
        file.write_all(&value.to_le_bytes())
            .map_err(|e| RetrievalError::io(&path, e))?;
    }
    file.flush().map_err(|e| RetrievalError::io(&path, e))?;
    Ok(DenseManifest {
        model: embedder.name.clone(),
        fingerprint: embedder.fingerprint.clone(),
        dimension,
    })
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
            if dense.fingerprint != embedder.fingerprint
                || dense.dimension != embedder.dimension =>
        {
            Err(RetrievalError::Dense(format!(
                "the index of domain {domain:?} was embedded with model {:?}, not with {:?}; rebuild it",
                dense.model, embedder.name
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

/// The `depth` nearest documents: (squared L2 distance of unit vectors, ord), ties by ord.
fn nearest(vectors: &Vectors, query: &[f32], depth: usize) -> Vec<(f32, usize)> {
    let mut scored: Vec<(f32, usize)> = (0..vectors.len())
        .map(|ord| {
            let distance: f32 = vectors
                .row(ord)
                .iter()
                .zip(query)
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            (distance, ord)
        })
        .collect();
    let by_distance = |a: &(f32, usize), b: &(f32, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if depth < scored.len() {
        scored.select_nth_unstable_by(depth, by_distance);
        scored.truncate(depth);
    }
    scored.sort_by(by_distance);
    scored
}

fn embed_question(embedder: &Embedder, question: &str) -> Result<Vec<f32>, RetrievalError> {
    embedder
        .embed(&[question])?
        .pop()
        .ok_or_else(|| RetrievalError::Dense("the model returned no embedding".into()))
}

/// Dense ranking: the `k` documents nearest to the question.
pub(crate) fn search(
    index: &DomainIndex,
    embedder: &Embedder,
    question: &str,
    k: usize,
) -> Result<Vec<Ranked>, RetrievalError> {
    let vectors = vectors_of(index)?;
    let query = embed_question(embedder, question)?;
    Ok(nearest(vectors, &query, k)
        .into_iter()
        .map(|(distance, ord)| Ranked {
            address: vectors.addresses[ord],
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
    embedder: &Embedder,
    question: &str,
    k: usize,
) -> Result<Vec<Ranked>, RetrievalError> {
    let vectors = vectors_of(index)?;
    let depth = k.max(HYBRID_DEPTH).min(vectors.len());
    let query = embed_question(embedder, question)?;
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
            address: vectors.addresses[ord],
            ord: ord as u64,
            distance: (1.0 - score / best).max(0.0),
        })
        .collect())
}

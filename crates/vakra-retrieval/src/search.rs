//! An opened domain index and BM25 search over it.
//!
//! Ranking is deterministic: documents are ordered by score, then by id (byte order), whatever
//! the segment layout of the index. A query returns `min(n_results, documents)` results, as the
//! reference's nearest-neighbour search does: when fewer documents contain a query term, the
//! rest are filled with the remaining documents in id order.

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tantivy::collector::TopDocs;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value as _};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    DocAddress, Index, IndexReader, Order, ReloadPolicy, Searcher, TantivyDocument, Term,
};

use crate::RetrievalError;
use crate::manifest::Manifest;
use crate::schema::{self, Fields};

/// A question longer than this many distinct terms is cut: the tail of a pasted document adds
/// cost, not precision.
const MAX_QUERY_TERMS: usize = 1024;

/// One ranked document, as the reference's `/query` returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryResult {
    /// The chunk id (`<doc_id>_<position>` in the benchmark).
    pub id: String,
    /// The chunk text; the evaluator compares these texts, in order.
    pub text: String,
    /// Lower is better. BM25: `1 / (1 + score)`; dense: squared L2 distance of unit vectors;
    /// hybrid: `1 - rrf / rrf_max`. Computed in `f32` and widened, like Chroma's.
    pub distance: f64,
    pub metadata: Map<String, Value>,
}

impl QueryResult {
    /// `{"id", "text", "distance", "metadata"}` in the reference's field order.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("id".into(), Value::String(self.id.clone()));
        object.insert("text".into(), Value::String(self.text.clone()));
        object.insert("distance".into(), Value::from(self.distance));
        object.insert("metadata".into(), Value::Object(self.metadata.clone()));
        Value::Object(object)
    }
}

/// The reference's response body: `{"results": [...]}`.
pub fn results_json(results: &[QueryResult]) -> Value {
    let mut object = Map::new();
    object.insert(
        "results".into(),
        Value::Array(results.iter().map(QueryResult::to_json).collect()),
    );
    Value::Object(object)
}

/// A document chosen by a ranking, before its stored fields are read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ranked {
    pub(crate) address: DocAddress,
    pub(crate) ord: u64,
    pub(crate) distance: f32,
}

/// An opened, read-only domain index.
pub(crate) struct DomainIndex {
    domain: String,
    dir: PathBuf,
    reader: IndexReader,
    fields: Fields,
    analyzer: TextAnalyzer,
    pub(crate) manifest: Manifest,
    pub(crate) vectors: Option<crate::vectors::Vectors>,
}

impl DomainIndex {
    /// Opens `dir`, checking that it is a finished index of this crate's format.
    pub(crate) fn open(domain: &str, dir: &Path) -> Result<Self, RetrievalError> {
        let corrupt = |message: String| RetrievalError::CorruptIndex {
            domain: domain.to_owned(),
            path: dir.to_path_buf(),
            message,
        };
        if !dir.is_dir() {
            return Err(RetrievalError::MissingIndex {
                domain: domain.to_owned(),
                path: dir.to_path_buf(),
            });
        }
        let manifest = Manifest::read(dir)
            .map_err(corrupt)?
            .ok_or_else(|| corrupt("no manifest: the build did not finish".into()))?;
        let opened = catch_panic(|| {
            let index = Index::open_in_dir(dir).map_err(|e| e.to_string())?;
            let fields = schema::fields_of(&index.schema())
                .ok_or_else(|| "the index schema is not vakra-retrieval's".to_owned())?;
            schema::register(&index);
            let reader = index
                .reader_builder()
                .reload_policy(ReloadPolicy::Manual)
                .try_into()
                .map_err(|e: tantivy::TantivyError| e.to_string())?;
            Ok((reader, fields))
        });
        let (reader, fields) = opened.map_err(corrupt)?;
        let documents = reader.searcher().num_docs();
        if documents != manifest.documents {
            return Err(corrupt(format!(
                "holds {documents} documents, its manifest says {}",
                manifest.documents
            )));
        }
        let vectors = crate::vectors::Vectors::open(dir, &manifest, || {
            catch_panic(|| ord_addresses(&reader.searcher(), documents))
        })
        .map_err(corrupt)?;
        Ok(Self {
            domain: domain.to_owned(),
            dir: dir.to_path_buf(),
            reader,
            fields,
            analyzer: schema::analyzer(),
            manifest,
            vectors,
        })
    }

    pub(crate) fn num_docs(&self) -> u64 {
        self.manifest.documents
    }

    fn corrupt(&self, message: String) -> RetrievalError {
        RetrievalError::CorruptIndex {
            domain: self.domain.clone(),
            path: self.dir.clone(),
            message,
        }
    }

    /// The analysed, de-duplicated terms of a question, in order of first occurrence.
    fn terms(&self, question: &str) -> Vec<String> {
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(question);
        let mut seen = HashSet::new();
        let mut terms = Vec::new();
        while terms.len() < MAX_QUERY_TERMS && stream.advance() {
            let text = &stream.token().text;
            if seen.insert(text.clone()) {
                terms.push(text.clone());
            }
        }
        terms
    }

    fn terms_query(&self, terms: &[String]) -> BooleanQuery {
        BooleanQuery::new(
            terms
                .iter()
                .map(|t| {
                    let query: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(self.fields.text, t),
                        IndexRecordOption::WithFreqs,
                    ));
                    (Occur::Should, query)
                })
                .collect(),
        )
    }

    /// The `k` best documents by BM25 (`k ≥ 1`), topped up with non-matching documents in id
    /// order when fewer match.
    pub(crate) fn bm25(&self, question: &str, k: usize) -> Result<Vec<Ranked>, RetrievalError> {
        let terms = self.terms(question);
        let searcher = self.reader.searcher();
        catch_panic(|| {
            let mut ranked = self.matching(&searcher, &terms, k)?;
            if ranked.len() < k {
                self.fill(&searcher, &terms, k - ranked.len(), &mut ranked)?;
            }
            Ok(ranked)
        })
        .map_err(|message| self.corrupt(message))
    }

    /// The `k` best documents that contain a query term (possibly fewer), for rank fusion.
    pub(crate) fn bm25_matching(
        &self,
        question: &str,
        k: usize,
    ) -> Result<Vec<Ranked>, RetrievalError> {
        let terms = self.terms(question);
        let searcher = self.reader.searcher();
        catch_panic(|| self.matching(&searcher, &terms, k)).map_err(|message| self.corrupt(message))
    }

    /// Top `k` of the documents containing a term, ties broken by id. tantivy breaks ties by
    /// document address, so the window is widened until the score at rank `k` is separated
    /// from the first score left out; the window is then re-sorted by (score, ord).
    fn matching(
        &self,
        searcher: &Searcher,
        terms: &[String],
        k: usize,
    ) -> Result<Vec<Ranked>, String> {
        if terms.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let query = self.terms_query(terms);
        let total = usize::try_from(searcher.num_docs())
            .unwrap_or(usize::MAX)
            .max(1);
        let mut limit = k.saturating_add(1).min(total);
        loop {
            let top = searcher
                .search(&query, &TopDocs::with_limit(limit).order_by_score())
                .map_err(|e| e.to_string())?;
            let complete = top.len() < limit || limit >= total;
            let separated = top.len() > k && top.last().map(|t| t.0) < top.get(k - 1).map(|t| t.0);
            if complete || separated {
                let mut ords = OrdReader::default();
                let mut scored = top
                    .into_iter()
                    .map(|(score, address)| Ok((score, ords.get(searcher, address)?, address)))
                    .collect::<Result<Vec<_>, String>>()?;
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                scored.truncate(k);
                return Ok(scored
                    .into_iter()
                    .map(|(score, ord, address)| Ranked {
                        address,
                        ord,
                        distance: bm25_distance(score),
                    })
                    .collect());
            }
            limit = limit.saturating_mul(2).min(total);
        }
    }

    /// Appends up to `count` documents that contain no query term, in id order.
    fn fill(
        &self,
        searcher: &Searcher,
        terms: &[String],
        count: usize,
        ranked: &mut Vec<Ranked>,
    ) -> Result<(), String> {
        if count == 0 || searcher.num_docs() == 0 {
            return Ok(());
        }
        let query: Box<dyn Query> = if terms.is_empty() {
            Box::new(AllQuery)
        } else {
            Box::new(BooleanQuery::new(vec![
                (Occur::Must, Box::new(AllQuery) as Box<dyn Query>),
                (Occur::MustNot, Box::new(self.terms_query(terms))),
            ]))
        };
        let top = searcher
            .search(
                &query,
                &TopDocs::with_limit(count).order_by_fast_field::<u64>("ord", Order::Asc),
            )
            .map_err(|e| e.to_string())?;
        ranked.extend(top.into_iter().map(|(ord, address)| Ranked {
            address,
            ord: ord.unwrap_or(u64::MAX),
            distance: bm25_distance(0.0),
        }));
        Ok(())
    }

    /// Reads the stored fields of ranked documents.
    pub(crate) fn fetch(&self, ranked: &[Ranked]) -> Result<Vec<QueryResult>, RetrievalError> {
        let searcher = self.reader.searcher();
        catch_panic(|| {
            ranked
                .iter()
                .map(|r| {
                    let doc: TantivyDocument =
                        searcher.doc(r.address).map_err(|e| e.to_string())?;
                    let text_of = |field| {
                        doc.get_first(field)
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .ok_or_else(|| "a stored document lacks a field".to_owned())
                    };
                    let metadata = match serde_json::from_str(&text_of(self.fields.metadata)?) {
                        Ok(Value::Object(map)) => map,
                        _ => return Err("stored metadata is not a JSON object".to_owned()),
                    };
                    Ok(QueryResult {
                        id: text_of(self.fields.id)?,
                        text: text_of(self.fields.text)?,
                        distance: f64::from(r.distance),
                        metadata,
                    })
                })
                .collect()
        })
        .map_err(|message| self.corrupt(message))
    }
}

/// Every document's address by ord, for rankings computed outside tantivy (dense search).
fn ord_addresses(searcher: &Searcher, documents: u64) -> Result<Vec<DocAddress>, String> {
    let mut addresses = vec![None; usize::try_from(documents).map_err(|e| e.to_string())?];
    for (segment_ord, segment) in searcher.segment_readers().iter().enumerate() {
        let column = segment
            .fast_fields()
            .u64("ord")
            .map_err(|e| e.to_string())?;
        for doc in segment.doc_ids_alive() {
            let ord = column.first(doc).ok_or("a document has no ord")?;
            let slot = usize::try_from(ord)
                .ok()
                .and_then(|i| addresses.get_mut(i))
                .ok_or("a document's ord is out of range")?;
            *slot = Some(DocAddress::new(segment_ord as u32, doc));
        }
    }
    addresses
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| "some ords have no document".to_owned())
}

/// BM25 scores (higher is better, unbounded) as a distance in `(0, 1]` (lower is better).
pub(crate) fn bm25_distance(score: f32) -> f32 {
    1.0 / (1.0 + score.max(0.0))
}

/// Reads the `ord` fast field, one column per segment.
#[derive(Default)]
struct OrdReader {
    columns: HashMap<u32, tantivy::columnar::Column<u64>>,
}

impl OrdReader {
    fn get(&mut self, searcher: &Searcher, address: DocAddress) -> Result<u64, String> {
        let column = match self.columns.entry(address.segment_ord) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(
                searcher
                    .segment_reader(address.segment_ord)
                    .fast_fields()
                    .u64("ord")
                    .map_err(|e| e.to_string())?,
            ),
        };
        column
            .first(address.doc_id)
            .ok_or_else(|| "a document has no ord".to_owned())
    }
}

/// Runs index code that may panic on damaged files, turning a panic into an error message.
fn catch_panic<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(format!("the index files are damaged ({detail})"))
    })
}

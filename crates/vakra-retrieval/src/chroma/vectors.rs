//! The document vectors a Chroma store already holds, read without Chroma, so that indexing
//! never re-embeds what the store has (and search uses the reference's own vectors).
//!
//! Chroma keeps a collection's vectors in two places:
//! - its vector segment's folder beside the database (`<store>/<segment id>/`), an hnswlib
//!   index: `header.bin` (Chroma 1.x adds a 4-byte version before hnswlib's fields),
//!   `data_level0.bin` (per element: the level-0 links — a 4-byte header whose third byte
//!   marks a deleted element, then the links —, the vector as little-endian `f32`, the label as
//!   a `u64`) and `index_metadata.pickle` (`id_to_label`: chunk id → label). It holds every
//!   record up to the segment's `max_seq_id`;
//! - the write-ahead log `embeddings_queue` (`topic` ends with the collection id; `operation`
//!   0 add, 1 update, 2 upsert, 3 delete; `vector` little-endian `f32` with `encoding`
//!   `FLOAT32`), which holds the records added since, and possibly older ones already in the
//!   folder.
//!
//! The folder is read first, then the log after its `max_seq_id` is replayed over it.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::types::ValueRef;

use super::pickle::{self, Pickled};
use super::{ChromaStore, Collection};
use crate::RetrievalError;

/// The vectors of one collection, by chunk id.
#[derive(Debug, Default)]
pub(crate) struct StoredVectors {
    /// The collection's dimension (`None` for a collection that never had a vector).
    pub(crate) dimension: Option<usize>,
    pub(crate) by_id: HashMap<String, Vec<f32>>,
    /// The embedding function the collection was made with, as its configuration names it.
    pub(crate) embedding_function: Option<String>,
}

/// hnswlib's index header: the fields this reader needs.
#[derive(Debug)]
struct Header {
    element_count: usize,
    size_per_element: usize,
    label_offset: usize,
    data_offset: usize,
}

/// The deleted mark in an element's link-list header (hnswlib's `DELETE_MARK`, third byte).
const DELETED: u8 = 0x01;

impl ChromaStore {
    /// The vectors of `collection`: the HNSW folder's, then the log's newer operations.
    pub(crate) fn vectors(&self, collection: &Collection) -> Result<StoredVectors, RetrievalError> {
        let row = |sql: &str| {
            self.conn.query_row(sql, [&collection.id], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })
        };
        // `schema_str` is Chroma 1.x's; older stores have the configuration only.
        let (dimension, config, schema): (Option<i64>, Option<String>, Option<String>) =
            row("SELECT dimension, config_json_str, schema_str FROM collections WHERE id = ?1")
                .or_else(|_| {
                    row("SELECT dimension, config_json_str, NULL FROM collections WHERE id = ?1")
                })
                .map_err(|e| self.fail(e))?;
        let dimension = dimension.and_then(|d| usize::try_from(d).ok());
        let configurations: Vec<serde_json::Value> = [schema, config]
            .into_iter()
            .flatten()
            .filter_map(|text| serde_json::from_str(&text).ok())
            .collect();
        let setting = |key: &str| configurations.iter().find_map(|c| find_setting(c, &[key]));
        let embedding_function =
            setting("embedding_function").and_then(|f| f.get("name")?.as_str().map(str::to_owned));
        // `space` sits in the schema (1.5), the configuration's `vector_index` (1.0) or its
        // `hnsw_configuration` (0.x); l2 is the default of all and the reference's.
        if let Some(space) = setting("space").and_then(|s| s.as_str().map(str::to_owned))
            && space != "l2"
        {
            return Err(RetrievalError::DataFile {
                path: self.path.clone(),
                message: format!(
                    "collection {:?}: its distance is {space:?}; only Chroma's default l2 is supported",
                    collection.name
                ),
            });
        }
        let mut vectors = StoredVectors {
            dimension,
            by_id: HashMap::new(),
            embedding_function,
        };
        let segment: Option<String> = self
            .conn
            .query_row(
                "SELECT id FROM segments WHERE collection = ?1 AND scope = 'VECTOR'",
                [&collection.id],
                |row| row.get(0),
            )
            .ok();
        let mut persisted_to = i64::MIN;
        if let Some(segment) = &segment {
            let folder = self.path.parent().unwrap_or(Path::new(".")).join(segment);
            if folder.join("header.bin").is_file() {
                read_folder(&folder, dimension, &mut vectors.by_id)
                    .map_err(|message| self.damaged(&collection.name, message))?;
                persisted_to = self.max_seq_id(segment)?;
            }
        }
        self.replay_log(collection, persisted_to, &mut vectors)?;
        Ok(vectors)
    }

    fn damaged(&self, collection: &str, message: String) -> RetrievalError {
        RetrievalError::DataFile {
            path: self.path.clone(),
            message: format!(
                "collection {collection:?}: the stored vectors are damaged: {message}"
            ),
        }
    }

    /// The last log sequence number a segment holds (an integer, or eight big-endian bytes as
    /// Chroma 0.4 wrote it); none recorded is before everything.
    fn max_seq_id(&self, segment: &str) -> Result<i64, RetrievalError> {
        let mut stmt = self
            .conn
            .prepare("SELECT seq_id FROM max_seq_id WHERE segment_id = ?1")
            .map_err(|e| self.fail(e))?;
        let mut rows = stmt.query([segment]).map_err(|e| self.fail(e))?;
        let Some(row) = rows.next().map_err(|e| self.fail(e))? else {
            return Ok(i64::MIN);
        };
        Ok(match row.get_ref(0).map_err(|e| self.fail(e))? {
            ValueRef::Integer(n) => n,
            ValueRef::Blob(bytes) if bytes.len() <= 8 => {
                let mut padded = [0u8; 8];
                padded[8 - bytes.len()..].copy_from_slice(bytes);
                i64::from_be_bytes(padded)
            }
            _ => i64::MIN,
        })
    }

    /// Applies the log's operations on `collection` after `after`, in order.
    fn replay_log(
        &self,
        collection: &Collection,
        after: i64,
        vectors: &mut StoredVectors,
    ) -> Result<(), RetrievalError> {
        let has_log = self
            .conn
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'embeddings_queue'",
                [],
                |_| Ok(()),
            )
            .is_ok();
        if !has_log {
            return Ok(());
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT seq_id, operation, id, vector, encoding FROM embeddings_queue \
                 WHERE seq_id > ?1 AND (topic = ?2 OR topic LIKE '%/' || ?2) ORDER BY seq_id",
            )
            .map_err(|e| self.fail(e))?;
        let mut rows = stmt
            .query(rusqlite::params![after, collection.id])
            .map_err(|e| self.fail(e))?;
        while let Some(row) = rows.next().map_err(|e| self.fail(e))? {
            let seq: i64 = row.get(0).map_err(|e| self.fail(e))?;
            let operation: i64 = row.get(1).map_err(|e| self.fail(e))?;
            let id: String = row.get(2).map_err(|e| self.fail(e))?;
            let blob: Option<Vec<u8>> = row.get(3).map_err(|e| self.fail(e))?;
            let encoding: Option<String> = row.get(4).map_err(|e| self.fail(e))?;
            let damaged =
                |what: String| self.damaged(&collection.name, format!("log entry {seq}: {what}"));
            let vector = match blob {
                None => None,
                Some(blob) => {
                    if encoding.as_deref().is_some_and(|e| e != "FLOAT32") {
                        return Err(damaged(format!(
                            "vector encoding {encoding:?} is not FLOAT32"
                        )));
                    }
                    let vector = floats(&blob)
                        .ok_or_else(|| damaged("a vector of a partial float".into()))?;
                    if let Some(d) = vectors.dimension.filter(|&d| d != vector.len()) {
                        return Err(damaged(format!(
                            "a vector of dimension {}, the collection's is {d}",
                            vector.len()
                        )));
                    }
                    Some(vector)
                }
            };
            match (operation, vector) {
                (0, Some(v)) => {
                    vectors.by_id.entry(id).or_insert(v);
                }
                (1, Some(v)) => {
                    if let Some(slot) = vectors.by_id.get_mut(&id) {
                        *slot = v;
                    }
                }
                (2, Some(v)) => {
                    vectors.by_id.insert(id, v);
                }
                (3, _) => {
                    vectors.by_id.remove(&id);
                }
                (0..=2, None) => {}
                (other, _) => return Err(damaged(format!("unknown operation {other}"))),
            }
        }
        Ok(())
    }
}

/// Reads an HNSW folder's vectors by chunk id into `out`.
fn read_folder(
    folder: &Path,
    dimension: Option<usize>,
    out: &mut HashMap<String, Vec<f32>>,
) -> Result<(), String> {
    let read = |name: &str| {
        std::fs::read(folder.join(name))
            .map_err(|e| format!("{}: {e}", folder.join(name).display()))
    };
    let header = parse_header(&read("header.bin")?)?;
    let vector_bytes = header.label_offset - header.data_offset;
    let vector_len = vector_bytes / 4;
    if let Some(d) = dimension.filter(|&d| d != vector_len) {
        return Err(format!(
            "header.bin: vectors of dimension {vector_len}, the collection's is {d}"
        ));
    }
    if header.element_count == 0 {
        return Ok(());
    }
    let pickle_path = folder.join("index_metadata.pickle");
    let metadata = pickle::parse(&read("index_metadata.pickle")?)
        .map_err(|e| format!("{}: {e}", pickle_path.display()))?;
    let labels = match metadata.get("id_to_label") {
        Some(Pickled::Dict(items)) => items,
        _ => return Err(format!("{}: no id_to_label mapping", pickle_path.display())),
    };
    let data = read("data_level0.bin")?;
    let needed = header
        .element_count
        .checked_mul(header.size_per_element)
        .ok_or("header.bin: impossible sizes")?;
    if data.len() < needed {
        return Err(format!(
            "data_level0.bin holds {} bytes, {} elements of {} need {needed}",
            data.len(),
            header.element_count,
            header.size_per_element
        ));
    }
    let mut by_label: HashMap<u64, usize> = HashMap::with_capacity(header.element_count);
    for index in 0..header.element_count {
        let element = &data[index * header.size_per_element..(index + 1) * header.size_per_element];
        if element[2] & DELETED != 0 {
            continue;
        }
        let mut label = [0u8; 8];
        label.copy_from_slice(&element[header.label_offset..header.label_offset + 8]);
        by_label.insert(u64::from_le_bytes(label), index);
    }
    for (id, label) in labels {
        let (Pickled::Str(id), Pickled::Int(label)) = (id, label) else {
            return Err(format!(
                "{}: an id_to_label entry is not text → integer",
                pickle_path.display()
            ));
        };
        let index = u64::try_from(*label)
            .ok()
            .and_then(|label| by_label.get(&label))
            .ok_or_else(|| format!("chunk {id:?}: label {label} is not in data_level0.bin"))?;
        let start = index * header.size_per_element + header.data_offset;
        let vector =
            floats(&data[start..start + vector_bytes]).ok_or("a vector of a partial float")?;
        out.insert(id.clone(), vector);
    }
    Ok(())
}

/// hnswlib's header, with Chroma 1.x's leading version (100 bytes) or without (96 bytes).
fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    let fields = match bytes.len() {
        100 => &bytes[4..],
        96 => bytes,
        n => return Err(format!("header.bin: {n} bytes, not an hnswlib header")),
    };
    let word = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&fields[i * 8..i * 8 + 8]);
        usize::try_from(u64::from_le_bytes(b)).unwrap_or(usize::MAX)
    };
    let header = Header {
        element_count: word(2),
        size_per_element: word(3),
        label_offset: word(4),
        data_offset: word(5),
    };
    let sane = header.data_offset < header.label_offset
        && (header.label_offset - header.data_offset).is_multiple_of(4)
        && header.label_offset.saturating_add(8) <= header.size_per_element
        && header.data_offset >= 4;
    if !sane {
        return Err(format!(
            "header.bin: inconsistent element layout {header:?}"
        ));
    }
    Ok(header)
}

/// Little-endian `f32`s (`None` when the length is not a multiple of 4).
fn floats(bytes: &[u8]) -> Option<Vec<f32>> {
    bytes.len().is_multiple_of(4).then(|| {
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    })
}

/// The first value under one of `keys` anywhere in a collection's configuration.
fn find_setting<'a>(value: &'a serde_json::Value, keys: &[&str]) -> Option<&'a serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => keys
            .iter()
            .find_map(|k| map.get(*k).filter(|v| !v.is_null()))
            .or_else(|| map.values().find_map(|v| find_setting(v, keys))),
        serde_json::Value::Array(items) => items.iter().find_map(|v| find_setting(v, keys)),
        _ => None,
    }
}

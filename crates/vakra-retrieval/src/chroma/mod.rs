//! Reads the documents of a Chroma persistent store (`chroma.sqlite3`) without Chroma.
//!
//! Chroma keeps collections in `collections(id, name, …)`, their segments in
//! `segments(id, type, scope, collection)`, one row per record of the metadata segment in
//! `embeddings(id, segment_id, embedding_id, seq_id, …)` (`embedding_id` is the user's chunk id)
//! and the record's metadata as typed key/value rows in `embedding_metadata(id, key,
//! string_value, int_value, float_value[, bool_value])`. The document text is the metadata row
//! with the reserved key `chroma:document`; other `chroma:` keys are internal. The vectors are
//! read by [`vectors`].

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, Row};
use serde_json::{Map, Value};

use crate::{Document, RetrievalError};

mod pickle;
mod vectors;

pub(crate) use vectors::StoredVectors;

const DOCUMENT_KEY: &str = "chroma:document";

/// An open, read-only Chroma database.
pub(crate) struct ChromaStore {
    conn: Connection,
    path: PathBuf,
    has_bool_column: bool,
}

/// A collection: its id (a UUID string) and its name (the domain).
#[derive(Debug, Clone)]
pub(crate) struct Collection {
    pub(crate) id: String,
    pub(crate) name: String,
}

/// A collection's records: those with a text, and the ids of those without one.
#[derive(Debug, Default)]
pub(crate) struct Records {
    /// Records with a `chroma:document` row, in insertion order.
    pub(crate) documents: Vec<Document>,
    /// Ids of records without one (Chroma stores no row for a record added without a document);
    /// they have nothing to search, so they are left out and reported.
    pub(crate) without_text: Vec<String>,
}

impl ChromaStore {
    /// Opens the store read-only. When that fails (a store in WAL mode on a read-only mount
    /// cannot create its `-shm` file, for example), it is opened again as an immutable file
    /// (`file:…?immutable=1`), which reads the database file alone, without locks.
    pub(crate) fn open(path: &Path) -> Result<Self, RetrievalError> {
        let fail = |source| RetrievalError::Chroma {
            path: path.to_path_buf(),
            source,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // Opening succeeds lazily; the first read shows whether the store can be read at all.
        let probed = |conn: Connection| Ok((has_bool_column(&conn)?, conn));
        let opened = Connection::open_with_flags(path, flags).and_then(probed);
        let (has_bool_column, conn) = match opened {
            Ok(opened) => opened,
            Err(first) => {
                let retried = Connection::open_with_flags(
                    immutable_uri(path),
                    flags | OpenFlags::SQLITE_OPEN_URI,
                )
                .and_then(probed);
                match retried {
                    Ok(opened) => {
                        tracing::warn!(
                            "{}: opened as an immutable file after a read-only open failed: {first}",
                            path.display()
                        );
                        opened
                    }
                    Err(_) => return Err(fail(first)),
                }
            }
        };
        Ok(Self {
            conn,
            path: path.to_path_buf(),
            has_bool_column,
        })
    }

    fn fail(&self, source: rusqlite::Error) -> RetrievalError {
        RetrievalError::Chroma {
            path: self.path.clone(),
            source,
        }
    }

    /// Collections in the order Chroma 1.x's `list_collections()` returns them (ascending id),
    /// which is the order of the reference retriever's routes and hence of its tools.
    pub(crate) fn collections(&self) -> Result<Vec<Collection>, RetrievalError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, name FROM collections ORDER BY id")
            .map_err(|e| self.fail(e))?;
        let rows = stmt
            .query_map([], |row| {
                Ok(Collection {
                    id: row.get(0)?,
                    name: row.get(1)?,
                })
            })
            .map_err(|e| self.fail(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.fail(e))
    }

    /// The records of a collection in insertion order, with their text and user metadata
    /// (keys in ascending order, as the metadata table's primary key stores them); records
    /// without a text are set apart.
    pub(crate) fn documents(&self, collection_id: &str) -> Result<Records, RetrievalError> {
        let bool_column = if self.has_bool_column {
            "m.bool_value"
        } else {
            "NULL"
        };
        let sql = format!(
            "SELECT e.id, e.embedding_id, m.key, m.string_value, m.int_value, m.float_value, \
             {bool_column} \
             FROM embeddings e LEFT JOIN embedding_metadata m ON m.id = e.id \
             WHERE e.segment_id IN (SELECT id FROM segments WHERE collection = ?1) \
             ORDER BY e.id, m.key"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.fail(e))?;
        let mut rows = stmt.query([collection_id]).map_err(|e| self.fail(e))?;
        // Each record with whether it has a text.
        let mut records: Vec<(Document, bool)> = Vec::new();
        let mut current_row_id: Option<i64> = None;
        while let Some(row) = rows.next().map_err(|e| self.fail(e))? {
            let row_id: i64 = row.get(0).map_err(|e| self.fail(e))?;
            if current_row_id != Some(row_id) {
                current_row_id = Some(row_id);
                let document = Document {
                    id: row.get(1).map_err(|e| self.fail(e))?,
                    text: String::new(),
                    metadata: Map::new(),
                };
                records.push((document, false));
            }
            let Some((document, has_text)) = records.last_mut() else {
                continue;
            };
            let Some(key) = row.get::<_, Option<String>>(2).map_err(|e| self.fail(e))? else {
                continue;
            };
            let value = metadata_value(row).map_err(|e| self.fail(e))?;
            if key == DOCUMENT_KEY {
                if let Value::String(text) = value {
                    document.text = text;
                    *has_text = true;
                }
            } else if !key.starts_with("chroma:") {
                document.metadata.insert(key, value);
            }
        }
        let mut result = Records::default();
        for (document, has_text) in records {
            if has_text {
                result.documents.push(document);
            } else {
                result.without_text.push(document.id);
            }
        }
        Ok(result)
    }
}

/// Whether `embedding_metadata` has Chroma 1.x's `bool_value` column; the first read of the
/// store, so it also shows whether the store can be read at all.
fn has_bool_column(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('embedding_metadata')")?;
    let names = stmt.query_map([], |row| row.get::<_, String>(0))?;
    let mut found = false;
    for name in names {
        found |= name? == "bool_value";
    }
    Ok(found)
}

/// SQLite's URI for `path` opened as an immutable file: the path percent-encoded (everything
/// but unreserved characters and `/`), so that `?`, `#` and `%` in it stay part of the name.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for byte in path.as_os_str().as_encoded_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(char::from(*byte));
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// The one non-NULL typed column of a metadata row.
fn metadata_value(row: &Row<'_>) -> rusqlite::Result<Value> {
    if let Some(s) = row.get::<_, Option<String>>(3)? {
        return Ok(Value::String(s));
    }
    if let Some(b) = row.get::<_, Option<i64>>(6)? {
        return Ok(Value::Bool(b != 0));
    }
    if let Some(i) = row.get::<_, Option<i64>>(4)? {
        return Ok(Value::from(i));
    }
    if let Some(f) = row.get::<_, Option<f64>>(5)? {
        return Ok(Value::from(f));
    }
    Ok(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::immutable_uri;
    use std::path::Path;

    #[test]
    fn immutable_uris_escape_what_sqlite_would_read_as_syntax() {
        assert_eq!(
            immutable_uri(Path::new("/data/a b/chroma?.sqlite3#x%")),
            "file:/data/a%20b/chroma%3F.sqlite3%23x%25?immutable=1"
        );
    }
}

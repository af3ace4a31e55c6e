//! Helpers of this crate's tests: documents and Chroma files in temporary data roots, the demo
//! questions, the reference's data files (what is not about retrieval comes from vakra-test-kit).

use std::path::PathBuf;

use serde_json::{Value, json};
use vakra_catalog::DataRoot;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::reference;
use vakra_test_kit::root::TempRoot;

/// A file of the reference's published data ([`reference::file`]); `None` skips the test.
pub fn reference_file(relative: &str) -> Option<PathBuf> {
    reference::file(relative)
}

/// What this crate's tests do with a temporary data root.
pub trait RetrievalRoot {
    fn data_root(&self) -> DataRoot;
    /// Writes `documents/<domain>.jsonl` from `(id, text)` pairs with the benchmark's metadata.
    fn write_jsonl(&self, domain: &str, docs: &[(&str, &str)]);
}

impl RetrievalRoot for TempRoot {
    fn data_root(&self) -> DataRoot {
        DataRoot::new(self.path())
    }

    fn write_jsonl(&self, domain: &str, docs: &[(&str, &str)]) {
        let lines: Vec<String> = docs
            .iter()
            .map(|(id, text)| {
                let doc_id = id.rsplit_once('_').map_or(*id, |(d, _)| d);
                json!({"id": id, "text": text, "metadata": {"doc_id": doc_id, "from_clapnq": false}})
                    .to_string()
            })
            .collect();
        self.write_file(
            &format!("documents/{domain}.jsonl"),
            &(lines.join("\n") + "\n"),
        );
    }
}

/// The ids of a successful `query_*` text.
pub fn result_ids(text: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    value["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect()
}

/// The demo questions: `(domain, question, gold id)`.
pub fn demo_questions() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(repo_root().join("demo/documents/questions.jsonl"))
        .expect("questions.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("question line");
            let s = |k: &str| v[k].as_str().expect(k).to_owned();
            (s("domain"), s("question"), s("gold_id"))
        })
        .collect()
}

/// One record of a synthetic Chroma collection: (chunk id, text, doc_id, from_clapnq).
pub type ChromaRecord<'a> = (&'a str, &'a str, &'a str, bool);

/// Writes `documents/chroma.sqlite3` in Chroma's schema (1.x; `with_bool_column = false` gives
/// the older layout where booleans were integers): collections with a metadata and a vector
/// segment, records in `embeddings`, text and metadata in `embedding_metadata`.
pub fn write_chroma(
    root: &TempRoot,
    collections: &[(&str, &str, &[ChromaRecord<'_>])],
    with_bool_column: bool,
) {
    let path = root.path().join("documents/chroma.sqlite3");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let conn = rusqlite::Connection::open(&path).expect("create chroma.sqlite3");
    let bool_column = if with_bool_column {
        ", bool_value INTEGER"
    } else {
        ""
    };
    conn.execute_batch(&format!(
        "CREATE TABLE tenants (id TEXT PRIMARY KEY, UNIQUE (id));
         CREATE TABLE databases (id TEXT PRIMARY KEY, name TEXT NOT NULL,
             tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE, UNIQUE (tenant_id, name));
         CREATE TABLE collections (id TEXT PRIMARY KEY, name TEXT NOT NULL, dimension INTEGER,
             database_id TEXT NOT NULL REFERENCES databases(id) ON DELETE CASCADE,
             config_json_str TEXT, UNIQUE (name, database_id));
         CREATE TABLE segments (id TEXT PRIMARY KEY, type TEXT NOT NULL, scope TEXT NOT NULL,
             collection TEXT REFERENCES collections(id) NOT NULL);
         CREATE TABLE embeddings (id INTEGER PRIMARY KEY, segment_id TEXT NOT NULL,
             embedding_id TEXT NOT NULL, seq_id BLOB NOT NULL,
             created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
             UNIQUE (segment_id, embedding_id));
         CREATE TABLE embedding_metadata (id INTEGER REFERENCES embeddings(id) ON DELETE CASCADE NOT NULL,
             key TEXT NOT NULL, string_value TEXT, int_value INTEGER, float_value REAL{bool_column},
             PRIMARY KEY (id, key));
         CREATE TABLE max_seq_id (segment_id TEXT PRIMARY KEY, seq_id BLOB NOT NULL);
         INSERT INTO tenants VALUES ('default_tenant');
         INSERT INTO databases VALUES ('00000000-0000-0000-0000-000000000000', 'default_database', 'default_tenant');"
    ))
    .expect("schema");
    let mut seq = 0i64;
    for (collection_id, name, records) in collections {
        conn.execute(
            "INSERT INTO collections (id, name, dimension, database_id, config_json_str)
             VALUES (?1, ?2, 768, '00000000-0000-0000-0000-000000000000', '{}')",
            (collection_id, name),
        )
        .expect("collection");
        let metadata_segment = format!("{collection_id}-m");
        conn.execute(
            "INSERT INTO segments VALUES (?1, 'urn:chroma:segment/metadata/sqlite', 'METADATA', ?2)",
            (&metadata_segment, collection_id),
        )
        .expect("segment");
        conn.execute(
            "INSERT INTO segments VALUES (?1, 'urn:chroma:segment/vector/hnsw-local-persisted', 'VECTOR', ?2)",
            (format!("{collection_id}-v"), collection_id),
        )
        .expect("segment");
        for (chunk_id, text, doc_id, from_clapnq) in *records {
            seq += 1;
            conn.execute(
                "INSERT INTO embeddings (segment_id, embedding_id, seq_id) VALUES (?1, ?2, ?3)",
                (&metadata_segment, chunk_id, seq),
            )
            .expect("embedding");
            let row = conn.last_insert_rowid();
            conn.execute(
                "INSERT INTO embedding_metadata (id, key, string_value) VALUES (?1, 'chroma:document', ?2)",
                (row, text),
            )
            .expect("document");
            conn.execute(
                "INSERT INTO embedding_metadata (id, key, string_value) VALUES (?1, 'doc_id', ?2)",
                (row, doc_id),
            )
            .expect("doc_id");
            let flag_sql = if with_bool_column {
                "INSERT INTO embedding_metadata (id, key, bool_value) VALUES (?1, 'from_clapnq', ?2)"
            } else {
                "INSERT INTO embedding_metadata (id, key, int_value) VALUES (?1, 'from_clapnq', ?2)"
            };
            conn.execute(flag_sql, (row, i64::from(*from_clapnq)))
                .expect("from_clapnq");
        }
    }
}

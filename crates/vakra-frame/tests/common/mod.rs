//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use vakra_frame::{Cell, Table, ToolError, ToolValue, peek};
use vakra_test_kit::paths::shared_path_or_skip;

pub fn i(v: i64) -> Cell {
    Cell::Int(v)
}

pub fn f(v: f64) -> Cell {
    Cell::Float(v)
}

pub fn s(v: &str) -> Cell {
    Cell::from(v)
}

pub fn none() -> Cell {
    Cell::None
}

pub fn nan() -> Cell {
    Cell::Float(f64::NAN)
}

/// A table without a sidecar, as a tool receives its input.
pub fn table(columns: &[(&str, Vec<Cell>)]) -> Table {
    Table::from_columns(columns.iter().map(|(n, c)| (*n, c.clone())))
}

/// The answer text the server would give (peek under handle `h` for tables), or `Err` with
/// the exception text.
pub fn text(result: Result<ToolValue, ToolError>) -> Result<String, String> {
    match result {
        Err(e) => Err(e.message().to_owned()),
        Ok(ToolValue::Table(t)) => peek(&t, "h").map_err(|e| e.to_string()),
        Ok(other) => other
            .text()
            .expect("not a table")
            .map_err(|e| e.to_string()),
    }
}

/// The table a tool returned.
pub fn out_table(result: Result<ToolValue, ToolError>) -> Table {
    match result {
        Ok(ToolValue::Table(t)) => t,
        other => panic!("expected a table, got {other:?}"),
    }
}

/// The capability-1 golden fixtures in `shared/`, or `None` (skipped) when they are missing.
pub fn fixtures() -> Option<PathBuf> {
    shared_path_or_skip("conformance/cap1-transcripts")
}

/// Builds `<root>/<domain>/<domain>.sqlite` from a SQL dump.
pub fn build_db(root: &Path, domain: &str, sql: &str) -> PathBuf {
    let dir = root.join(domain);
    std::fs::create_dir_all(&dir).expect("create db dir");
    let path = dir.join(format!("{domain}.sqlite"));
    let conn = rusqlite::Connection::open(&path).expect("create db");
    conn.execute_batch(sql).expect("load dump");
    path
}

/// The four mock databases of the fixtures, under a temporary root.
pub fn mock_dbs(fixtures: &Path) -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("tempdir");
    for domain in ["disney", "beer_factory", "testdom", "testdom2"] {
        let sql = std::fs::read_to_string(fixtures.join(format!("mockdb_{domain}.sql")))
            .expect("read dump");
        build_db(root.path(), domain, &sql);
    }
    root
}

//! Read-only SQLite access for the catalog-defined endpoints.
//!
//! The reference keeps one module-global `sqlite3` cursor per domain and binds Python values
//! positionally. This crate gives the servers the same observable behaviour (typed binding,
//! SQLite's dynamic value types per cell, Python's "Incorrect number of bindings" failure),
//! while opening every database read-only, pooling connections so that requests can run in
//! parallel, and interrupting statements that run past a deadline.
//!
//! Databases live at `<db_root>/<domain>/<domain>.sqlite` (the reference's `MCP_DB_ROOT`
//! convention); domain names are checked before they become paths.

mod database;
mod process;
mod value;

pub use database::{Database, DatabaseSet, Fetched, SqlError, open_read_only};
pub use process::configure_sqlite;
pub use value::SqlValue;

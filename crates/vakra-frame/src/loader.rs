//! `initialize_active_data`: a universe's table from SQLite, with the reference's SQL text,
//! join order, column naming and error texts (§3.2–§3.4 of the spec).

use std::path::Path;
use std::time::Duration;

use indexmap::IndexMap;
use vakra_catalog::{FetchMode, InitArgs};
use vakra_pytext::str_repr;
use vakra_sql::{Database, Fetched, SqlError, SqlValue};

use crate::error::FrameError;
use crate::pandas::Pandas;
use crate::pystr::py_strip;
use crate::table::Table;

/// Loads a universe's table from the server's database, as `_load_tool_universe` does after
/// overwriting `database_path` with the configured path: `init_args.database_path` is ignored
/// and `db`'s path is the one checked and quoted in errors.
pub fn load_universe(
    db: &Database,
    init_args: &InitArgs,
    pandas: Pandas,
) -> Result<Table, FrameError> {
    let path = db.path();
    if !path.is_file() {
        return Err(missing_database(&path.display().to_string()));
    }
    build(
        &Source {
            db,
            max_bytes: usize::MAX,
            pandas,
        },
        init_args,
    )
}

/// What a direct `initialize_active_data` call may cost: its arguments come from a client, so
/// its statements (a table name can smuggle in a join, a join condition can multiply rows)
/// run under the limits of the server's own queries.
#[derive(Debug, Clone, Copy)]
pub struct DirectLimits {
    /// Each statement is interrupted after this long (the server's `--sql-time-limit`).
    pub time_limit: Duration,
    /// Fetching stops with an error once the rows of one statement take more than this (the
    /// session's memory cap), so that an endless result cannot exhaust memory first.
    pub max_bytes: usize,
}

/// `initialize_active_data(**init_args)` as called directly by a client (the hidden tool):
/// the table is read from `init_args.database_path` when that names a file under
/// `allowed_root`. Any other path (elsewhere, `..` out of the root, a link leading out, a NUL
/// byte) is answered as a missing file, so a client reads only databases the server was given.
/// The file is opened like the server's databases (read-only, `query_only`) and read within
/// `limits`.
pub fn initialize_active_data(
    init_args: &InitArgs,
    allowed_root: &Path,
    limits: DirectLimits,
    pandas: Pandas,
) -> Result<Table, FrameError> {
    let path = Path::new(&init_args.database_path);
    if !path.is_file() || !is_within(path, allowed_root) {
        return Err(missing_database(&init_args.database_path));
    }
    let db = Database::new(path.to_path_buf(), limits.time_limit);
    build(
        &Source {
            db: &db,
            max_bytes: limits.max_bytes,
            pandas,
        },
        init_args,
    )
}

/// Whether `path`, with links and `..` resolved, lies under `root`, or is one of the root's
/// own databases (`<root>/<domain>/<domain>.sqlite`) wherever the operator's links put it
/// (`vakra import --dataset` links the dataset's database folders into the root).
fn is_within(path: &Path, root: &Path) -> bool {
    let (Ok(path), Ok(canonical_root)) = (path.canonicalize(), root.canonicalize()) else {
        return false;
    };
    if path.starts_with(&canonical_root) {
        return true;
    }
    let Some(domain) = path.file_stem() else {
        return false;
    };
    let own = root
        .join(domain)
        .join(Path::new(domain).with_extension("sqlite"));
    own.canonicalize().is_ok_and(|own| own == path)
}

fn missing_database(path: &str) -> FrameError {
    FrameError::new(format!("failed, can't find database at location ({path})"))
}

/// Where statements run, and how many bytes of rows one may fetch.
struct Source<'a> {
    db: &'a Database,
    max_bytes: usize,
    /// Decides the dtypes `read_sql_query` infers.
    pandas: Pandas,
}

/// Why a statement failed: SQLite's own message, which the reference shows (wrapped in its
/// own texts), or one of this server's limits, which is shown as it is.
enum Failure {
    Sql(String),
    Limit(FrameError),
}

impl Source<'_> {
    fn fetch(&self, sql: &str, binds: &[SqlValue]) -> Result<Vec<Vec<SqlValue>>, Failure> {
        match self
            .db
            .query_within(sql, binds, FetchMode::All, self.max_bytes)
        {
            Ok(Fetched::All(rows)) => Ok(rows),
            Ok(Fetched::One(row)) => Ok(row.into_iter().collect()),
            Err(e @ (SqlError::Interrupted(_) | SqlError::TooLarge(_))) => {
                Err(Failure::Limit(FrameError::new(e.to_string())))
            }
            Err(SqlError::Sqlite(e) | SqlError::Open { source: e, .. }) => {
                Err(Failure::Sql(sqlite_message(&e)))
            }
            Err(e) => Err(Failure::Sql(e.to_string())),
        }
    }
}

impl Failure {
    /// The error of a failed statement: a limit as it is, SQLite's message through `wrap`.
    fn into_error(self, wrap: impl FnOnce(&str) -> FrameError) -> FrameError {
        match self {
            Failure::Sql(msg) => wrap(&msg),
            Failure::Limit(e) => e,
        }
    }
}

/// The text Python's `sqlite3` puts in its exceptions: SQLite's own error message.
fn sqlite_message(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(_, Some(msg)) => msg.clone(),
        other => other.to_string(),
    }
}

fn build(source: &Source, args: &InitArgs) -> Result<Table, FrameError> {
    if args.condition_sequence.is_empty() {
        single_table(source, args)
    } else {
        joined_tables(source, args)
    }
}

/// The reference's column-name sanitising, applied to column names only.
pub fn make_safe(name: &str) -> String {
    py_strip(name)
        .replace(' ', "_")
        .replace(['(', ')'], "")
        .replace(['/', '-'], "_")
}

/// SQLite keywords the reference quotes table names for (its own list, not SQLite's).
const RESERVED: &[&str] = &[
    "ABORT",
    "ADD",
    "AFTER",
    "ALL",
    "ALTER",
    "ANALYZE",
    "AND",
    "AS",
    "ASC",
    "ATTACH",
    "AUTOINCREMENT",
    "BEFORE",
    "BETWEEN",
    "BY",
    "CASE",
    "CAST",
    "CHECK",
    "COLLATE",
    "COLUMN",
    "CONSTRAINT",
    "CREATE",
    "CROSS",
    "CURRENT",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "DATABASE",
    "DEFAULT",
    "DEFERRABLE",
    "DEFERRED",
    "DELETE",
    "DESC",
    "DETACH",
    "DISTINCT",
    "DROP",
    "EACH",
    "ELSE",
    "END",
    "ESCAPE",
    "EXCEPT",
    "EXCLUSIVE",
    "EXISTS",
    "EXPLAIN",
    "FAIL",
    "FILTER",
    "FOR",
    "FOREIGN",
    "FROM",
    "GLOB",
    "GROUP",
    "HAVING",
    "IF",
    "IGNORE",
    "IMMEDIATE",
    "IN",
    "INDEX",
    "INDEXED",
    "INNER",
    "INSERT",
    "INSTEAD",
    "INTERSECT",
    "INTO",
    "IS",
    "ISNULL",
    "JOIN",
    "KEY",
    "LEFT",
    "LIKE",
    "LIMIT",
    "MATCH",
    "NATURAL",
    "NO",
    "NOT",
    "NOTNULL",
    "NULL",
    "OF",
    "OFFSET",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "PLAN",
    "PRAGMA",
    "PRIMARY",
    "QUERY",
    "RAISE",
    "RECURSIVE",
    "REFERENCES",
    "REGEXP",
    "REINDEX",
    "RELEASE",
    "ROLLBACK",
    "ROW",
    "SAVEPOINT",
    "SELECT",
    "SET",
    "TABLE",
    "TEMP",
    "TEMPORARY",
    "THEN",
    "TO",
    "TRANSACTION",
    "TRIGGER",
    "UNION",
    "UNIQUE",
    "UPDATE",
    "USING",
    "VACUUM",
    "VALUES",
    "VIEW",
    "VIRTUAL",
    "SQLITE_SEQUENCE",
];

/// The reference's rule (a keyword, or a name `make_safe` changes), and any name that is not
/// a plain identifier: the reference left `a,b` or ``a`b`` unquoted, which let a name add
/// tables to the `FROM`.
fn needs_backticks(table: &str) -> bool {
    RESERVED.contains(&table.to_uppercase().as_str())
        || make_safe(table) != table
        || !table.chars().all(|c| c.is_alphanumeric() || c == '_')
}

const TABLE_LIST_SQL: &str = "SELECT name FROM sqlite_master WHERE type='table';";

/// `pandas.read_sql_query`'s wrapping of a failed statement.
fn execution_failed(sql: &str, msg: &str) -> FrameError {
    FrameError::new(format!("Execution failed on sql '{sql}': {msg}"))
}

fn single_table(source: &Source, args: &InitArgs) -> Result<Table, FrameError> {
    let mut result = None;
    for (alias, spec) in &args.alias_to_table_dict {
        let (columns, rows) = read_table(source, &spec.original_table_name)?;
        let safe: Vec<String> = columns.iter().map(|c| make_safe(c)).collect();
        let names = if alias.is_empty() {
            safe
        } else {
            safe.iter()
                .map(|c| format!("{}_{c}", spec.modified_table_name))
                .collect()
        };
        result = Some(Table::from_sql(names, rows, source.pandas));
    }
    result.ok_or_else(|| {
        FrameError::new(
            "cannot access local variable 'alias' where it is not associated with a value",
        )
    })
}

/// `SELECT * FROM <t>;` and its column names, or the reference's "Did not find table" text.
/// Backticks inside a name are doubled, so a name is always one identifier (a real table's
/// name reads the same as in the reference).
fn read_table(
    source: &Source,
    table: &str,
) -> Result<(Vec<String>, Vec<Vec<SqlValue>>), FrameError> {
    let sql = if needs_backticks(table) {
        format!("SELECT * FROM `{}`;", table.replace('`', "``"))
    } else {
        format!("SELECT * FROM {table};")
    };
    match source.fetch(&sql, &[]) {
        Ok(rows) => {
            let columns = select_star_columns(source, table)?;
            Ok((columns, rows))
        }
        Err(Failure::Limit(e)) => Err(e),
        Err(Failure::Sql(_)) => {
            let names = source
                .fetch(TABLE_LIST_SQL, &[])
                .map_err(|f| f.into_error(|msg| execution_failed(TABLE_LIST_SQL, msg)))?;
            let names: Vec<String> = names
                .into_iter()
                .filter_map(|row| match row.into_iter().next() {
                    Some(SqlValue::Text(t)) => Some(t),
                    _ => None,
                })
                .collect();
            // `df['name'].values`: a numpy array, or under pandas 3 a `StringArray` (when
            // there are names to make a `str` column of).
            let found = if source.pandas == Pandas::V3 && !names.is_empty() {
                crate::pdrepr::string_array_repr(&names)
            } else {
                numpy_str_array(&names)
            };
            Err(FrameError::new(format!(
                "Did not find table '{table}' in connection. Only found {found}"
            )))
        }
    }
}

/// The names `SELECT *` yields: every column that is not a hidden column of a virtual table.
fn select_star_columns(source: &Source, table: &str) -> Result<Vec<String>, FrameError> {
    let sql = "SELECT name, hidden FROM pragma_table_xinfo(?1)";
    let rows = source
        .fetch(sql, &[SqlValue::Text(table.to_owned())])
        .map_err(|f| f.into_error(|msg| FrameError::new(msg)))?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let mut it = row.into_iter();
            match (it.next(), it.next()) {
                (Some(SqlValue::Text(name)), Some(SqlValue::Integer(hidden))) if hidden != 1 => {
                    Some(name)
                }
                _ => None,
            }
        })
        .collect())
}

fn joined_tables(source: &Source, args: &InitArgs) -> Result<Table, FrameError> {
    let dict = &args.alias_to_table_dict;
    let mut table_columns: IndexMap<&str, Vec<String>> = IndexMap::new();
    for (alias, spec) in dict {
        let sql = format!("PRAGMA table_info(\"{}\")", spec.original_table_name);
        let rows = source
            .fetch(&sql, &[])
            .map_err(|f| f.into_error(|msg| FrameError::new(msg)))?;
        let names = rows
            .into_iter()
            .filter_map(|row| match row.into_iter().nth(1) {
                Some(SqlValue::Text(name)) => Some(name),
                _ => None,
            })
            .collect();
        table_columns.insert(alias.as_str(), names);
    }

    let mut select_parts = Vec::new();
    let mut output_names = Vec::new();
    for (alias, spec) in dict {
        for col in &table_columns[alias.as_str()] {
            let out = format!("{}_{}", spec.modified_table_name, make_safe(col));
            select_parts.push(format!("\"{alias}\".\"{col}\" AS \"{out}\""));
            output_names.push(out);
        }
    }

    let (first_alias, first_spec) = dict
        .first()
        .ok_or_else(|| FrameError::new("list index out of range"))?;
    let from_clause = format!(
        "\"{}\" AS \"{first_alias}\"",
        first_spec.original_table_name
    );

    let mut joined = vec![first_alias.as_str()];
    let mut join_clauses = Vec::new();
    for condition in &args.condition_sequence {
        let (left, right) = match (condition.first(), condition.get(1)) {
            (Some(l), Some(r)) => (l, r),
            _ => return Err(FrameError::new("list index out of range")),
        };
        let (left_alias, left_raw) = split_reference(left)?;
        let (right_alias, right_raw) = split_reference(right)?;
        let left_col = resolve_column(&table_columns, left_alias, left_raw);
        let right_col = resolve_column(&table_columns, right_alias, right_raw);
        if !joined.contains(&right_alias) && dict.contains_key(right_alias) {
            join_clauses.push(format!(
                "INNER JOIN \"{}\" AS \"{right_alias}\" ON \"{left_alias}\".\"{left_col}\" = \"{right_alias}\".\"{right_col}\"",
                dict[right_alias].original_table_name
            ));
            joined.push(right_alias);
        } else if !joined.contains(&left_alias) && dict.contains_key(left_alias) {
            join_clauses.push(format!(
                "INNER JOIN \"{}\" AS \"{left_alias}\" ON \"{right_alias}\".\"{right_col}\" = \"{left_alias}\".\"{left_col}\"",
                dict[left_alias].original_table_name
            ));
            joined.push(left_alias);
        }
    }

    let query = format!(
        "SELECT {} FROM {from_clause} {}",
        select_parts.join(", "),
        join_clauses.join(" ")
    );
    let rows = source
        .fetch(&query, &[])
        .map_err(|f| f.into_error(|msg| execution_failed(&query, msg)))?;
    Ok(Table::from_sql(output_names, rows, source.pandas))
}

/// `"alias.column".split('.', 1)` unpacked into two names.
fn split_reference(reference: &str) -> Result<(&str, &str), FrameError> {
    reference
        .split_once('.')
        .ok_or_else(|| FrameError::new("not enough values to unpack (expected 2, got 1)"))
}

/// The column of `alias` equal to `raw` ignoring case, else `raw` itself.
fn resolve_column<'a>(
    columns: &'a IndexMap<&str, Vec<String>>,
    alias: &str,
    raw: &'a str,
) -> &'a str {
    let lowered = raw.to_lowercase();
    columns
        .get(alias)
        .and_then(|cols| cols.iter().find(|c| c.to_lowercase() == lowered))
        .map_or(raw, String::as_str)
}

/// `str(numpy_array)` of an object array of strings, as the reference interpolates
/// `df['name'].values`: reprs separated by spaces, wrapped at 75 columns with a one-space
/// hanging indent, summarised as `first three ... last three` beyond 1000 items.
pub(crate) fn numpy_str_array(items: &[String]) -> String {
    const LINE_WIDTH: usize = 74; // numpy's 75 minus the closing bracket
    const HANGING: &str = " ";
    let words: Vec<String> = items.iter().map(|s| str_repr(s)).collect();
    let summarise = words.len() > 1000;
    let mut sequence: Vec<&str> = Vec::new();
    if summarise {
        sequence.extend(words[..3].iter().map(String::as_str));
        sequence.push("...");
        sequence.extend(words[words.len() - 3..].iter().map(String::as_str));
    } else {
        sequence.extend(words.iter().map(String::as_str));
    }
    let mut text = String::new();
    let mut line = String::from(HANGING);
    let count = sequence.len();
    for (i, word) in sequence.into_iter().enumerate() {
        let too_long = line.chars().count() + word.chars().count() > LINE_WIDTH;
        if too_long && line.chars().count() > HANGING.len() {
            text.push_str(line.trim_end());
            text.push('\n');
            line = String::from(HANGING);
        }
        line.push_str(word);
        if i + 1 < count {
            line.push(' ');
        }
    }
    text.push_str(&line);
    format!("[{}]", &text[HANGING.len()..])
}

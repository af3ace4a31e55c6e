use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use vakra_catalog::{FetchMode as Fetch, is_valid_domain_name};

use crate::SqlValue;

/// What a query produced, in the form the handler asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Fetched {
    /// `fetchone()`: the first row, or `None` when there is none.
    One(Option<Vec<SqlValue>>),
    /// `fetchall()`: every row, possibly none.
    All(Vec<Vec<SqlValue>>),
}

/// Why a query could not run. Every variant is a server-side failure (HTTP 500 in the
/// reference); the text is for logs and for the clearer messages of the quirk-fixed mode.
#[derive(Debug, thiserror::Error)]
pub enum SqlError {
    #[error("invalid domain name {0:?}: only letters, digits and '_' are allowed")]
    InvalidDomain(String),
    #[error("database not found: {}", .0.display())]
    Missing(PathBuf),
    #[error("cannot open database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(
        "Incorrect number of bindings supplied. The current statement uses {expected}, and there are {given} supplied."
    )]
    BindCount { expected: usize, given: usize },
    #[error("statement interrupted after {0:?} (time limit)")]
    Interrupted(Duration),
    #[error("the result holds more than {0} bytes (the limit of this read)")]
    TooLarge(usize),
    #[error("text column holds invalid UTF-8")]
    InvalidUtf8,
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// The databases of a data root, opened lazily by domain name.
///
/// A missing database is not an error until something queries it: the reference starts without
/// databases too and fails on call.
pub struct DatabaseSet {
    root: PathBuf,
    time_limit: Duration,
    open: Mutex<HashMap<String, Arc<Database>>>,
}

impl DatabaseSet {
    /// `root` holds `<domain>/<domain>.sqlite`; statements running longer than `time_limit`
    /// are interrupted.
    pub fn new(root: impl Into<PathBuf>, time_limit: Duration) -> Self {
        Self {
            root: root.into(),
            time_limit,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Where the databases are looked up.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The database of `domain`; nothing is opened until the first query.
    pub fn get(&self, domain: &str) -> Result<Arc<Database>, SqlError> {
        if !is_valid_domain_name(domain) {
            return Err(SqlError::InvalidDomain(domain.to_owned()));
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(db) = open.get(domain) {
            return Ok(Arc::clone(db));
        }
        let db = open.entry(domain.to_owned()).or_insert_with(|| {
            let path = self.root.join(domain).join(format!("{domain}.sqlite"));
            Arc::new(Database::new(path, self.time_limit))
        });
        Ok(Arc::clone(db))
    }
}

/// One read-only SQLite database with a small pool of connections, so that parallel requests
/// do not queue behind one cursor as they do in the reference.
pub struct Database {
    path: PathBuf,
    time_limit: Duration,
    idle: Mutex<Vec<PooledConnection>>,
}

struct PooledConnection {
    conn: Connection,
    /// Milliseconds since [`epoch`] after which the progress handler interrupts the statement.
    deadline_ms: Arc<AtomicU64>,
}

const MAX_IDLE_CONNECTIONS: usize = 4;
/// Pages are read through a shared memory map rather than copied into each connection's cache.
const MMAP_BYTES: i64 = 1 << 30;
const PROGRESS_STEPS: i32 = 10_000;

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64
}

impl Database {
    /// A database at any file, with the same protections as the ones of a [`DatabaseSet`]
    /// (read-only, `query_only`, the time limit): for files named by a client, such as those of
    /// capability 1's hidden `initialize_active_data`, after the caller has confined the path.
    pub fn new(path: PathBuf, time_limit: Duration) -> Self {
        Self {
            path,
            time_limit,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The file this database is read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file exists; used for readiness reports, not as a gate.
    pub fn exists(&self) -> bool {
        self.path.is_file()
    }

    /// Runs one statement with positional bindings and fetches as asked.
    pub fn query(&self, sql: &str, binds: &[SqlValue], fetch: Fetch) -> Result<Fetched, SqlError> {
        self.query_within(sql, binds, fetch, usize::MAX)
    }

    /// [`Database::query`] that stops fetching with [`SqlError::TooLarge`] once the rows
    /// fetched so far take more than `max_bytes` (estimated as [`SqlValue::estimated_bytes`]),
    /// so that a statement yielding endless rows cannot exhaust memory before its time limit.
    pub fn query_within(
        &self,
        sql: &str,
        binds: &[SqlValue],
        fetch: Fetch,
        max_bytes: usize,
    ) -> Result<Fetched, SqlError> {
        let pooled = self.acquire()?;
        let result = run(&pooled, sql, binds, fetch, self.time_limit, max_bytes);
        self.release(pooled);
        result
    }

    fn acquire(&self) -> Result<PooledConnection, SqlError> {
        if let Some(conn) = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(conn);
        }
        self.open_connection()
    }

    fn release(&self, conn: PooledConnection) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE_CONNECTIONS {
            idle.push(conn);
        }
    }

    fn open_connection(&self) -> Result<PooledConnection, SqlError> {
        let conn = open_read_only(&self.path)?;
        conn.set_prepared_statement_cache_capacity(256);
        let deadline_ms = Arc::new(AtomicU64::new(u64::MAX));
        let watched = Arc::clone(&deadline_ms);
        conn.progress_handler(
            PROGRESS_STEPS,
            // Also when the tool call running the statement was stopped (`vakra_interrupt`).
            Some(move || now_ms() > watched.load(Ordering::Relaxed) || vakra_interrupt::stopped()),
        );
        Ok(PooledConnection { conn, deadline_ms })
    }
}

/// Opens `path` as every pooled connection is opened: read-only, `immutable=1`, `query_only`,
/// pages read through a memory map; without the pool's time limit and statement cache. For
/// measuring SQLite alone on the same files (the REST benchmark's ceiling).
pub fn open_read_only(path: &Path) -> Result<Connection, SqlError> {
    if !path.is_file() {
        return Err(SqlError::Missing(path.to_path_buf()));
    }
    crate::configure_sqlite();
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let open_err = |source| SqlError::Open {
        path: path.to_path_buf(),
        source,
    };
    let conn = Connection::open_with_flags(immutable_uri(path), flags).map_err(open_err)?;
    conn.pragma_update(None, "query_only", true)
        .map_err(open_err)?;
    conn.pragma_update(None, "mmap_size", MMAP_BYTES)
        .map_err(open_err)?;
    Ok(conn)
}

/// A `file:` URI with `immutable=1`: benchmark databases never change while served, so SQLite
/// can skip file locking and change detection on every statement (a tenth of the time of a
/// typical REST-BIRD query otherwise goes to `fcntl` locks).
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'%' | b'?' | b'#' | 0x80.. => uri.push_str(&format!("%{byte:02X}")),
            _ => uri.push(byte as char),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

fn run(
    pooled: &PooledConnection,
    sql: &str,
    binds: &[SqlValue],
    fetch: Fetch,
    time_limit: Duration,
    max_bytes: usize,
) -> Result<Fetched, SqlError> {
    let deadline = now_ms().saturating_add(time_limit.as_millis() as u64);
    pooled.deadline_ms.store(deadline, Ordering::Relaxed);
    let interrupted = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::OperationInterrupted) => SqlError::Interrupted(time_limit),
        _ => SqlError::Sqlite(e),
    };
    let result = (|| {
        let mut stmt = pooled.conn.prepare_cached(sql).map_err(interrupted)?;
        let expected = stmt.parameter_count();
        if expected != binds.len() {
            return Err(SqlError::BindCount {
                expected,
                given: binds.len(),
            });
        }
        let columns = stmt.column_count();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(binds.iter()))
            .map_err(interrupted)?;
        let mut fetched = Vec::new();
        let mut bytes = 0usize;
        while let Some(row) = rows.next().map_err(interrupted)? {
            let mut cells = Vec::with_capacity(columns);
            for i in 0..columns {
                let cell = row.get_ref(i)?;
                let value = SqlValue::from_ref(cell).map_err(|_| SqlError::InvalidUtf8)?;
                bytes = bytes.saturating_add(value.estimated_bytes());
                cells.push(value);
            }
            if bytes > max_bytes {
                return Err(SqlError::TooLarge(max_bytes));
            }
            fetched.push(cells);
            if fetch == Fetch::One {
                break;
            }
        }
        Ok(match fetch {
            Fetch::One => Fetched::One(fetched.pop()),
            Fetch::All => Fetched::All(fetched),
        })
    })();
    pooled.deadline_ms.store(u64::MAX, Ordering::Relaxed);
    result
}

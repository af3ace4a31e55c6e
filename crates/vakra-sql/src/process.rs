//! Process-wide SQLite settings, made once before the first connection opens.

use std::sync::Once;

/// Turns off SQLite's memory statistics for the process (`SQLITE_CONFIG_MEMSTATUS`): with
/// them on, every allocation SQLite makes takes and releases one global mutex, a few percent
/// of a REST request's time, and nothing here reads the statistics or sets heap limits.
///
/// SQLite accepts the setting only before it initialises; a later call (another component
/// opened a connection first) leaves the statistics on, which changes speed, never results.
pub fn configure_sqlite() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: SQLITE_CONFIG_MEMSTATUS takes one int argument; sqlite3_config is safe to
        // call before initialisation and answers SQLITE_MISUSE (ignored) after it.
        unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            );
        }
    });
}

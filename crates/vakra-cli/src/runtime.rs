//! The async runtime of the commands that run to an end (`eval`, `run`, `mcp`), and how it
//! closes: work that was given up on (a call still running on a blocking thread, a server
//! process being killed) gets a short, bounded time to finish, and never holds the exit.

use std::time::Duration;

use tokio::runtime::Runtime;

/// How long closing waits for work still running; enough for dropped tasks to kill the server
/// processes they started, short enough that nobody waits on a call that was given up on.
const CLOSE_TIME: Duration = Duration::from_millis(500);

/// A multi-threaded runtime, with `workers` threads (the number of cores when `None`).
pub fn build(workers: Option<usize>) -> std::io::Result<Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(workers) = workers {
        builder.worker_threads(workers);
    }
    builder.enable_all().build()
}

/// Closes the runtime: its tasks are dropped (killing the server processes they own), and
/// blocking work still running is waited on for at most [`CLOSE_TIME`].
pub fn close(runtime: Runtime) {
    runtime.shutdown_timeout(CLOSE_TIME);
}

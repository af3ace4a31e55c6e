//! Session traces: one JSONL file per MCP session with every tool call and the text the agent
//! got back (`docs/traces.md`).
//!
//! [`Traced`] wraps the [`EnvServer`] of a session on every transport, so all capabilities are
//! recorded the same way and what the agent sees does not change: the wrapper only copies the
//! request and the answer. Writing never fails a call; IO errors are logged.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use chrono::{DateTime, SecondsFormat, Utc};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, Extensions, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{EnvServer, SessionSpec};

/// One line of a trace file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TraceLine {
    /// The first line: which session this is.
    Session(SessionHeader),
    /// One `tools/call` and its answer.
    Call(CallRecord),
}

/// What a trace is about, so that a file can be read without knowing how it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionHeader {
    /// The MCP session id (`Mcp-Session-Id` over HTTP; a random UUID over stdio).
    pub session_id: String,
    /// The capability, 1–4.
    pub capability: u8,
    /// The session's `MCP_DOMAIN` items.
    pub domains: Vec<String>,
    /// When the session's server was created (RFC 3339, UTC).
    pub started_at: String,
    /// The `vakra` version that served it.
    pub vakra_version: String,
}

/// One tool call as the agent made and saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The tool name as sent.
    pub tool: String,
    /// The arguments as sent (`null` when the request had none).
    pub arguments: Value,
    /// The result's text contents, joined by newlines (every server answers with one text);
    /// `null` when the call got a JSON-RPC error (or anything but a complete result).
    pub text: Option<String>,
    /// The result's `isError` flag.
    pub is_error: bool,
    /// The JSON-RPC error, when the call got one instead of a result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ProtocolError>,
    /// When the call arrived (RFC 3339, UTC).
    pub started_at: String,
    /// How long the server took, in milliseconds.
    pub duration_ms: f64,
}

/// A JSON-RPC error answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtocolError {
    /// The JSON-RPC error code.
    pub code: i32,
    /// The error message the client got.
    pub message: String,
}

/// A trace file read back: its header and its calls in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The session line.
    pub header: SessionHeader,
    /// The call lines, in file order.
    pub calls: Vec<CallRecord>,
}

/// Why a trace file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// A line (1-based) is not what `docs/traces.md` describes.
    #[error("{path}:{line}: {message}")]
    Format {
        path: String,
        line: usize,
        message: String,
    },
}

impl Trace {
    /// Reads one trace file: a session line first, then call lines (blank lines are skipped).
    pub fn read(path: &Path) -> Result<Trace, TraceError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| TraceError::Io {
            path: shown.clone(),
            source,
        })?;
        let format = |line: usize, message: String| TraceError::Format {
            path: shown.clone(),
            line,
            message,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| (i + 1, serde_json::from_str::<TraceLine>(l)));
        let header = match lines.next() {
            Some((_, Ok(TraceLine::Session(header)))) => header,
            Some((n, Ok(TraceLine::Call(_)))) => {
                return Err(format(n, "the first line must be the session line".into()));
            }
            Some((n, Err(e))) => return Err(format(n, e.to_string())),
            None => return Err(format(1, "empty trace".into())),
        };
        let mut calls = Vec::new();
        for (n, line) in lines {
            match line {
                Ok(TraceLine::Call(call)) => calls.push(call),
                Ok(TraceLine::Session(_)) => {
                    return Err(format(n, "more than one session line".into()));
                }
                Err(e) => return Err(format(n, e.to_string())),
            }
        }
        Ok(Trace { header, calls })
    }
}

/// How much call text traces may hold: per session and over the whole process
/// (`--trace-max-session-bytes`, `--trace-max-total-bytes`). A call line beyond either is not
/// written (the trace ends there, and the log says so once per session).
#[derive(Debug, Clone)]
pub struct TraceLimits {
    pub session_bytes: u64,
    pub total_bytes: u64,
    written: Arc<AtomicU64>,
}

impl TraceLimits {
    pub fn new(session_bytes: u64, total_bytes: u64) -> Self {
        Self {
            session_bytes,
            total_bytes,
            written: Arc::default(),
        }
    }

    /// Takes `n` bytes of the process's allowance, or refuses.
    fn take_total(&self, n: u64) -> bool {
        self.written
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
                (w + n <= self.total_bytes).then_some(w + n)
            })
            .is_ok()
    }
}

impl Default for TraceLimits {
    /// 64 MiB per session, 4 GiB in all.
    fn default() -> Self {
        Self::new(64 << 20, 4 << 30)
    }
}

/// An MCP session's server that records its tool calls when a trace directory is set.
#[derive(Clone)]
pub struct Traced {
    server: EnvServer,
    trace: Option<Arc<SessionTrace>>,
}

impl Traced {
    /// Wraps the server of one session; with `dir`, the session's trace goes there (the file
    /// is created on the session's first notification or request, once its id is known).
    pub fn new(
        server: EnvServer,
        spec: &SessionSpec,
        dir: Option<&Path>,
        limits: &TraceLimits,
    ) -> Self {
        let trace = dir.map(|dir| Arc::new(SessionTrace::new(dir, spec, limits)));
        Self { server, trace }
    }
}

struct SessionTrace {
    dir: PathBuf,
    capability: u8,
    domains: Vec<String>,
    started_at: DateTime<Utc>,
    file: OnceLock<Option<Mutex<File>>>,
    limits: TraceLimits,
    /// Call bytes written for this session.
    written: AtomicU64,
    /// Set once a line was refused (the log says so once).
    full: AtomicBool,
}

fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// The session id the HTTP transport assigned (requests after `initialize` carry it).
fn http_session_id(extensions: &Extensions) -> Option<String> {
    let parts = extensions.get::<axum::http::request::Parts>()?;
    let id = parts.headers.get("mcp-session-id")?.to_str().ok()?;
    (!id.is_empty()).then(|| id.to_owned())
}

/// A file name that cannot leave the directory or surprise a shell: ASCII letters, digits,
/// `-` and `_`, at most 100 characters.
fn file_stem(session_id: &str) -> String {
    let stem: String = session_id
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "session".into()
    } else {
        stem
    }
}

/// Creates `<stem>.jsonl`, or `<stem>-<n>.jsonl` when that exists (never overwrites a trace).
fn create_file(dir: &Path, stem: &str) -> std::io::Result<(PathBuf, File)> {
    let mut n = 0;
    loop {
        let name = if n == 0 {
            format!("{stem}.jsonl")
        } else {
            format!("{stem}-{n}.jsonl")
        };
        let path = dir.join(name);
        match File::options().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Writes one line in one `write` call on an unbuffered file: flushed as it is written.
fn write_line(file: &mut File, line: &TraceLine) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(line).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    file.write_all(&bytes)
}

impl SessionTrace {
    fn new(dir: &Path, spec: &SessionSpec, limits: &TraceLimits) -> Self {
        Self {
            dir: dir.to_owned(),
            capability: spec.capability.number(),
            domains: spec.domains.clone(),
            started_at: Utc::now(),
            file: OnceLock::new(),
            limits: limits.clone(),
            written: AtomicU64::new(0),
            full: AtomicBool::new(false),
        }
    }

    /// Whether `n` more bytes fit this session's and the process's allowances (taken if so).
    fn fits(&self, n: u64) -> bool {
        if self.full.load(Ordering::SeqCst) {
            return false;
        }
        let session = self.written.load(Ordering::SeqCst) + n <= self.limits.session_bytes;
        if session && self.limits.take_total(n) {
            self.written.fetch_add(n, Ordering::SeqCst);
            return true;
        }
        if !self.full.swap(true, Ordering::SeqCst) {
            tracing::warn!(
                "a session trace in {} reached its limit ({} bytes per session, {} in all: \
                 --trace-max-session-bytes, --trace-max-total-bytes); its later calls are not \
                 recorded",
                self.dir.display(),
                self.limits.session_bytes,
                self.limits.total_bytes
            );
        }
        false
    }

    fn file(&self, extensions: &Extensions) -> Option<&Mutex<File>> {
        self.file
            .get_or_init(|| {
                let session_id =
                    http_session_id(extensions).unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
                let header = TraceLine::Session(SessionHeader {
                    session_id: session_id.clone(),
                    capability: self.capability,
                    domains: self.domains.clone(),
                    started_at: timestamp(self.started_at),
                    vakra_version: env!("CARGO_PKG_VERSION").to_owned(),
                });
                let opened =
                    create_file(&self.dir, &file_stem(&session_id)).and_then(|(path, mut file)| {
                        write_line(&mut file, &header).map(|()| file).map_err(|e| {
                            std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
                        })
                    });
                match opened {
                    Ok(file) => Some(Mutex::new(file)),
                    Err(e) => {
                        tracing::error!(
                            "session {session_id}: the trace cannot be written in {}: {e}",
                            self.dir.display()
                        );
                        None
                    }
                }
            })
            .as_ref()
    }

    fn record(&self, extensions: &Extensions, call: CallRecord) {
        let Some(file) = self.file(extensions) else {
            return;
        };
        let mut bytes = match serde_json::to_vec(&TraceLine::Call(call)) {
            Ok(bytes) => bytes,
            Err(e) => return tracing::error!("a trace line was not written: {e}"),
        };
        bytes.push(b'\n');
        if !self.fits(bytes.len() as u64) {
            return;
        }
        let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(&bytes) {
            tracing::error!("a trace line was not written: {e}");
        }
    }
}

fn call_record(
    request: &CallToolRequestParams,
    response: &Result<CallToolResponse, ErrorData>,
    started_at: DateTime<Utc>,
    duration_ms: f64,
) -> CallRecord {
    let (text, is_error, error) = match response {
        Ok(CallToolResponse::Complete(result)) => {
            let texts: Vec<&str> = result
                .content
                .iter()
                .filter_map(|c| match c {
                    ContentBlock::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect();
            (
                Some(texts.join("\n")),
                result.is_error.unwrap_or(false),
                None,
            )
        }
        // Input requests and tasks: no server here answers with them.
        Ok(_) => (None, false, None),
        Err(e) => (
            None,
            true,
            Some(ProtocolError {
                code: e.code.0,
                message: e.message.to_string(),
            }),
        ),
    };
    CallRecord {
        tool: request.name.to_string(),
        arguments: request.arguments.clone().map_or(Value::Null, Value::Object),
        text,
        is_error,
        error,
        started_at: timestamp(started_at),
        duration_ms,
    }
}

impl ServerHandler for Traced {
    fn get_info(&self) -> ServerConfig {
        self.server.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.server.supported_protocol_versions()
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(trace) = &self.trace {
            trace.file(&context.extensions);
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if let Some(trace) = &self.trace {
            trace.file(&context.extensions);
        }
        self.server.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let request = crate::incoming::with_deep_arguments(request, &context.extensions);
        match crate::incoming::big_integers(&context.extensions) {
            Some(found) => {
                vakra_pyjson::digits::WithDigits::new(found.0, self.traced_call(request, context))
                    .await
            }
            None => self.traced_call(request, context).await,
        }
    }
}

impl Traced {
    async fn traced_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(trace) = &self.trace else {
            return self.server.call_tool(request, context).await;
        };
        let extensions = context.extensions.clone();
        let started_at = Utc::now();
        let clock = Instant::now();
        let response = self.server.call_tool(request.clone(), context).await;
        let duration_ms = clock.elapsed().as_secs_f64() * 1000.0;
        let record = call_record(&request, &response, started_at, duration_ms);
        // File IO (and the file's lock) off the async workers.
        let trace = Arc::clone(trace);
        let written = tokio::task::spawn_blocking(move || trace.record(&extensions, record));
        if let Err(e) = written.await {
            tracing::error!("a trace line was not written: {e}");
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_stop_at_their_limits() {
        let dir = tempfile::tempdir().unwrap();
        let spec = SessionSpec::new(crate::Capability::Two, "library");
        let limits = TraceLimits::new(2_000, 3_000);
        let call = || {
            let request = CallToolRequestParams::new("get_x");
            let response = Ok(crate::text_result("y".repeat(300), false).into());
            call_record(&request, &response, Utc::now(), 1.0)
        };
        let first = SessionTrace::new(dir.path(), &spec, &limits);
        let second = SessionTrace::new(dir.path(), &spec, &limits);
        // The first session stops at its own limit, the second at what is left in all.
        for _ in 0..20 {
            first.record(&Extensions::new(), call());
        }
        for _ in 0..20 {
            second.record(&Extensions::new(), call());
        }
        let mut calls = Vec::new();
        for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let trace = Trace::read(&entry.path()).unwrap();
            calls.push(trace.calls.len());
        }
        calls.sort();
        let line = serde_json::to_vec(&TraceLine::Call(call())).unwrap().len() as u64 + 1;
        let per_session = (2_000 / line) as usize;
        let in_all = (3_000 / line) as usize;
        assert!(per_session >= 1 && in_all < 2 * per_session, "{line}");
        assert_eq!(calls, [in_all - per_session, per_session]);
    }

    #[test]
    fn file_names_stay_in_the_directory() {
        assert_eq!(file_stem("../../etc/passwd"), "______etc_passwd");
        assert_eq!(file_stem(""), "session");
        assert_eq!(file_stem("ab-12_CD"), "ab-12_CD");
        assert_eq!(file_stem(&"x".repeat(300)).len(), 100);
    }

    #[test]
    fn an_existing_trace_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let (first, _) = create_file(dir.path(), "s").unwrap();
        let (second, _) = create_file(dir.path(), "s").unwrap();
        assert_eq!(first.file_name().unwrap(), "s.jsonl");
        assert_eq!(second.file_name().unwrap(), "s-1.jsonl");
    }

    /// A call answered with a JSON-RPC error is written as `docs/traces.md` describes (no text,
    /// `is_error`, the error's code and message) and read back as written.
    #[test]
    fn protocol_errors_are_traced_and_read_back() {
        let mut arguments = serde_json::Map::new();
        arguments.insert("data_label".into(), Value::from("retrieved_book_1"));
        let request = CallToolRequestParams::new("sort_data").with_arguments(arguments);
        let started_at = DateTime::parse_from_rfc3339("2026-05-30T09:12:03.25Z")
            .unwrap()
            .with_timezone(&Utc);
        let response = Err(ErrorData::internal_error("the session is gone", None));
        let record = call_record(&request, &response, started_at, 1.5);
        let line = serde_json::to_value(TraceLine::Call(record.clone())).unwrap();
        assert_eq!(
            line,
            serde_json::json!({
                "type": "call", "tool": "sort_data",
                "arguments": {"data_label": "retrieved_book_1"},
                "text": null, "is_error": true,
                "error": {"code": -32603, "message": "the session is gone"},
                "started_at": "2026-05-30T09:12:03.250000Z", "duration_ms": 1.5,
            })
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let header = r#"{"type":"session","session_id":"s","capability":1,"domains":["library"],"started_at":"t","vakra_version":"0"}"#;
        std::fs::write(&path, format!("{header}\n{line}\n")).unwrap();
        assert_eq!(Trace::read(&path).unwrap().calls, vec![record]);
    }

    #[test]
    fn bad_trace_files_are_reported_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let error = |content: &str| {
            std::fs::write(&path, content).unwrap();
            Trace::read(&path).unwrap_err().to_string()
        };
        let header = r#"{"type":"session","session_id":"s","capability":2,"domains":["library"],"started_at":"t","vakra_version":"0"}"#;
        let e = error("{\"type\":\"call\"}\n");
        assert!(e.ends_with("t.jsonl:1: missing field `tool`"), "{e}");
        assert!(error("").ends_with("t.jsonl:1: empty trace"));
        let e = error(&format!("{header}\n\n{header}\n"));
        assert!(e.ends_with("t.jsonl:3: more than one session line"), "{e}");
        assert!(error(&format!("{header}\nnot json\n")).contains("t.jsonl:2: expected"));
        let e = error(
            r#"{"type":"call","tool":"x","arguments":null,"text":null,"is_error":false,"started_at":"t","duration_ms":1}"#,
        );
        assert!(
            e.ends_with("t.jsonl:1: the first line must be the session line"),
            "{e}"
        );
    }
}

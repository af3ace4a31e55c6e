//! What `vakra serve` bounds before any handler runs, so that slow or many clients cannot take
//! the server's memory or descriptors: a whole request body must arrive within a time limit,
//! the bytes of bodies being received at once share one budget (with the bytes an episode's
//! WebSocket has read and not yet delivered as a message), and the number of open
//! connections stays below the descriptor limit. Each refusal is a clear answer, and the log
//! lines about them are rate-limited.

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use vakra_lanes::{Share, Shares, Throttled};

/// The body limits of one server.
#[derive(Clone)]
pub struct BodyGuard {
    /// The longest a client may take to send a whole body.
    pub time_limit: Duration,
    /// The largest body (413 beyond).
    pub max_body_bytes: usize,
    /// Bytes of bodies being received at once, over all connections.
    budget: Arc<Semaphore>,
    budget_bytes: usize,
    refusals: Arc<Throttled>,
    /// Upgraded connections closed for the budget (logged apart from refused bodies).
    closes: Arc<Throttled>,
}

impl BodyGuard {
    pub fn new(time_limit: Duration, max_body_bytes: usize, budget_bytes: usize) -> Self {
        Self {
            time_limit,
            max_body_bytes,
            budget: Arc::new(Semaphore::new(budget_bytes.min(Semaphore::MAX_PERMITS))),
            budget_bytes,
            refusals: Arc::new(Throttled::new()),
            closes: Arc::new(Throttled::new()),
        }
    }

    /// The charge of one connection's upgraded bytes against this guard's budget.
    pub fn charge(&self) -> Arc<Charge> {
        Arc::new(Charge {
            guard: self.clone(),
            armed: AtomicBool::new(false),
            held: Mutex::new(None),
        })
    }
}

/// What one connection, once upgraded (an episode's WebSocket), has read and not yet delivered
/// as a whole message, held against the body budget: a half-sent frame costs what a half-sent
/// body costs. Beyond the budget the connection's reads fail, so it is closed.
pub struct Charge {
    guard: BodyGuard,
    armed: AtomicBool,
    held: Mutex<Option<OwnedSemaphorePermit>>,
}

impl Charge {
    fn take(&self, n: usize) -> std::io::Result<()> {
        if n == 0 || !self.armed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let permit = u32::try_from(n).ok().and_then(|n| {
            Arc::clone(&self.guard.budget)
                .try_acquire_many_owned(n)
                .ok()
        });
        let Some(permit) = permit else {
            let message = format!(
                "an episode's connection was closed: the server is receiving {} bytes of \
                 request bodies and WebSocket messages already (--max-body-bytes-in-flight)",
                self.guard.budget_bytes
            );
            let _ = self.guard.closes.warn(&message);
            return Err(std::io::Error::other(message));
        };
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        match held.as_mut() {
            Some(all) => all.merge(permit),
            None => *held = Some(permit),
        }
        Ok(())
    }
}

impl vakra_episodes::ReadCharge for Charge {
    fn arm(&self) {
        self.armed.store(true, Ordering::Relaxed);
    }

    fn settle(&self) {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// A connection's stream whose reads are charged to its [`Charge`] (once armed).
pub struct Counted<S> {
    pub inner: S,
    pub charge: Arc<Charge>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = read {
            self.charge.take(buf.filled().len() - before)?;
        }
        read
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// Why a body was not taken.
enum Refusal {
    Late,
    TooLarge,
    Busy,
    Broken(String),
}

/// Receives the whole request body under the guard's limits before the handler sees it; the
/// bytes stay counted against the budget until the handler has answered.
pub async fn guard_body(
    State(guard): State<Arc<BodyGuard>>,
    request: Request,
    next: Next,
) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared == Some(0) || (declared.is_none() && !has_body(&request)) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let (bytes, _held) = match receive(&guard, body, declared).await {
        Ok(received) => received,
        Err(refusal) => return refuse(&guard, refusal),
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Whether a request without `Content-Length` has a body (`Transfer-Encoding`).
fn has_body(request: &Request) -> bool {
    request.headers().contains_key(header::TRANSFER_ENCODING)
}

async fn receive(
    guard: &BodyGuard,
    body: Body,
    declared: Option<u64>,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Refusal> {
    if declared.is_some_and(|n| n > guard.max_body_bytes as u64) {
        return Err(Refusal::TooLarge);
    }
    let deadline = tokio::time::Instant::now() + guard.time_limit;
    let mut held: Option<OwnedSemaphorePermit> = None;
    let mut take = |n: usize| -> Result<(), Refusal> {
        if n == 0 {
            return Ok(());
        }
        let n = u32::try_from(n).map_err(|_| Refusal::TooLarge)?;
        let permit = Arc::clone(&guard.budget)
            .try_acquire_many_owned(n)
            .map_err(|_| Refusal::Busy)?;
        match held.as_mut() {
            Some(all) => all.merge(permit),
            None => held = Some(permit),
        }
        Ok(())
    };
    // A declared length is reserved at once, so that a refusal comes before any byte is read.
    let mut counted = declared.unwrap_or(0) as usize;
    take(counted)?;
    let mut buffer = Vec::with_capacity(declared.unwrap_or(0) as usize);
    let mut stream = body.into_data_stream();
    loop {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Err(_) => return Err(Refusal::Late),
            Ok(None) => break,
            Ok(Some(Err(e))) => return Err(Refusal::Broken(e.to_string())),
            Ok(Some(Ok(chunk))) => chunk,
        };
        if buffer.len() + chunk.len() > guard.max_body_bytes {
            return Err(Refusal::TooLarge);
        }
        let total = buffer.len() + chunk.len();
        if total > counted {
            take(total - counted)?;
            counted = total;
        }
        buffer.extend_from_slice(&chunk);
    }
    Ok((Bytes::from(buffer), held))
}

fn refuse(guard: &BodyGuard, refusal: Refusal) -> Response {
    let (status, message) = match refusal {
        Refusal::Late => (
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s (--body-time-limit)",
                guard.time_limit.as_secs_f64()
            ),
        ),
        Refusal::TooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request body is larger than this server's limit of {} bytes (--max-body-bytes)",
                guard.max_body_bytes
            ),
        ),
        Refusal::Busy => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the server is receiving {} bytes of request bodies already \
                 (--max-body-bytes-in-flight); retry shortly",
                guard.budget_bytes
            ),
        ),
        Refusal::Broken(reason) => (
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {reason}"),
        ),
    };
    if status != StatusCode::PAYLOAD_TOO_LARGE {
        let _ = guard.refusals.warn(&message);
    }
    let mut response = (status, axum::Json(serde_json::json!({"error": message}))).into_response();
    response.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    response
}

/// Open connections, kept below the process's descriptor limit, and at most a share of them
/// for one client address, so that one client holding connections (event streams, idle
/// sockets) cannot keep others, or a health check, out.
pub struct Connections {
    slots: Arc<Semaphore>,
    max: usize,
    clients: Shares,
    refusals: Throttled,
}

/// A connection's place; freed on drop.
pub struct Place {
    _slot: OwnedSemaphorePermit,
    _share: Share,
}

/// Why a connection was refused.
pub enum Full {
    /// All places are taken.
    Server,
    /// Its client holds its share.
    Client(IpAddr),
}

/// Descriptors kept for everything but client connections (databases, indexes, traces, logs).
const RESERVED_DESCRIPTORS: u64 = 256;

impl Connections {
    /// At most `max` connections, or (`None`) as many as the descriptor limit allows once it
    /// is raised to its hard maximum, less a reserve for the server's own files; at most
    /// `per_client` of them (default: half) from one client address.
    pub fn new(max: Option<usize>, per_client: Option<usize>) -> Self {
        let max = max.unwrap_or_else(|| {
            let limit = raise_descriptor_limit();
            let usable = limit
                .saturating_sub(RESERVED_DESCRIPTORS)
                .clamp(16, 1 << 20);
            usize::try_from(usable).unwrap_or(1 << 20)
        });
        Self {
            slots: Arc::new(Semaphore::new(max.clamp(1, Semaphore::MAX_PERMITS))),
            max,
            clients: Shares::new(per_client.unwrap_or(max / 2).clamp(1, max.max(1))),
            refusals: Throttled::new(),
        }
    }

    pub fn max(&self) -> usize {
        self.max
    }

    pub fn per_client(&self) -> usize {
        self.clients.per_client()
    }

    /// A place for a new connection of `client`, or why there is none.
    pub fn admit(&self, client: IpAddr) -> Result<Place, Full> {
        let slot = Arc::clone(&self.slots)
            .try_acquire_owned()
            .map_err(|_| Full::Server)?;
        let share = self
            .clients
            .take(vakra_lanes::Client(client))
            .ok_or(Full::Client(client))?;
        Ok(Place {
            _slot: slot,
            _share: share,
        })
    }

    /// Answers a connection beyond a cap with 503 and closes it (one non-blocking write: a
    /// client that does not read gets nothing).
    pub fn refuse(&self, stream: tokio::net::TcpStream, full: Full) {
        let message = match full {
            Full::Server => format!(
                "too many connections: this server keeps at most {} open at once (--max-connections); retry shortly",
                self.max
            ),
            Full::Client(client) => format!(
                "too many connections from {client}: this server keeps at most {} open at once for one client address (--max-client-connections); close some or retry shortly",
                self.clients.per_client()
            ),
        };
        let _ = self.refusals.warn(&message);
        let body = serde_json::json!({"error": message}).to_string();
        let response = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.try_write(response.as_bytes());
    }

    /// Logs a failed `accept` (rate-limited).
    pub fn accept_failed(&self, error: &std::io::Error) {
        self.refusals
            .warn(&format!("accepting a connection failed: {error}"));
    }
}

/// Raises the soft limit of open descriptors to the hard one; returns the soft limit now in
/// force.
fn raise_descriptor_limit() -> u64 {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit/setrlimit only read and write the struct given.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return 1024;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    rlim_max: limit.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit.rlim_cur = limit.rlim_max;
                }
            }
        }
        limit.rlim_cur
    }
    #[cfg(not(unix))]
    {
        1024
    }
}

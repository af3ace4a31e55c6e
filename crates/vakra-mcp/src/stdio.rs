//! The stdio transport: one JSON-RPC message per line, read from stdin watched for its end.
//!
//! rmcp's own stdio transport drops a line longer than its limit (16 MiB) with a log line and
//! no answer, and ignores one nested deeper than serde_json reads; the client then waits
//! forever. [`LineTransport`] reads lines itself: a line over the limit is discarded as it
//! arrives (never more than the limit is held) and answered with an `Invalid request` error
//! carrying the request's id when its first or last bytes show it; lines are parsed as deep as
//! Python's `json` reads ([`crate::incoming`]).
//!
//! Back-pressure: a request read holds one of `max_unanswered` places until its answer is
//! written (or the client cancels it); with all places taken no line is read, so a client that
//! never reads its answers makes the server hold at most that many, not every answer it asked
//! for (`vakra mcp --max-unanswered`).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_util::SinkExt;
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ErrorData, RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::JsonRpcMessageCodec;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::codec::FramedWrite;
use tokio_util::sync::CancellationToken;

use crate::incoming::{self, Incoming};

/// Requests read and not yet answered at most, by default (`vakra mcp --max-unanswered`).
pub const MAX_UNANSWERED: usize = 64;

/// The longest line read, newline included: rmcp's limit for its stdio transport.
pub(crate) const MAX_LINE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Past this length a line's buffer takes the largest size at once (address space only: pages
/// become resident as the line fills them). Growing it by doubling holds the old and the new
/// buffer together at every step, and mimalloc keeps the pages of the old ones: for a 16 MiB
/// line, doubling all the way came to 41 MiB resident, doubling up to 1 MiB to 26 MiB, up to
/// 64 KiB to 18 MiB.
const GROW_AT_ONCE: usize = 64 << 10;

/// How many of an over-long line's first and last bytes are kept to find its id.
const HEAD_BYTES: usize = 4096;
const TAIL_BYTES: usize = 256;

type Writer<W> =
    Arc<tokio::sync::Mutex<Option<FramedWrite<W, JsonRpcMessageCodec<ServerJsonRpcMessage>>>>>;

/// The server's side of a stdio session: messages read line by line from `R`, answers written
/// to `W`.
pub(crate) struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far (at most `max_line` bytes).
    line: Vec<u8>,
    /// The line being discarded, once it outgrew `max_line`.
    skipped: Option<Skipped>,
    max_line: usize,
    write: Writer<W>,
    /// The places of requests read and not yet answered.
    places: Arc<Semaphore>,
    max_unanswered: usize,
    /// The place the next request read will hold, taken before its line is read.
    place: Option<OwnedSemaphorePermit>,
    unanswered: Arc<Mutex<HashMap<RequestId, OwnedSemaphorePermit>>>,
    stalled: vakra_lanes::Throttled,
}

/// What is kept of a line too long to read.
#[derive(Default)]
struct Skipped {
    head: Vec<u8>,
    tail: Vec<u8>,
    bytes: usize,
}

impl Skipped {
    /// Takes in the next bytes of the line (without its line end).
    fn pass(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len();
        let room = HEAD_BYTES.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        let keep = &bytes[bytes.len().saturating_sub(TAIL_BYTES)..];
        let drop = (self.tail.len() + keep.len()).saturating_sub(TAIL_BYTES);
        self.tail.drain(..drop);
        self.tail.extend_from_slice(keep);
    }

    fn answer(&self, max_line: usize) -> ServerJsonRpcMessage {
        let message = format!(
            "Invalid request: the message is {} bytes long, more than this server's limit of \
             {max_line} bytes for one line over stdio",
            self.bytes
        );
        ServerJsonRpcMessage::error(
            ErrorData::invalid_request(message, None),
            incoming::recover_id(&self.head, &self.tail),
        )
    }
}

/// What reading up to the next line end gave.
enum Line {
    /// A whole line is in `line` (its line end included).
    Whole,
    TooLong(Skipped),
    End,
}

impl<R: AsyncRead + Send + Unpin, W: AsyncWrite + Send + Unpin + 'static> LineTransport<R, W> {
    /// Lines of at most `max_line` bytes, at most `max_unanswered` requests awaiting their
    /// answers.
    pub(crate) fn new(read: R, write: W, max_line: usize, max_unanswered: usize) -> Self {
        let write = FramedWrite::new(write, JsonRpcMessageCodec::default());
        let max_unanswered = max_unanswered.max(1);
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            skipped: None,
            max_line,
            write: Arc::new(tokio::sync::Mutex::new(Some(write))),
            places: Arc::new(Semaphore::new(max_unanswered)),
            max_unanswered,
            place: None,
            unanswered: Arc::default(),
            stalled: vakra_lanes::Throttled::new(),
        }
    }

    /// Waits for a place for the next request (cancel-safe: a place taken is kept).
    async fn take_place(&mut self) {
        if self.place.is_some() {
            return;
        }
        if self.places.available_permits() == 0 {
            self.stalled.warn(&format!(
                "the client has not read the answers of {} requests (--max-unanswered); \
                 reading its next requests waits",
                self.max_unanswered
            ));
        }
        let places = Arc::clone(&self.places);
        self.place = places.acquire_owned().await.ok();
    }

    /// Books the place of a request read, or frees that of a request cancelled.
    fn book(&mut self, message: &ClientJsonRpcMessage) {
        let mut unanswered = self.unanswered.lock().unwrap_or_else(|e| e.into_inner());
        match message {
            ClientJsonRpcMessage::Request(request) => {
                if let Some(place) = self.place.take() {
                    unanswered.insert(request.id.clone(), place);
                }
            }
            ClientJsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    unanswered.remove(id);
                }
            }
            _ => {}
        }
    }

    /// Reads up to the next line end. Cancel-safe (the service polls `receive` in a `select!`):
    /// bytes are consumed only after they were taken into `line` or `skipped`.
    async fn next_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(available) => available,
                Err(e) => {
                    tracing::error!("Error reading from stdin: {e}");
                    return Line::End;
                }
            };
            if available.is_empty() {
                return Line::End;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let taken = newline.map_or(available.len(), |at| at + 1);
            let chunk = &available[..taken];
            if self.skipped.is_none() && self.line.len() + taken > self.max_line {
                let mut skipped = Skipped::default();
                skipped.pass(without_line_end(&self.line));
                self.line.clear();
                self.skipped = Some(skipped);
            }
            match &mut self.skipped {
                Some(skipped) => skipped.pass(without_line_end(chunk)),
                None => {
                    if self.line.len() + taken > GROW_AT_ONCE
                        && self.line.capacity() < self.max_line
                    {
                        self.line.reserve_exact(self.max_line - self.line.len());
                    }
                    self.line.extend_from_slice(chunk);
                }
            }
            self.read.consume(taken);
            if newline.is_some() {
                return match self.skipped.take() {
                    Some(skipped) => Line::TooLong(skipped),
                    None => Line::Whole,
                };
            }
        }
    }

    /// Sends an answer of the transport's own, beside the service's.
    fn answer(&mut self, message: ServerJsonRpcMessage) {
        let sent = self.send(message);
        tokio::spawn(async move {
            if let Err(e) = sent.await {
                tracing::error!("an error answer was not written: {e}");
            }
        });
    }
}

fn without_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        let answered = match &item {
            ServerJsonRpcMessage::Response(response) => Some(response.id.clone()),
            ServerJsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let unanswered = Arc::clone(&self.unanswered);
        async move {
            let written = match write.lock().await.as_mut() {
                Some(write) => write.send(item).await.map_err(Into::into),
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "Transport is closed",
                )),
            };
            if let Some(id) = answered {
                unanswered
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            self.take_place().await;
            match self.next_line().await {
                Line::Whole => {}
                Line::TooLong(skipped) => {
                    tracing::warn!(
                        bytes = skipped.bytes,
                        "an incoming line is longer than {} bytes; answered with an error",
                        self.max_line
                    );
                    let answer = skipped.answer(self.max_line);
                    self.answer(answer);
                    continue;
                }
                Line::End => return None,
            }
            let line = std::mem::take(&mut self.line);
            let read = incoming::read_line(without_line_end(&line));
            // Keep the buffer (and its capacity) for the next line.
            self.line = line;
            self.line.clear();
            match read {
                Incoming::Message(message) => {
                    self.book(&message);
                    return Some(*message);
                }
                Incoming::Ignored => {}
                Incoming::Answer(answer) => self.answer(*answer),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}

/// A reader that cancels a token when its input ends (or fails).
pub(crate) struct UntilEof<R> {
    inner: R,
    ended: CancellationToken,
}

impl<R> UntilEof<R> {
    pub(crate) fn new(inner: R, ended: CancellationToken) -> Self {
        Self { inner, ended }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for UntilEof<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                self.ended.cancel();
            }
            Poll::Ready(Err(_)) => self.ended.cancel(),
            _ => {}
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn the_token_is_cancelled_at_the_end_only() {
        let ended = CancellationToken::new();
        let mut reader = UntilEof::new(&b"abc"[..], ended.clone());
        let mut buf = [0u8; 2];
        assert_eq!(reader.read(&mut buf).await.unwrap(), 2);
        assert!(!ended.is_cancelled());
        assert_eq!(reader.read(&mut buf).await.unwrap(), 1);
        assert!(!ended.is_cancelled());
        assert_eq!(reader.read(&mut buf).await.unwrap(), 0);
        assert!(ended.is_cancelled());
    }

    #[tokio::test]
    async fn over_long_lines_are_answered_and_reading_goes_on() {
        let long = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"x":"{}"}}}}"#,
            "a".repeat(500)
        );
        let tail_id = format!(
            r#"{{"method":"ping","params":{{"x":"{}"}},"id":"t"}}"#,
            "b".repeat(500)
        );
        let lengths = [300, tail_id.len(), long.len()];
        let input = format!(
            "{long}\n{tail_id}\r\n{}\n{}\n{}\n",
            "c".repeat(300),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "not json",
        );
        let (mut output, write) = tokio::io::duplex(1 << 16);
        // A pipe of 7 bytes, so that lines span many reads.
        let (mut feed, read) = tokio::io::duplex(7);
        tokio::spawn(async move { feed.write_all(input.as_bytes()).await });
        let mut transport = LineTransport::new(read, write, 200, MAX_UNANSWERED);
        let message = transport.receive().await.expect("the short line");
        assert_eq!(serde_json::to_value(&message).unwrap()["id"], 1);
        assert!(transport.receive().await.is_none());
        transport.close().await.unwrap();
        let mut answers = String::new();
        output.read_to_string(&mut answers).await.unwrap();
        let mut answers: Vec<serde_json::Value> = answers
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        answers.sort_by_key(|a| a["error"]["message"].to_string());
        let summary: Vec<_> = answers
            .iter()
            .map(|a| {
                (
                    a["id"].clone(),
                    a["error"]["code"].clone(),
                    a["error"]["message"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let text = |bytes: usize| {
            format!(
                "Invalid request: the message is {bytes} bytes long, more than this server's limit of 200 bytes for one line over stdio"
            )
        };
        assert_eq!(
            summary,
            vec![
                (
                    serde_json::Value::Null,
                    serde_json::json!(-32600),
                    text(lengths[0])
                ),
                (
                    serde_json::json!("t"),
                    serde_json::json!(-32600),
                    text(lengths[1])
                ),
                (
                    serde_json::json!(9),
                    serde_json::json!(-32600),
                    text(lengths[2])
                ),
            ]
        );
    }

    /// With three places, a fourth request is not read until an answer is written; a
    /// cancelled request frees its place too; notifications take none.
    #[tokio::test]
    async fn unanswered_requests_hold_back_reading() {
        use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0};
        let request = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let mut input = String::new();
        for id in 1..=3 {
            input += &request(id);
            input.push('\n');
        }
        input += r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        input.push('\n');
        input += &request(4);
        input.push('\n');
        input += r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        input.push('\n');
        input += &request(5);
        input.push('\n');
        input += &request(6);
        input.push('\n');
        input += &request(7);
        input.push('\n');
        let (_output, write) = tokio::io::duplex(1 << 16);
        let mut transport = LineTransport::new(input.as_bytes(), write, 1 << 10, 3);
        let id_of =
            |message: ClientJsonRpcMessage| serde_json::to_value(&message).unwrap()["id"].clone();
        let answer = |id: i64| {
            ServerJsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc: JsonRpcVersion2_0,
                id: RequestId::Number(id),
                result: rmcp::model::ServerResult::empty(()),
            })
        };
        for id in 1..=3 {
            assert_eq!(id_of(transport.receive().await.unwrap()), id);
        }
        let waiting = tokio::time::timeout(Duration::from_millis(100), transport.receive()).await;
        assert!(
            waiting.is_err(),
            "a fourth request was read with three unanswered"
        );
        // Answering request 1 frees a place: the notification (which books none) and request 4
        // are read.
        transport.send(answer(1)).await.unwrap();
        let next = transport.receive().await.unwrap();
        assert!(matches!(next, ClientJsonRpcMessage::Notification(_)));
        assert_eq!(id_of(transport.receive().await.unwrap()), 4);
        // Answering 3 lets the cancellation of 2 be read, which frees 2's place: 5 and 6 are
        // read, then 7 waits (4, 5 and 6 unanswered).
        transport.send(answer(3)).await.unwrap();
        let next = transport.receive().await.unwrap();
        assert!(matches!(next, ClientJsonRpcMessage::Notification(_)));
        assert_eq!(id_of(transport.receive().await.unwrap()), 5);
        assert_eq!(id_of(transport.receive().await.unwrap()), 6);
        let waiting = tokio::time::timeout(Duration::from_millis(100), transport.receive()).await;
        assert!(waiting.is_err(), "request 7 was read with three unanswered");
    }
}

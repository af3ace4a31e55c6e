//! Single answers without their event stream: rmcp answers every POST request of a session as
//! a server-sent event stream (a priming event, then the response). When the first message on
//! that stream is the request's response, it is sent as the body of an `application/json`
//! answer instead, as the streamable HTTP transport allows (rmcp refuses a POST whose client
//! does not accept both media types). A client then reads one body of known length and keeps
//! its connection: clients that stop reading the stream at the response (rmcp's, the Python
//! SDK's) close it otherwise, one TCP connection per call. A stream whose first message is not
//! the response (a notification or a request of the server) or that has no message within
//! [`JSON_WAIT`] stays a stream, as rmcp sent it.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::StreamExt;

/// How long a call may take to answer before its POST is answered as an event stream after
/// all: rmcp's stream would send its first keep-alive then (every 15 s).
pub(crate) const JSON_WAIT: Duration = Duration::from_secs(15);

/// Whether `response` is an event stream rmcp answered a POST with.
pub(crate) fn is_event_stream(response: &Response) -> bool {
    response.status() == StatusCode::OK
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}

/// The answer of an event stream (see [`is_event_stream`]): `application/json` with the
/// response as its body when the stream's first message, within `wait`, is a response; the
/// stream as it came otherwise. The `bool` says whether it was unframed.
pub(crate) async fn unframe(response: Response, wait: Duration) -> (Response, bool) {
    let (mut parts, body) = response.into_parts();
    let mut stream = body.into_data_stream();
    let mut read: Vec<Bytes> = Vec::new();
    let mut event = Vec::new();
    let mut ended = false;
    let deadline = tokio::time::sleep(wait);
    tokio::pin!(deadline);
    'reading: loop {
        let chunk = tokio::select! {
            chunk = stream.next() => chunk,
            () = &mut deadline => break,
        };
        let Some(Ok(chunk)) = chunk else {
            ended = true;
            break;
        };
        read.push(chunk.clone());
        let mut rest = &chunk[..];
        while let Some(end) = event_end(&event, rest) {
            event.extend_from_slice(&rest[..end]);
            rest = &rest[end..];
            let complete = std::mem::take(&mut event);
            match data_of(&complete) {
                None => continue,
                Some(data) if is_response(&data) => {
                    parts.headers.remove(header::CACHE_CONTROL);
                    parts.headers.remove("x-accel-buffering");
                    parts.headers.insert(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/json"),
                    );
                    return (Response::from_parts(parts, Body::from(data)), true);
                }
                Some(_) => break 'reading,
            }
        }
        event.extend_from_slice(rest);
    }
    let replay = futures_util::stream::iter(read.into_iter().map(Ok::<_, axum::Error>));
    let body = if ended {
        Body::from_stream(replay)
    } else {
        Body::from_stream(replay.chain(stream))
    };
    (Response::from_parts(parts, body), false)
}

/// Where in `next` the event whose start is `so_far` ends (just past its blank line).
fn event_end(so_far: &[u8], next: &[u8]) -> Option<usize> {
    // The blank line may straddle the chunks: `…\n` then `\n…`.
    if so_far.ends_with(b"\n") && next.first() == Some(&b'\n') {
        return Some(1);
    }
    next.windows(2).position(|w| w == b"\n\n").map(|at| at + 2)
}

/// The data of one event (its `data:` lines joined by line ends), `None` for an event without
/// data or with empty data (a priming event, a comment).
fn data_of(event: &[u8]) -> Option<Bytes> {
    let mut lines = event
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter_map(|line| line.strip_prefix(b"data:"))
        .map(|data| data.strip_prefix(b" ").unwrap_or(data));
    let first = lines.next()?;
    let mut data = first.to_vec();
    for line in lines {
        data.push(b'\n');
        data.extend_from_slice(line);
    }
    (!data.is_empty()).then(|| data.into())
}

/// Whether a message is a JSON-RPC response or error (not a request or a notification).
fn is_response(message: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        method: Option<serde::de::IgnoredAny>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    if message.trim_ascii_start().first() != Some(&b'{') {
        return false;
    }
    serde_json::from_slice::<Head>(message)
        .is_ok_and(|head| head.method.is_none() && (head.result.is_some() || head.error.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream_of(chunks: &[&'static str]) -> Response {
        let chunks: Vec<Result<Bytes, std::io::Error>> = chunks
            .iter()
            .map(|c| Ok(Bytes::from_static(c.as_bytes())))
            .collect();
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .header(header::CACHE_CONTROL, "no-cache")
            .header("mcp-session-id", "s-1")
            .body(Body::from_stream(futures_util::stream::iter(chunks)))
            .unwrap()
    }

    async fn text_of(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    const PRIMING: &str = "data: \nid: 0/0\nretry: 3000\n\n";
    const RESPONSE: &str =
        "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}\nid: 1/0\n\n";

    #[tokio::test]
    async fn a_lone_response_becomes_a_json_body() {
        let response = stream_of(&[PRIMING, RESPONSE]);
        assert!(is_event_stream(&response));
        let (answer, unframed) = unframe(response, JSON_WAIT).await;
        assert!(unframed);
        assert_eq!(answer.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(answer.headers()["mcp-session-id"], "s-1");
        assert!(!answer.headers().contains_key(header::CACHE_CONTROL));
        assert_eq!(
            text_of(answer).await,
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#
        );
    }

    #[tokio::test]
    async fn events_split_anywhere_are_read_whole() {
        let whole = format!("{PRIMING}{RESPONSE}");
        for at in 1..whole.len() {
            let (head, tail) = whole.split_at(at);
            let chunks: Vec<&'static str> = vec![
                Box::leak(head.to_owned().into_boxed_str()),
                Box::leak(tail.to_owned().into_boxed_str()),
            ];
            let (answer, unframed) = unframe(stream_of(&chunks), JSON_WAIT).await;
            assert!(unframed, "split at {at}");
            assert!(text_of(answer).await.ends_with("}}"), "split at {at}");
        }
    }

    #[tokio::test]
    async fn a_notification_first_keeps_the_stream() {
        let notification =
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n";
        let (answer, unframed) =
            unframe(stream_of(&[PRIMING, notification, RESPONSE]), JSON_WAIT).await;
        assert!(!unframed);
        assert_eq!(answer.headers()[header::CONTENT_TYPE], "text/event-stream");
        assert_eq!(
            text_of(answer).await,
            format!("{PRIMING}{notification}{RESPONSE}")
        );
    }

    #[tokio::test]
    async fn a_slow_answer_keeps_the_stream() {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(4);
        let response = Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::from_stream(tokio_stream_of(rx)))
            .unwrap();
        tx.send(Ok(Bytes::from_static(PRIMING.as_bytes())))
            .await
            .unwrap();
        let (answer, unframed) = unframe(response, Duration::from_millis(50)).await;
        assert!(!unframed);
        tx.send(Ok(Bytes::from_static(RESPONSE.as_bytes())))
            .await
            .unwrap();
        drop(tx);
        assert_eq!(text_of(answer).await, format!("{PRIMING}{RESPONSE}"));
    }

    fn tokio_stream_of<T: Send + 'static>(
        mut rx: tokio::sync::mpsc::Receiver<T>,
    ) -> impl futures_util::Stream<Item = T> {
        futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
    }

    #[test]
    fn responses_are_told_from_other_messages() {
        assert!(is_response(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(is_response(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}"#
        ));
        assert!(!is_response(
            br#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}"#
        ));
        assert!(!is_response(br#"{"jsonrpc":"2.0","method":"n"}"#));
        assert!(!is_response(b"[1]"));
        assert!(!is_response(b"not json"));
    }
}

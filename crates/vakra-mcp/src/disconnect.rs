//! A call over HTTP whose client went away is cancelled, as if the client had sent
//! `notifications/cancelled`: the answer of a `tools/call` POST is a stream, dropped by the
//! HTTP server when its connection closes; when it is dropped before its end, the call's
//! request id is cancelled in its session, which stops the call's work (`calls.rs`) and frees
//! the session's turn for its next call. An answer sent as one JSON body (`framing.rs`) is
//! awaited before its response starts: a request dropped while [`Armed`] is cancelled the same way.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Request, header};
use futures_util::Stream;
use serde_json::Value;
use tower::ServiceExt;

use crate::{EnvServer, NamedSessions};

/// The streamable-HTTP MCP service (`http.rs` serves it; a dropped call's cancellation is sent
/// through it).
pub(crate) type Service =
    rmcp::transport::streamable_http_server::StreamableHttpService<EnvServer, NamedSessions>;

/// The id of a JSON-RPC request in `body`, when it is a request (not a notification or a
/// response) of an existing session.
pub(crate) fn request_id(body: &[u8]) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Head {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    // A struct would also be read from an array (a batch, which has no one id).
    if body.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    let head: Head = serde_json::from_slice(body).ok()?;
    head.method?;
    head.id
}

/// What cancels a request when its answer's stream is dropped unfinished.
pub(crate) struct CancelOnDrop {
    service: Service,
    uri: axum::http::Uri,
    headers: HeaderMap,
    id: Value,
}

impl CancelOnDrop {
    /// For the request `id` sent with `headers` (its session id among them) to `uri`.
    pub(crate) fn new(service: Service, uri: axum::http::Uri, sent: &HeaderMap, id: Value) -> Self {
        let mut headers = HeaderMap::new();
        for name in [
            header::HOST,
            header::HeaderName::from_static("mcp-session-id"),
            header::HeaderName::from_static("mcp-protocol-version"),
        ] {
            if let Some(value) = sent.get(&name) {
                headers.insert(name, value.clone());
            }
        }
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        Self {
            service,
            uri,
            headers,
            id,
        }
    }

    fn cancel(self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        tracing::debug!(id = %self.id, "the client of a call went away: cancelled");
        let notification = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client's connection closed"}});
        let mut request = Request::post(self.uri)
            .body(Body::from(notification.to_string()))
            .expect("a request from valid parts");
        *request.headers_mut() = self.headers;
        runtime.spawn(async move {
            let _ = self.service.oneshot(request).await;
        });
    }
}

/// Cancels its request when dropped before it is disarmed (the answer is in hand).
pub(crate) struct Armed(Option<CancelOnDrop>);

impl Armed {
    pub(crate) fn new(cancel: Option<CancelOnDrop>) -> Self {
        Self(cancel)
    }

    /// What would cancel the request, now left to the caller.
    pub(crate) fn disarm(mut self) -> Option<CancelOnDrop> {
        self.0.take()
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel.cancel();
        }
    }
}

/// The stream of an answer, cancelling its request when dropped before its end.
pub(crate) struct Watched {
    inner: Pin<Box<dyn Stream<Item = Result<Bytes, axum::Error>> + Send>>,
    unfinished: Option<CancelOnDrop>,
}

impl Watched {
    pub(crate) fn new(
        inner: impl Stream<Item = Result<Bytes, axum::Error>> + Send + 'static,
        cancel: Option<CancelOnDrop>,
    ) -> Self {
        Self {
            inner: Box::pin(inner),
            unfinished: cancel,
        }
    }
}

impl Stream for Watched {
    type Item = Result<Bytes, axum::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let next = self.inner.as_mut().poll_next(cx);
        if let Poll::Ready(None) = next {
            self.unfinished = None;
        }
        next
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if let Some(cancel) = self.unfinished.take() {
            cancel.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_requests_have_ids_to_cancel() {
        let id = |body: &str| request_id(body.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
            Some(Value::from(7))
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call"}"#),
            Some(Value::from("a"))
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#), None);
        assert_eq!(id("[1, 2]"), None);
        assert_eq!(id("not json"), None);
    }
}

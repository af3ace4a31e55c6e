//! HTTP requests: through a client library, and raw HTTP/1.1 exchanges for requests a client
//! library would normalise or refuse.

use std::io::{Read, Write};
use std::time::Duration;

/// GET `url`: status, content type and body text.
pub async fn get(url: &str) -> (u16, String, String) {
    request(reqwest::Method::GET, url).await
}

/// A request without a body, not following redirects: status, content type and body text.
pub async fn request(method: reqwest::Method, url: &str) -> (u16, String, String) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let response = client
        .request(method, url)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let body = response.text().await.expect("a text body");
    (status, content_type, body)
}

/// The `mcp-session-id` header of a raw response (panics, showing the response, without one).
pub fn session_id(response: &str) -> String {
    response
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id in {response}"))
}

/// The JSON-RPC message of a raw response, an event stream (its first `data:` line that is not
/// empty) or plain JSON (panics, showing the response, when there is none).
pub fn jsonrpc_message(response: &str) -> serde_json::Value {
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let json = body
        .lines()
        .find_map(|line| line.strip_prefix("data: ").filter(|d| !d.is_empty()))
        .unwrap_or(body);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {response}"))
}

/// One raw HTTP/1.1 exchange with `base` (`http://host:port`) on a fresh connection: the
/// status code and the whole response text (read for 10 s at most).
pub fn raw_http(base: &str, request: &[u8]) -> (u16, String) {
    let address = base.strip_prefix("http://").expect("an http:// base");
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a read timeout");
    // The server may answer and close before reading all of an oversized request.
    let _ = stream.write_all(request);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {text:?}"));
    (status, text)
}

/// A raw JSON `POST` of `body` to `target`, accepting JSON and event streams (as MCP clients
/// do), with `Connection: close`.
pub fn raw_post(base: &str, target: &str, body: &str) -> (u16, String) {
    raw_http(
        base,
        format!(
            "POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
}

/// A raw `GET` of `target` (sent as is) with `Connection: close`.
pub fn raw_get(base: &str, target: &str) -> (u16, String) {
    raw_http(
        base,
        format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

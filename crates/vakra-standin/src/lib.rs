//! Stand-in models: an OpenAI-compatible Chat Completions server on loopback, for the tests of
//! `vakra run`, `make demo` and the runner's benchmarks. No network, no key.
//!
//! A [`StandIn`] answers every `POST …/chat/completions` by its [`Behaviour`]: the
//! [`oracle::Oracle`] plays a split's ground truth; the others answer without tools, or
//! misbehave on purpose (malformed tool-call arguments, a tool that is not offered, a hang),
//! optionally after failing the first requests (429 with `Retry-After`, or a 5xx with an HTML
//! body) and after a fixed latency. Token usage is reported as a quarter of the bytes in and
//! out, so that runs have counts to add up. A [`Dialect`] plays the ground truth in the shape a
//! given model server answers in (vLLM, SGLang, Ollama, llama.cpp, LiteLLM, OpenAI: fixtures in
//! `fixtures/dialects/`).

pub mod dialect;
pub mod oracle;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

pub use dialect::Dialect;
pub use oracle::Oracle;

/// How the stand-in answers.
pub enum Behaviour {
    /// Plays the ground truth.
    Oracle(Oracle),
    /// Answers this text, never calling a tool.
    Text(String),
    /// Calls the first offered tool with arguments that are not JSON (and says so in text).
    MalformedArguments,
    /// First calls `no_such_tool`, then answers `done`.
    UnknownTool,
    /// Never answers.
    Hang,
    /// Answers 200 with a body that is not a Chat Completions answer.
    Garbage,
    /// Plays the ground truth, answering as the dialect's server does.
    Dialect(Oracle, Box<Dialect>),
}

/// Failing the first requests before behaving.
#[derive(Debug, Clone, Copy)]
pub struct Failures {
    pub count: usize,
    pub status: u16,
    /// Seconds to send as `Retry-After`.
    pub retry_after: Option<u32>,
    /// Send an HTML page as the body (as proxies do).
    pub html: bool,
}

/// A stand-in model.
pub struct StandIn {
    pub behaviour: Behaviour,
    pub latency: Duration,
    pub failures: Option<Failures>,
    /// Every request body is appended here, one per line.
    pub log: Option<std::sync::Mutex<std::fs::File>>,
    requests: AtomicUsize,
}

impl StandIn {
    pub fn new(behaviour: Behaviour) -> Self {
        Self {
            behaviour,
            latency: Duration::ZERO,
            failures: None,
            log: None,
            requests: AtomicUsize::new(0),
        }
    }

    /// Requests received so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// The HTTP app: `POST /v1/chat/completions` (and without `/v1`).
    pub fn router(self: Arc<Self>) -> Router {
        Router::new()
            .route("/v1/chat/completions", post(complete))
            .route("/chat/completions", post(complete))
            .with_state(self)
    }

    fn message(&self, request: &Value) -> Value {
        let messages = request["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let offered: Vec<&str> = request["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str())
            .collect();
        let answered = messages.iter().any(|m| m["role"] == "tool");
        match &self.behaviour {
            Behaviour::Oracle(oracle) | Behaviour::Dialect(oracle, _) => {
                oracle.reply(messages, &offered)
            }
            Behaviour::Text(text) => json!({"role": "assistant", "content": text}),
            Behaviour::MalformedArguments => json!({"role": "assistant",
                "content": "Calling a tool.",
                "tool_calls": [{"id": "call_0", "type": "function", "function": {
                    "name": offered.first().copied().unwrap_or("tool"),
                    "arguments": "{\"data_label\": \"retrieved_"}}]}),
            Behaviour::UnknownTool if !answered => json!({"role": "assistant", "content": null,
                "tool_calls": [{"id": "call_0", "type": "function",
                    "function": {"name": "no_such_tool", "arguments": "{}"}}]}),
            Behaviour::UnknownTool => json!({"role": "assistant", "content": "done"}),
            Behaviour::Hang | Behaviour::Garbage => Value::Null,
        }
    }
}

async fn complete(State(standin): State<Arc<StandIn>>, body: String) -> Response {
    let n = standin.requests.fetch_add(1, Ordering::SeqCst);
    if let Some(log) = &standin.log {
        use std::io::Write;
        let mut file = log.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(file, "{}", body.replace('\n', " "));
    }
    if !standin.latency.is_zero() {
        tokio::time::sleep(standin.latency).await;
    }
    if let Some(f) = standin.failures.filter(|f| n < f.count) {
        let status = StatusCode::from_u16(f.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = if f.html {
            (
                status,
                [(header::CONTENT_TYPE, "text/html")],
                "<html><body><h1>502 Bad Gateway</h1></body></html>",
            )
                .into_response()
        } else {
            (
                status,
                axum::Json(json!({"error": {"message": "rate limited"}})),
            )
                .into_response()
        };
        if let Some(seconds) = f.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        return response;
    }
    let Ok(request) = serde_json::from_str::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "the request is not JSON").into_response();
    };
    match standin.behaviour {
        Behaviour::Hang => tokio::time::sleep(Duration::from_secs(3600)).await,
        Behaviour::Garbage => return "<html>this is not JSON</html>".into_response(),
        _ => {}
    }
    let message = standin.message(&request);
    let completion_bytes = message.to_string().len();
    let usage = json!({"prompt_tokens": body.len() / 4, "completion_tokens": completion_bytes / 4});
    if let Behaviour::Dialect(_, dialect) = &standin.behaviour {
        return dialect.respond(n, &request["model"], &message, usage);
    }
    axum::Json(json!({
        "id": format!("standin-{n}"),
        "object": "chat.completion",
        "model": request["model"],
        "choices": [{"index": 0, "message": message,
                     "finish_reason": if message.get("tool_calls").is_some() { "tool_calls" } else { "stop" }}],
        "usage": usage,
    }))
    .into_response()
}

/// Serves the stand-in on a listener until the process ends.
pub async fn serve(
    listener: tokio::net::TcpListener,
    standin: Arc<StandIn>,
) -> std::io::Result<()> {
    axum::serve(listener, standin.router()).await
}

//! OpenEnv's server side: the WebSocket at `/ws` (one episode per connection at a time) and
//! the HTTP endpoints, mounted by `vakra serve --episodes` at `/openenv`.
//!
//! No client can hold the others up: each connection is its own task, a connection beyond
//! `max_episodes` is refused with `CAPACITY_REACHED`, a connection without a message for `idle`
//! is closed (its episode with it; pings do not count), one that does not read its answers
//! within `idle` too, and messages are bounded in size. While a message is answered the socket
//! is read on: pings get their pongs, and a client that leaves stops its step.

use std::sync::Arc;
use std::time::Duration;

use axum::Extension;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Json, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use vakra_lanes::{Client, Shares, Throttled};

use crate::episode::{Episode, EpisodeError, EpisodeSetup};
use crate::protocol::{
    Action, ClientMessage, ErrorCode, ResetData, error_message, mcp_message, observation_message,
    schemas, state_message, step_result,
};

/// What the server carrying an episode's WebSocket charges for the bytes its connection has read
/// and not yet delivered as a whole message (a half-sent frame), against the budget its HTTP
/// bodies share: [`ReadCharge::arm`] when the connection is upgraded, [`ReadCharge::settle`]
/// after each message is taken. When the budget is spent, the connection's reads fail and it
/// is closed. `vakra serve` puts one, as [`Charged`], into each request's extensions.
pub trait ReadCharge: Send + Sync {
    /// From now on, bytes read on this connection are charged.
    fn arm(&self);
    /// The bytes read so far were delivered: their charge is given back.
    fn settle(&self);
}

/// The [`ReadCharge`] of a request's connection, as a request extension.
#[derive(Clone)]
pub struct Charged(pub Arc<dyn ReadCharge>);

/// How much the episode server lets clients hold.
#[derive(Debug, Clone)]
pub struct EpisodeLimits {
    /// Connections (each with at most one episode) open at once.
    pub max_episodes: usize,
    /// A connection sending nothing (or not reading) for this long is closed.
    pub idle: Duration,
    /// The largest message accepted.
    pub max_message_bytes: usize,
    /// Connections one client address holds at once.
    pub max_client_episodes: usize,
}

struct Service {
    setup: EpisodeSetup,
    limits: EpisodeLimits,
    slots: Arc<Semaphore>,
    clients: Shares,
    refusals: Throttled,
}

/// The routes, relative to where they are mounted.
pub fn router(setup: EpisodeSetup, limits: EpisodeLimits) -> axum::Router {
    let service = Arc::new(Service {
        slots: Arc::new(Semaphore::new(limits.max_episodes.max(1))),
        clients: Shares::new(limits.max_client_episodes),
        refusals: Throttled::new(),
        setup,
        limits,
    });
    axum::Router::new()
        .route("/ws", get(websocket))
        .route(
            "/health",
            get(|| async { Json(json!({"status": "healthy"})) }),
        )
        .route("/metadata", get(metadata))
        .route("/schema", get(|| async { Json(schemas()) }))
        .route(
            "/state",
            get(|| async { Json(json!({"episode_id": null, "step_count": 0})) }),
        )
        .route("/reset", post(http_reset))
        .route("/step", post(http_step))
        .with_state(service)
}

async fn metadata(State(service): State<Arc<Service>>) -> Json<Value> {
    Json(json!({
        "name": "vakra",
        "description": format!(
            "VAKRA agent benchmark episodes: {} samples of {}; actions list_tools, call_tool, \
             submit_answer; reward from the evaluator's judges ({})",
            service.setup.split.len(),
            service.setup.split.path().display(),
            service.setup.reward.as_str(),
        ),
        "version": env!("CARGO_PKG_VERSION"),
        "documentation_url": "docs/rl.md",
    }))
}

/// `POST /reset`: as in OpenEnv, each HTTP request gets its own environment, here an episode
/// that is opened, described and closed.
async fn http_reset(State(service): State<Arc<Service>>, body: Option<Json<Value>>) -> Response {
    let data: ResetData = match body.map(|Json(v)| v) {
        None | Some(Value::Null) => ResetData::default(),
        Some(value) => match serde_json::from_value(value) {
            Ok(data) => data,
            Err(e) => return detail(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
        },
    };
    match Episode::start(&service.setup, &data).await {
        Ok(reset) => {
            reset.episode.close().await;
            Json(step_result(reset.observation, None, false)).into_response()
        }
        Err(e) => detail(status_of(&e), e.to_string()),
    }
}

/// `POST /step`: a fresh environment has no episode, so a stateless step cannot act.
async fn http_step() -> Response {
    detail(
        StatusCode::CONFLICT,
        "an HTTP /step has no episode (each HTTP request gets a fresh environment, as in \
         OpenEnv): run episodes over the WebSocket at <base>/ws"
            .into(),
    )
}

fn detail(status: StatusCode, message: String) -> Response {
    (status, Json(json!({"detail": message}))).into_response()
}

fn status_of(error: &EpisodeError) -> StatusCode {
    match error {
        EpisodeError::Pick(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

async fn websocket(
    State(service): State<Arc<Service>>,
    client: Option<Extension<Client>>,
    charged: Option<Extension<Charged>>,
    upgrade: WebSocketUpgrade,
) -> Response {
    // The episode's sessions (and its reward's replays) take its client's share of the
    // tool-call lanes, as that client's MCP sessions do.
    let client = client.map(|Extension(c)| c);
    let charge = charged.map(|Extension(Charged(charge))| charge);
    upgrade
        .max_message_size(service.limits.max_message_bytes)
        .max_frame_size(service.limits.max_message_bytes)
        .on_upgrade(move |socket| {
            if let Some(charge) = &charge {
                charge.arm();
            }
            let gone = CancellationToken::new();
            let socket = Socket { socket, charge };
            vakra_mcp::opened_by(
                client,
                gone.clone(),
                connection(socket, service, client, gone),
            )
        })
}

/// An episode's WebSocket with its connection's [`ReadCharge`], settled at each message.
struct Socket {
    socket: WebSocket,
    charge: Option<Arc<dyn ReadCharge>>,
}

impl Socket {
    async fn recv(&mut self) -> Option<Result<Message, axum::Error>> {
        let received = self.socket.recv().await;
        if let (Some(Ok(_)), Some(charge)) = (&received, &self.charge) {
            charge.settle();
        }
        received
    }

    async fn send(&mut self, message: Message) -> Result<(), axum::Error> {
        self.socket.send(message).await
    }
}

/// One client's connection, until it closes, goes idle or breaks; then `gone` stops the calls
/// of its sessions still running.
async fn connection(
    mut socket: Socket,
    service: Arc<Service>,
    client: Option<Client>,
    gone: CancellationToken,
) {
    let idle = service.limits.idle;
    let slot = Arc::clone(&service.slots).try_acquire_owned().ok();
    let share = client.map(|c| (c, service.clients.take(c)));
    let refused = match (&slot, &share) {
        (None, _) => Some(format!(
            "this server runs at most {} episodes at once (--max-episodes)",
            service.limits.max_episodes
        )),
        (Some(_), Some((Client(address), None))) => Some(format!(
            "this server runs at most {} episodes at once for one client address, and {address} \
             has them (--max-client-episodes)",
            service.clients.per_client()
        )),
        _ => None,
    };
    if let Some(message) = refused {
        service
            .refusals
            .warn(&format!("episode refused: {message}"));
        let refusal = error_message(ErrorCode::CapacityReached, &message);
        if send(&mut socket, &refusal, idle).await.is_ok() {
            // Closed as OpenEnv's server closes it: a close frame (normal closure).
            let _ = tokio::time::timeout(idle, socket.send(Message::Close(None))).await;
        }
        return;
    }
    let mut episode: Option<Episode> = None;
    // A message that arrived while a step ran, answered next.
    let mut pending: Option<Message> = None;
    // Only messages count as activity: a client's pings do not keep an abandoned episode.
    let mut active = tokio::time::Instant::now();
    loop {
        let message = match pending.take() {
            Some(message) => message,
            None => match tokio::time::timeout_at(active + idle, socket.recv()).await {
                Err(_) => {
                    tracing::debug!("episode connection without a message for {idle:?}: closed");
                    break;
                }
                Ok(None | Some(Err(_))) => break,
                Ok(Some(Ok(message))) => message,
            },
        };
        let text = match message {
            Message::Text(text) => text.to_string(),
            Message::Binary(bytes) => match String::from_utf8(bytes.to_vec()) {
                Ok(text) => text,
                Err(_) => {
                    let reply =
                        error_message(ErrorCode::InvalidJson, "Invalid JSON: not UTF-8 text");
                    if send(&mut socket, &reply, idle).await.is_err() {
                        break;
                    }
                    active = tokio::time::Instant::now();
                    continue;
                }
            },
            Message::Close(_) => break,
            Message::Ping(_) | Message::Pong(_) => continue,
        };
        // The socket is read while the message is answered: pings are answered (a client's
        // keep-alive survives a long call), and a client that leaves cancels its step.
        let answered = {
            // Integers beyond 64 bits (read as floats) reach the tools with their digits, as
            // over MCP's own transports.
            let answering = answer(&service.setup, &mut episode, &text);
            let mut answering: std::pin::Pin<Box<dyn Future<Output = _> + Send>> =
                match vakra_mcp::big_integers_in(text.as_bytes()) {
                    Some(found) => {
                        Box::pin(vakra_pytext::digits::WithDigits::new(found.0, answering))
                    }
                    None => Box::pin(answering),
                };
            loop {
                tokio::select! {
                    reply = &mut answering => break Some(reply),
                    incoming = socket.recv(), if pending.is_none() => match incoming {
                        None | Some(Err(_) | Ok(Message::Close(_))) => break None,
                        Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                        Some(Ok(message)) => pending = Some(message),
                    },
                }
            }
        };
        let Some(reply) = answered else {
            tracing::debug!("an episode's client left while its message was answered: stopped");
            break;
        };
        let Some(reply) = reply else {
            break;
        };
        if send(&mut socket, &reply, idle).await.is_err() {
            break;
        }
        active = tokio::time::Instant::now();
    }
    gone.cancel();
    if let Some(episode) = episode {
        episode.close().await;
    }
}

async fn send(socket: &mut Socket, value: &Value, within: Duration) -> Result<(), ()> {
    let message = Message::Text(value.to_string().into());
    match tokio::time::timeout(within, socket.send(message)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

/// The answer to one message; `None` for `close`.
async fn answer(setup: &EpisodeSetup, episode: &mut Option<Episode>, text: &str) -> Option<Value> {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return Some(error_message(
                ErrorCode::InvalidJson,
                &format!("Invalid JSON: {e}"),
            ));
        }
    };
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !matches!(kind, "reset" | "step" | "state" | "close" | "mcp") {
        return Some(error_message(
            ErrorCode::UnknownType,
            &format!("Unknown message type: {kind}"),
        ));
    }
    let message: ClientMessage = match serde_json::from_value(value) {
        Ok(message) => message,
        Err(e) => {
            return Some(error_message(
                ErrorCode::ValidationError,
                &format!("Invalid message: {e}"),
            ));
        }
    };
    Some(match message {
        ClientMessage::Close => return None,
        ClientMessage::Reset { data } => {
            if let Some(old) = episode.take() {
                old.close().await;
            }
            match Episode::start(setup, &data).await {
                Ok(reset) => {
                    *episode = Some(reset.episode);
                    observation_message(reset.observation, None, false)
                }
                Err(e) => error_message(ErrorCode::ExecutionError, &e.to_string()),
            }
        }
        ClientMessage::Step { data } => {
            let action: Action = match serde_json::from_value(data) {
                Ok(action) => action,
                Err(e) => {
                    return Some(error_message(
                        ErrorCode::ValidationError,
                        &format!(
                            "Invalid action: {e} (expected {{\"type\": \"list_tools\"}}, \
                             {{\"type\": \"call_tool\", \"tool_name\": …, \"arguments\": {{…}}}} \
                             or {{\"type\": \"submit_answer\", \"answer\": …}})"
                        ),
                    ));
                }
            };
            let Some(current) = episode.as_mut() else {
                return Some(error_message(
                    ErrorCode::ExecutionError,
                    &EpisodeError::NoEpisode.to_string(),
                ));
            };
            match current.step(setup, action).await {
                Ok(step) => observation_message(step.observation, step.reward, step.done),
                Err(e) => error_message(ErrorCode::ExecutionError, &e.to_string()),
            }
        }
        ClientMessage::State => state_message(match episode {
            Some(current) => current.state(),
            None => json!({"episode_id": null, "step_count": 0}),
        }),
        ClientMessage::Mcp { data } => match episode.as_mut() {
            Some(current) => mcp_message(current.mcp(setup, &data).await),
            None => mcp_message(json!({"jsonrpc": "2.0", "id": data.get("id"), "error": {
                "code": -32000, "message": EpisodeError::NoEpisode.to_string()}})),
        },
    })
}

//! The MCP sessions of one streamable-HTTP endpoint, kept small: 10,000 idle sessions must fit
//! in 1 GiB (docs/benchmarks.md). rmcp's local session manager gives each session a worker task
//! and five tokio channels whose first blocks hold 32 messages of ~500 bytes each (~80 KB a
//! session before it does anything); here a session is one struct behind a lock, whose only
//! channel (client messages to the session's service, boxed) is created with it. Every other
//! buffer is made when it is needed: a POST's stream when the request arrives, the GET stream
//! when the client opens it, the cache of standalone messages when there is one.
//!
//! What a client sees is rmcp's (`session_ids.rs` names the sessions):
//! - the server's messages go to the stream of the request they answer or relate to (a
//!   progress notification by its token, a cancellation or a server request by its request id),
//!   everything else to the standalone GET stream;
//! - a request's stream starts with a priming event `0/<stream>` (retry 3 s), its messages are
//!   numbered `1/<stream>`, `2/<stream>`, … and it ends with its response;
//! - standalone messages are numbered `0`, `1`, … and the last [`CACHED`] of them are kept:
//!   a GET stream opened later (or resumed with `Last-Event-ID`) gets them first, as rmcp
//!   replays its standalone channel's cache; a second GET while one is open stays silent;
//! - `Last-Event-ID: <n>/<stream>` resumes a request's stream still open (from event `n`);
//! - a session ends after `idle` without a message either way, on DELETE, or when its service
//!   stops; its streams end with it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use futures_util::Stream;
use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, GetExtensions, GetMeta, JsonRpcMessage,
    NumberOrString, RequestId, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::transport::Transport;
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::SessionId;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// Standalone messages kept for a GET stream opened or resumed later (rmcp keeps as many).
pub(crate) const CACHED: usize = 16;
/// Messages a stream buffers for a client that does not read (rmcp's channel capacity); one
/// beyond is dropped from the stream (it stays in the cache a resume replays).
const BUFFERED: usize = 16;
/// Client messages queued for a session's service before the next one waits (rmcp's capacity).
const QUEUED: usize = 16;
/// The reconnection delay a request's priming event advises (rmcp's default).
const PRIMING_RETRY: Duration = Duration::from_secs(3);
/// Silent GET streams kept beside the live one (rmcp's limit); the oldest ends beyond.
const MAX_SHADOWS: usize = 32;

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("Session not found: {0}")]
    NotFound(SessionId),
    #[error("the session is closed")]
    Closed,
    #[error("no stream to resume at event id {0:?}")]
    NotResumable(String),
}

/// The sessions of one endpoint by id.
#[derive(Debug)]
pub(crate) struct Sessions {
    idle: Duration,
    by_id: RwLock<HashMap<SessionId, Arc<Session>>>,
}

impl Sessions {
    pub(crate) fn new(idle: Duration) -> Self {
        Self {
            idle,
            by_id: RwLock::new(HashMap::new()),
        }
    }

    /// A new session under `id`, and the transport its service talks through.
    pub(crate) fn create(&self, id: SessionId) -> SessionTransport {
        let (inbound, receiver) = mpsc::channel(QUEUED);
        let session = Arc::new(Session {
            idle: self.idle,
            last_seen: Mutex::new(Instant::now()),
            state: Mutex::new(State {
                inbound: Some(inbound),
                ..State::default()
            }),
        });
        self.write().insert(id, Arc::clone(&session));
        SessionTransport {
            session,
            inbound: receiver,
        }
    }

    fn get(&self, id: &SessionId) -> Result<Arc<Session>, SessionError> {
        self.by_id
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<SessionId, Arc<Session>>> {
        self.by_id.write().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn contains(&self, id: &SessionId) -> bool {
        self.by_id
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(id)
    }

    /// Sessions open.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_id.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Ends a session: its service sees its transport close, its streams end.
    pub(crate) fn close(&self, id: &SessionId) {
        let removed = self.write().remove(id);
        if let Some(session) = removed {
            session.close();
        }
    }

    /// Hands `initialize` to the session's service and waits for its answer.
    pub(crate) async fn initialize(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionError> {
        let session = self.get(id)?;
        let (answer, answered) = oneshot::channel();
        let inbound = {
            let mut state = session.lock();
            state.initializing = Some(answer);
            state.inbound()?
        };
        session.touch();
        push(inbound, message).await?;
        answered.await.map_err(|_| SessionError::Closed)
    }

    /// Hands a client request to the session and returns the stream of what relates to it.
    pub(crate) async fn request(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let session = self.get(id)?;
        session.touch();
        // Routed before the service can answer.
        let (inbound, stream, receiver) = {
            let mut state = session.lock();
            let inbound = state.inbound()?;
            let (stream, receiver) = state.open_request_stream();
            if let JsonRpcMessage::Request(request) = &message {
                state.route(Route::Request(request.id.clone()), stream);
                if let Some(token) = request.request.get_meta().get_progress_token() {
                    state.route(Route::Progress(token.0), stream);
                }
            }
            (inbound, stream, receiver)
        };
        if let Err(closed) = push(inbound, message).await {
            session.lock().forget(stream);
            return Err(closed);
        }
        Ok(stream_of(receiver))
    }

    /// Hands a client notification, response or error to the session.
    pub(crate) async fn accept(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionError> {
        let session = self.get(id)?;
        session.touch();
        let inbound = {
            let mut state = session.lock();
            if let JsonRpcMessage::Notification(notification) = &message
                && let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                && let Some(request) = &cancelled.params.request_id
            {
                state.end_request_stream(&Route::Request(request.clone()));
            }
            state.inbound()?
        };
        push(inbound, message).await
    }

    /// The standalone stream (GET): the cached standalone messages, then the ones to come; a
    /// silent stream when one is open already.
    pub(crate) fn standalone(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let session = self.get(id)?;
        session.touch();
        let receiver = session.lock().open_standalone(0)?;
        Ok(stream_of(receiver))
    }

    /// A stream resumed at `Last-Event-ID` (`<n>` on the standalone stream, `<n>/<stream>` on
    /// a request's stream still open): the events from `n` on, then the ones to come.
    pub(crate) fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionError> {
        let session = self.get(id)?;
        session.touch();
        let not_resumable = || SessionError::NotResumable(last_event_id.clone());
        let (index, stream) = match last_event_id.split_once('/') {
            Some((index, stream)) => (index, Some(stream.parse::<u64>())),
            None => (last_event_id.as_str(), None),
        };
        let index: usize = index.parse().map_err(|_| not_resumable())?;
        let mut state = session.lock();
        let receiver = match stream {
            None => state.open_standalone(index)?,
            Some(stream) => {
                let stream = stream.map_err(|_| not_resumable())?;
                let open = state.streams.get_mut(&stream).ok_or_else(not_resumable)?;
                open.events.reopen(index).ok_or_else(not_resumable)?
            }
        };
        Ok(stream_of(receiver))
    }
}

/// One session: what routes the server's messages to the client's streams, and the queue of
/// the client's messages to the service.
#[derive(Debug)]
struct Session {
    idle: Duration,
    /// The last message either way, or stream opened: the session ends `idle` after it.
    last_seen: Mutex<Instant>,
    state: Mutex<State>,
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn touch(&self) {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    fn expires_at(&self) -> Instant {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner()) + self.idle
    }

    /// Ends the session: its service's transport reads no more, its streams end.
    fn close(&self) {
        let mut state = self.lock();
        state.inbound = None;
        state.initializing = None;
        state.streams = HashMap::new();
        state.routes = HashMap::new();
        state.standalone = None;
    }

    /// Sends a message of the service where it belongs.
    fn deliver(&self, message: ServerJsonRpcMessage) -> Result<(), SessionError> {
        self.touch();
        let mut state = self.lock();
        if state.inbound.is_none() {
            return Err(SessionError::Closed);
        }
        if matches!(
            message,
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_)
        ) && let Some(answer) = state.initializing.take()
        {
            let _ = answer.send(message);
            return Ok(());
        }
        match state.destination(&message) {
            Some((stream, ends)) => {
                let Some(open) = state.streams.get_mut(&stream) else {
                    return Ok(());
                };
                open.events.send(message, Some(stream));
                if ends {
                    state.forget(stream);
                }
            }
            None => state
                .standalone
                .get_or_insert_with(Box::default)
                .events
                .send(message, None),
        }
        Ok(())
    }
}

/// What a server message may relate to: a client request by its id, or a progress token.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Route {
    Request(RequestId),
    Progress(NumberOrString),
}

#[derive(Debug, Default)]
struct State {
    /// The client's messages to the service; `None` once the session is closed.
    inbound: Option<mpsc::Sender<Box<ClientJsonRpcMessage>>>,
    /// The answer to `initialize`, awaited by the POST that opened the session.
    initializing: Option<oneshot::Sender<ServerJsonRpcMessage>>,
    next_stream: u64,
    /// The streams of requests not yet answered, by number.
    streams: HashMap<u64, RequestStream>,
    routes: HashMap<Route, u64>,
    /// Made with the first standalone message or GET.
    standalone: Option<Box<Standalone>>,
}

impl State {
    /// Where the client's messages go, while the session is open.
    fn inbound(&self) -> Result<mpsc::Sender<Box<ClientJsonRpcMessage>>, SessionError> {
        self.inbound.clone().ok_or(SessionError::Closed)
    }

    fn open_request_stream(&mut self) -> (u64, mpsc::Receiver<ServerSseMessage>) {
        let number = self.next_stream;
        self.next_stream = self.next_stream.wrapping_add(1);
        let (sender, receiver) = mpsc::channel(BUFFERED);
        let mut events = Events {
            sender: Some(sender),
            ..Events::default()
        };
        events.store(ServerSseMessage::priming(
            format!("0/{number}"),
            PRIMING_RETRY,
        ));
        events.next = 1;
        self.streams.insert(
            number,
            RequestStream {
                events,
                routes: Vec::new(),
            },
        );
        (number, receiver)
    }

    /// Sends what relates to `route` to `stream`. A request id still in flight on another
    /// stream (a client reusing an id before its answer) ends that stream: its answer could no
    /// longer be told apart, and the stream would otherwise wait for the session's end.
    fn route(&mut self, route: Route, stream: u64) {
        if !self.streams.contains_key(&stream) {
            return;
        }
        if let Some(previous) = self.routes.insert(route.clone(), stream)
            && previous != stream
            && matches!(route, Route::Request(_))
        {
            self.forget(previous);
        }
        if let Some(open) = self.streams.get_mut(&stream) {
            open.routes.push(route);
        }
    }

    /// Ends the stream of a request the client cancelled.
    fn end_request_stream(&mut self, route: &Route) {
        if let Some(stream) = self.routes.remove(route) {
            self.forget(stream);
        }
    }

    /// Drops a request's stream (its reader sees it end after what it was sent) and its routes;
    /// the maps' memory goes with the last one.
    fn forget(&mut self, stream: u64) {
        if let Some(ended) = self.streams.remove(&stream) {
            for route in ended.routes {
                // Unless a later stream took the route over.
                if self.routes.get(&route) == Some(&stream) {
                    self.routes.remove(&route);
                }
            }
        }
        if self.streams.is_empty() {
            self.streams = HashMap::new();
            self.routes = HashMap::new();
        }
    }

    /// The request stream a server message goes to, and whether it ends the stream; `None`
    /// for the standalone stream.
    fn destination(&self, message: &ServerJsonRpcMessage) -> Option<(u64, bool)> {
        let by_request = |id: &RequestId| self.routes.get(&Route::Request(id.clone())).copied();
        match message {
            JsonRpcMessage::Response(response) => by_request(&response.id).map(|s| (s, true)),
            JsonRpcMessage::Error(error) => {
                error.id.as_ref().and_then(by_request).map(|s| (s, true))
            }
            JsonRpcMessage::Request(request) => request
                .request
                .extensions()
                .get::<rmcp::service::OriginatingRequestId>()
                .and_then(|origin| by_request(&origin.0))
                .map(|s| (s, false)),
            JsonRpcMessage::Notification(notification) => match &notification.notification {
                ServerNotification::ProgressNotification(progress) => self
                    .routes
                    .get(&Route::Progress(progress.params.progress_token.0.clone()))
                    .map(|&s| (s, false)),
                ServerNotification::CancelledNotification(cancelled) => cancelled
                    .params
                    .request_id
                    .as_ref()
                    .and_then(by_request)
                    .map(|s| (s, false)),
                _ => None,
            },
        }
    }

    /// The standalone stream from event `from`, or a silent one when one is open already.
    fn open_standalone(
        &mut self,
        from: usize,
    ) -> Result<mpsc::Receiver<ServerSseMessage>, SessionError> {
        if self.inbound.is_none() {
            return Err(SessionError::Closed);
        }
        let standalone = self.standalone.get_or_insert_with(Box::default);
        if standalone
            .events
            .sender
            .as_ref()
            .is_some_and(|s| !s.is_closed())
        {
            let (sender, receiver) = mpsc::channel(1);
            if standalone.shadows.len() >= MAX_SHADOWS {
                standalone.shadows.remove(0);
            }
            standalone.shadows.retain(|s| !s.is_closed());
            standalone.shadows.push(sender);
            return Ok(receiver);
        }
        standalone
            .events
            .reopen(from)
            .ok_or_else(|| SessionError::NotResumable(from.to_string()))
    }
}

/// The stream of one request.
#[derive(Debug)]
struct RequestStream {
    events: Events,
    routes: Vec<Route>,
}

/// The standalone stream.
#[derive(Debug, Default)]
struct Standalone {
    events: Events,
    /// Further GET streams, kept open without messages (rmcp's answer to clients that open
    /// several, which would otherwise take the stream from each other).
    shadows: Vec<mpsc::Sender<ServerSseMessage>>,
}

/// A numbered sequence of events, its last [`CACHED`] kept to replay, and the stream reading it.
#[derive(Debug, Default)]
struct Events {
    sender: Option<mpsc::Sender<ServerSseMessage>>,
    cache: VecDeque<ServerSseMessage>,
    /// The number of the next event.
    next: usize,
}

impl Events {
    /// Numbers a message (`<n>` or `<n>/<stream>`) and sends it.
    fn send(&mut self, message: ServerJsonRpcMessage, stream: Option<u64>) {
        let id = match stream {
            Some(stream) => format!("{}/{stream}", self.next),
            None => self.next.to_string(),
        };
        self.next += 1;
        self.store(ServerSseMessage::new(id, message));
    }

    fn store(&mut self, event: ServerSseMessage) {
        if self.cache.len() >= CACHED {
            self.cache.pop_front();
        }
        self.cache.push_back(event.clone());
        if let Some(sender) = &self.sender
            && let Err(mpsc::error::TrySendError::Full(event)) = sender.try_send(event)
        {
            tracing::warn!(
                event = ?event.event_id,
                "an MCP client does not read its stream: an event was left for a resume"
            );
        }
    }

    /// A new reader, replaying the cached events from number `from` (`None` when they are no
    /// longer cached).
    fn reopen(&mut self, from: usize) -> Option<mpsc::Receiver<ServerSseMessage>> {
        let first = self.first_cached();
        let skip = from.saturating_sub(first);
        if skip > self.cache.len() {
            return None;
        }
        let (sender, receiver) = mpsc::channel(BUFFERED.max(self.cache.len() - skip));
        for event in self.cache.iter().skip(skip) {
            let _ = sender.try_send(event.clone());
        }
        self.sender = Some(sender);
        Some(receiver)
    }

    fn first_cached(&self) -> usize {
        self.next - self.cache.len()
    }
}

/// Queues a client message for the session's service (waiting while [`QUEUED`] are).
async fn push(
    inbound: mpsc::Sender<Box<ClientJsonRpcMessage>>,
    message: ClientJsonRpcMessage,
) -> Result<(), SessionError> {
    inbound
        .send(Box::new(message))
        .await
        .map_err(|_| SessionError::Closed)
}

fn stream_of(
    mut receiver: mpsc::Receiver<ServerSseMessage>,
) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
    futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}

/// What a session's service reads the client's messages from and sends its own through.
#[derive(Debug)]
pub struct SessionTransport {
    session: Arc<Session>,
    inbound: mpsc::Receiver<Box<ClientJsonRpcMessage>>,
}

impl Transport<RoleServer> for SessionTransport {
    type Error = SessionError;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        std::future::ready(self.session.deliver(item))
    }

    /// The client's next message; `None` once the session is closed or has been idle too long.
    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let expires = self.session.expires_at();
            tokio::select! {
                message = self.inbound.recv() => return message.map(|m| *m),
                () = tokio::time::sleep_until(expires) => {
                    if self.session.expires_at() <= Instant::now() {
                        tracing::debug!("an MCP session expired after {:?} idle", self.session.idle);
                        self.session.close();
                        return None;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.session.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;
    use serde_json::{Value, json};

    use super::*;

    fn client(message: Value) -> ClientJsonRpcMessage {
        serde_json::from_value(message).unwrap()
    }

    fn server(message: Value) -> ServerJsonRpcMessage {
        serde_json::from_value(message).unwrap()
    }

    fn call(id: u64, progress_token: Option<&str>) -> ClientJsonRpcMessage {
        let mut params = json!({"name": "get_data", "arguments": {}});
        if let Some(token) = progress_token {
            params["_meta"] = json!({"progressToken": token});
        }
        client(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
    }

    fn answer(id: u64) -> ServerJsonRpcMessage {
        server(json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}))
    }

    fn progress(token: &str) -> ServerJsonRpcMessage {
        server(json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": 1}}))
    }

    fn list_changed() -> ServerJsonRpcMessage {
        server(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
    }

    /// An event as `(id, method or "response", retry)`.
    fn seen(event: &ServerSseMessage) -> (String, String) {
        let what = match event.message.as_deref() {
            None => "priming".to_owned(),
            Some(message) => {
                let value = serde_json::to_value(message).unwrap();
                value["method"].as_str().unwrap_or("response").to_owned()
            }
        };
        (event.event_id.clone().unwrap_or_default(), what)
    }

    fn pair(id: &str, what: &str) -> (String, String) {
        (id.to_owned(), what.to_owned())
    }

    /// A session whose service read `initialize` and answered it.
    async fn opened(sessions: &Sessions) -> (SessionId, SessionTransport) {
        let id: SessionId = "s-1".into();
        let mut transport = sessions.create(id.clone());
        let initialize = client(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"}}}));
        let (answer, _) = tokio::join!(sessions.initialize(&id, initialize), async {
            let read = transport.receive().await.unwrap();
            assert!(matches!(read, JsonRpcMessage::Request(_)));
            transport.send(answer(0)).await.unwrap();
        });
        assert!(matches!(answer.unwrap(), JsonRpcMessage::Response(_)));
        (id, transport)
    }

    #[tokio::test]
    async fn a_notification_of_a_request_rides_its_stream_until_the_answer() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let (id, mut transport) = opened(&sessions).await;
        let stream = sessions.request(&id, call(7, Some("tok"))).await.unwrap();
        assert!(matches!(
            transport.receive().await,
            Some(JsonRpcMessage::Request(_))
        ));
        transport.send(progress("tok")).await.unwrap();
        transport.send(progress("other")).await.unwrap();
        transport.send(answer(7)).await.unwrap();
        let events: Vec<_> = stream.map(|e| seen(&e)).collect().await;
        assert_eq!(
            events,
            [
                pair("0/0", "priming"),
                pair("1/0", "notifications/progress"),
                pair("2/0", "response"),
            ]
        );
        // The unrelated progress went to the standalone stream; the answered request's routes
        // are gone with its stream.
        let session = sessions.get(&id).unwrap();
        let state = session.lock();
        assert!(state.streams.is_empty() && state.routes.is_empty());
        assert_eq!(state.standalone.as_ref().unwrap().events.cache.len(), 1);
    }

    #[tokio::test]
    async fn a_request_id_reused_in_flight_ends_the_earlier_stream() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let (id, mut transport) = opened(&sessions).await;
        let first = sessions.request(&id, call(5, Some("tok"))).await.unwrap();
        let second = sessions.request(&id, call(5, Some("tok"))).await.unwrap();
        transport.receive().await.unwrap();
        transport.receive().await.unwrap();
        // The earlier stream ended with its priming event only; nothing of it is kept.
        let events: Vec<_> =
            tokio::time::timeout(Duration::from_secs(5), first.map(|e| seen(&e)).collect())
                .await
                .expect("the earlier stream ends");
        assert_eq!(events, [pair("0/0", "priming")]);
        transport.send(progress("tok")).await.unwrap();
        transport.send(answer(5)).await.unwrap();
        let events: Vec<_> = second.map(|e| seen(&e)).collect().await;
        assert_eq!(
            events,
            [
                pair("0/1", "priming"),
                pair("1/1", "notifications/progress"),
                pair("2/1", "response"),
            ]
        );
        // The service's second answer to the reused id has no stream left: the GET stream.
        transport.send(answer(5)).await.unwrap();
        let session = sessions.get(&id).unwrap();
        let state = session.lock();
        assert!(state.streams.is_empty() && state.routes.is_empty());
        assert_eq!(state.standalone.as_ref().unwrap().events.cache.len(), 1);
    }

    #[tokio::test]
    async fn a_notification_of_no_request_goes_to_the_get_stream() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let (id, mut transport) = opened(&sessions).await;
        let stream = sessions.request(&id, call(1, None)).await.unwrap();
        transport.receive().await.unwrap();
        // Sent while the call runs, as capability 1 announces a new listing.
        transport.send(list_changed()).await.unwrap();
        transport.send(answer(1)).await.unwrap();
        let events: Vec<_> = stream.map(|e| seen(&e)).collect().await;
        assert_eq!(events, [pair("0/0", "priming"), pair("1/0", "response")]);
        // A GET opened afterwards gets it first, then what comes later.
        let mut get = Box::pin(sessions.standalone(&id).unwrap());
        assert_eq!(
            seen(&get.next().await.unwrap()),
            pair("0", "notifications/tools/list_changed")
        );
        transport.send(list_changed()).await.unwrap();
        assert_eq!(
            seen(&get.next().await.unwrap()),
            pair("1", "notifications/tools/list_changed")
        );
        // A second GET while the first is open stays silent; resuming after event 1 replays
        // from it once the first is gone, as rmcp does.
        let mut second = Box::pin(sessions.standalone(&id).unwrap());
        transport.send(list_changed()).await.unwrap();
        assert_eq!(seen(&get.next().await.unwrap()).0, "2");
        assert!(futures_util::poll!(second.next()).is_pending());
        drop(get);
        let resumed: Vec<_> = sessions
            .resume(&id, "1".into())
            .unwrap()
            .take(2)
            .map(|e| seen(&e).0)
            .collect()
            .await;
        assert_eq!(resumed, ["1", "2"]);
    }

    #[tokio::test]
    async fn a_stream_still_open_resumes_from_its_last_event_id() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let (id, mut transport) = opened(&sessions).await;
        let first = sessions.request(&id, call(4, Some("p"))).await.unwrap();
        transport.receive().await.unwrap();
        transport.send(progress("p")).await.unwrap();
        drop(first);
        let resumed = sessions.resume(&id, "1/0".into()).unwrap();
        transport.send(answer(4)).await.unwrap();
        let events: Vec<_> = resumed.map(|e| seen(&e)).collect().await;
        assert_eq!(
            events,
            [
                pair("1/0", "notifications/progress"),
                pair("2/0", "response")
            ]
        );
        // An answered stream, or a malformed id, resumes nothing.
        for gone in ["2/0", "0/9", "x", "1/x"] {
            assert!(sessions.resume(&id, gone.into()).is_err(), "{gone}");
        }
    }

    #[tokio::test]
    async fn a_cancelled_request_ends_its_stream() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let (id, mut transport) = opened(&sessions).await;
        let stream = sessions.request(&id, call(5, None)).await.unwrap();
        transport.receive().await.unwrap();
        let cancel = client(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 5, "reason": "gone"}}),
        );
        sessions.accept(&id, cancel).await.unwrap();
        assert!(matches!(
            transport.receive().await,
            Some(JsonRpcMessage::Notification(_))
        ));
        let events: Vec<_> = stream.map(|e| seen(&e).1).collect().await;
        assert_eq!(events, ["priming"]);
    }

    #[tokio::test]
    async fn an_idle_session_expires_and_a_busy_one_does_not() {
        let sessions = Sessions::new(Duration::from_millis(300));
        let (id, mut transport) = opened(&sessions).await;
        let reading = tokio::spawn(async move {
            let mut read = 0;
            while transport.receive().await.is_some() {
                read += 1;
            }
            (read, transport)
        });
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            sessions
                .accept(
                    &id,
                    client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
                )
                .await
                .unwrap();
        }
        let started = Instant::now();
        let (read, transport) = reading.await.unwrap();
        assert_eq!(read, 3);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(290) && waited < Duration::from_secs(2),
            "{waited:?}"
        );
        // Closed: the service's messages are refused, new requests too.
        assert!(transport.session.deliver(list_changed()).is_err());
        assert!(sessions.request(&id, call(9, None)).await.is_err());
    }

    #[tokio::test]
    async fn a_closed_session_ends_its_streams_and_is_freed() {
        let sessions = Sessions::new(Duration::from_secs(60));
        let (id, mut transport) = opened(&sessions).await;
        let call_stream = sessions.request(&id, call(2, None)).await.unwrap();
        let get = sessions.standalone(&id).unwrap();
        let weak = Arc::downgrade(&transport.session);
        assert_eq!(sessions.len(), 1);
        sessions.close(&id);
        assert_eq!(sessions.len(), 0);
        assert!(!sessions.contains(&id));
        // The service reads what was queued, then the end.
        assert!(transport.receive().await.is_some());
        assert!(transport.receive().await.is_none());
        assert_eq!(
            call_stream.map(|e| seen(&e).1).collect::<Vec<_>>().await,
            ["priming"]
        );
        assert_eq!(get.count().await, 0);
        drop(transport);
        assert!(
            weak.upgrade().is_none(),
            "the session outlived its transport"
        );
        assert!(matches!(
            sessions.accept(&id, call(3, None)).await,
            Err(SessionError::NotFound(_))
        ));
    }
}

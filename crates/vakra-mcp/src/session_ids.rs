//! MCP session ids that name the replica holding the session, `<replica>.<uuid>`, so that a
//! proxy in front of several `vakra serve` replicas can send every later request of a session
//! (POST, the SSE GET, DELETE) to the replica that created it: the `initialize` POST carries no
//! session id, so hashing the id cannot pick that replica (docs/deployment.md). The sessions
//! themselves are kept by `sessions.rs`.

use std::time::Duration;

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::{ServerSseMessage, session_id};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::SessionId;

use crate::sessions::{SessionError, SessionTransport, Sessions};

/// The longest replica name (a DNS label, as Kubernetes pod names of a StatefulSet are).
const MAX_REPLICA_NAME: usize = 63;

/// Checks a replica name: 1 to 63 ASCII letters, digits and `-` (no `.`, which ends the name in
/// a session id).
pub fn check_replica_name(name: &str) -> Result<(), String> {
    let valid = (1..=MAX_REPLICA_NAME).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "replica name {name:?}: expected 1 to {MAX_REPLICA_NAME} letters, digits and '-' \
             (a Kubernetes pod name of a StatefulSet)"
        ))
    }
}

/// The sessions of one endpoint, with ids `<replica>.<uuid>` when a replica name is set (plain
/// uuids otherwise).
#[derive(Debug)]
pub struct NamedSessions {
    replica: Option<String>,
    inner: Sessions,
}

impl NamedSessions {
    /// Sessions named after `replica` (checked by [`check_replica_name`] beforehand), closed
    /// after `idle` without a message.
    pub fn new(replica: Option<&str>, idle: Duration) -> Self {
        Self {
            replica: replica.map(str::to_owned),
            inner: Sessions::new(idle),
        }
    }

    fn new_id(&self) -> SessionId {
        match &self.replica {
            Some(replica) => format!("{replica}.{}", session_id()).into(),
            None => session_id(),
        }
    }

    /// Sessions open.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.inner.len()
    }
}

impl SessionManager for NamedSessions {
    type Error = SessionError;
    type Transport = SessionTransport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let id = self.new_id();
        let transport = self.inner.create(id.clone());
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner.initialize(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.contains(id))
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner.close(id);
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.request(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner.accept(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.standalone(id)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner.resume(id, last_event_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_start_with_the_replica_name() {
        let named = NamedSessions::new(Some("vakra-2"), Duration::from_secs(1));
        let id = named.new_id();
        let (replica, rest) = id.split_once('.').unwrap();
        assert_eq!(replica, "vakra-2");
        assert_eq!(rest.len(), 36, "{id}");
        assert_ne!(named.new_id(), id);
        assert!(
            !NamedSessions::new(None, Duration::from_secs(1))
                .new_id()
                .contains('.')
        );
    }

    #[test]
    fn replica_names_are_dns_labels() {
        assert!(check_replica_name("vakra-0").is_ok());
        for bad in ["", "a.b", "a b", "é", &"x".repeat(64)] {
            assert!(
                check_replica_name(bad)
                    .unwrap_err()
                    .contains("replica name"),
                "{bad}"
            );
        }
    }
}

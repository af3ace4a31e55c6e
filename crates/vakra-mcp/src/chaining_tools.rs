use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use rmcp::model::{ServerConfig, Tool};
use serde_json::{Map, Value};
use tokio::sync::Mutex;
use vakra_chaining::{ChainingEnv, ListedTool, Session};

use crate::tool_server::{Answer, Answered, ToolServer};

/// Capability 1: one [`Session`] of SLOT-BIRD/SEL-BIRD tools. Its listing changes as the
/// session's data does; a call that changes it says so (the handler announces it with
/// `notifications/tools/list_changed`, and the SDK validates against the last listing).
#[derive(Clone)]
pub(crate) struct ChainingToolServer {
    env: Arc<ChainingEnv>,
    session: Arc<Mutex<Session>>,
    info: ServerConfig,
}

impl ChainingToolServer {
    /// A server with a fresh session of `env`'s domain.
    pub(crate) fn new(env: Arc<ChainingEnv>, info: ServerConfig) -> Self {
        let session = Session::new(Arc::clone(&env));
        Self {
            env,
            session: Arc::new(Mutex::new(session)),
            info,
        }
    }
}

fn to_tool(t: ListedTool) -> Tool {
    Tool::new(t.name, t.description, t.input_schema)
}

impl ToolServer for ChainingToolServer {
    fn info(&self) -> ServerConfig {
        self.info.clone()
    }

    fn tools(&self) -> BoxFuture<'_, Vec<Tool>> {
        async move {
            // Waits (without a thread) for a call of this session in progress.
            let session = self.session.lock().await;
            session.list_tools().into_iter().map(to_tool).collect()
        }
        .boxed()
    }

    /// The same domain, with a new session state.
    fn new_session(&self) -> Arc<dyn ToolServer> {
        Arc::new(Self::new(Arc::clone(&self.env), self.info.clone()))
    }

    fn sdk_validates(&self, _name: &str) -> bool {
        true
    }

    fn call<'a>(&'a self, name: &'a str, arguments: Map<String, Value>) -> BoxFuture<'a, Answered> {
        async move {
            let mut session = Arc::clone(&self.session).lock_owned().await;
            let name = name.to_owned();
            // Loading a universe runs SQL and tools may scan many rows: off the async workers.
            crate::calls::blocking(move || {
                let before = session.listing_generation();
                let reply = session.call(&name, arguments);
                Answer {
                    listing_changed: session.listing_generation() != before,
                    ..Answer::text(reply.text, reply.is_error)
                }
            })
            .await
        }
        .boxed()
    }
}

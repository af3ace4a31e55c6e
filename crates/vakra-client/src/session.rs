//! Where replayed calls go: the project's own servers in-process (a real MCP session whose
//! JSON-RPC messages pass through in-memory queues, so agents' and the evaluator's view are
//! the same), any MCP server started as a command (stdio), or one reached by URL (streamable
//! HTTP). Every sample gets fresh sessions, so no state (capability-1 handles, BPO counters)
//! leaks between samples.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::channel::mpsc;
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult, Tool,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value};
use vakra_mcp::{Capability, EnvServer, ServerOptions, SessionSpec};

use crate::coerce::coerce_arguments;

/// Messages an in-process session's queues hold before the sender waits.
const IN_PROCESS_QUEUE: usize = 16;

/// How sessions are opened.
#[derive(Clone)]
pub enum Connector {
    /// The project's servers, in this process.
    InProcess(Arc<InProcess>),
    /// An MCP server spawned per session over stdio. `{capability}` and `{domain}` in the
    /// arguments are replaced; the child also gets `CAPABILITY_ID` and `MCP_DOMAIN`, as the
    /// reference's dispatcher reads them.
    Command { program: String, args: Vec<String> },
    /// A streamable-HTTP MCP endpoint; `{capability}` and `{domain}` in it are replaced.
    Url(String),
}

/// The in-process servers, each (capability, domain) loaded once and cloned per session.
pub struct InProcess {
    options: ServerOptions,
    servers: Mutex<HashMap<(u8, String), Result<EnvServer, String>>>,
}

impl InProcess {
    pub fn new(options: ServerOptions) -> Self {
        Self {
            options,
            servers: Mutex::new(HashMap::new()),
        }
    }

    fn server(&self, capability: u8, domain: &str) -> Result<EnvServer, String> {
        let mut servers = self.servers.lock().unwrap_or_else(|e| e.into_inner());
        servers
            .entry((capability, domain.to_owned()))
            .or_insert_with(|| {
                let capability: Capability = capability.to_string().parse().map_err(|e| {
                    format!("{e}") // unreachable for 1–4, kept as an error rather than a panic
                })?;
                EnvServer::open(&SessionSpec::new(capability, domain), &self.options)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map(EnvServer::new_session)
            .map_err(Clone::clone)
    }
}

impl Connector {
    /// A short description for the report.
    pub fn describe(&self) -> String {
        match self {
            Connector::InProcess(_) => "in-process".into(),
            Connector::Command { program, args } => {
                format!("command: {program} {}", args.join(" "))
            }
            Connector::Url(url) => format!("url: {url}"),
        }
    }

    /// Opens a fresh MCP session for one capability and domain and reads its tool list.
    pub async fn open(
        &self,
        capability: u8,
        domain: &str,
        call_timeout: Duration,
    ) -> Result<ReplaySession, String> {
        let fill = |s: &str| {
            s.replace("{capability}", &capability.to_string())
                .replace("{domain}", domain)
        };
        let connect = async {
            match self {
                Connector::InProcess(servers) => {
                    let server = servers.server(capability, domain)?;
                    // JSON-RPC messages handed over as they are: the same session as over a
                    // pipe without encoding and parsing every message (which took a third of
                    // the RL episodes' time, docs/benchmarks.md).
                    let (to_server, from_client) = mpsc::channel(IN_PROCESS_QUEUE);
                    let (to_client, from_server) = mpsc::channel(IN_PROCESS_QUEUE);
                    tokio::spawn(async move {
                        if let Ok(running) = server.serve((to_client, from_client)).await {
                            let _ = running.waiting().await;
                        }
                    });
                    ().serve((to_server, from_server))
                        .await
                        .map_err(|e| e.to_string())
                }
                Connector::Command { program, args } => {
                    let mut command = tokio::process::Command::new(program);
                    command
                        .args(args.iter().map(|a| fill(a)))
                        .env("CAPABILITY_ID", capability.to_string())
                        .env("MCP_DOMAIN", domain)
                        .kill_on_drop(true);
                    // The builder's default passes the server's stderr through, which would
                    // hold the caller's stderr open for as long as the server (or anything it
                    // started) lives.
                    let (transport, _) = TokioChildProcess::builder(command)
                        .stderr(std::process::Stdio::null())
                        .spawn()
                        .map_err(|e| format!("cannot start {program}: {e}"))?;
                    ().serve(transport).await.map_err(|e| e.to_string())
                }
                Connector::Url(url) => {
                    let transport = StreamableHttpClientTransport::from_uri(fill(url));
                    ().serve(transport).await.map_err(|e| e.to_string())
                }
            }
        };
        let client = tokio::time::timeout(call_timeout, connect)
            .await
            .map_err(|_| format!("no MCP session within {call_timeout:?}"))?
            .map_err(|e| format!("cannot open an MCP session: {e}"))?;
        let mut session = ReplaySession {
            client,
            tools: Vec::new(),
            call_timeout,
        };
        session.relist().await?;
        Ok(session)
    }
}

/// One replayed call's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The first content item's text, as the reference keeps it; `"Error: …"` when the call
    /// itself failed. This is what gets scored, whatever [`Response::issue`] says.
    pub text: String,
    /// What went wrong, for the report.
    pub issue: Option<CallIssue>,
}

/// Why a replayed call's text is not a tool's ordinary answer. The reference scores such texts
/// as they are; the report lists them so that a reader can tell a wrong trace from a broken
/// replay.
#[derive(Debug, Clone, PartialEq)]
pub enum CallIssue {
    /// The server answered with an error: a result flagged `isError`, or an MCP error.
    ErrorResult(String),
    /// No answer: a timeout, a closed session or transport error, or unusable arguments.
    Failure(String),
}

/// An open MCP session and its tool listing.
pub struct ReplaySession {
    client: RunningService<RoleClient, ()>,
    tools: Vec<Tool>,
    call_timeout: Duration,
}

impl ReplaySession {
    /// The tools as the session listed them when it opened (or at the last [`Self::relist`]).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Lists the tools again (after a call that changed them, as capability 1's `get_data`
    /// can).
    pub async fn relist(&mut self) -> Result<(), String> {
        let tools = tokio::time::timeout(self.call_timeout, self.client.list_all_tools())
            .await
            .map_err(|_| format!("tools/list unanswered within {:?}", self.call_timeout))?
            .map_err(|e| format!("tools/list failed: {e}"))?;
        self.tools = tools;
        Ok(())
    }

    /// The listed tool of this name (the last, should the listing repeat a name).
    fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().rev().find(|tool| tool.name == name)
    }

    /// Whether the server lists a tool of this name.
    pub fn has_tool(&self, name: &str) -> bool {
        self.tool(name).is_some()
    }

    /// Calls a tool with the reference's argument handling: a JSON string is parsed first,
    /// and listed tools get their arguments coerced to the schema.
    pub async fn call(&self, name: &str, arguments: &Value) -> Response {
        let mut arguments = match arguments {
            Value::Object(map) => map.clone(),
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => map,
                _ => return failed(format!("arguments are not a JSON object: {text}")),
            },
            Value::Null => Map::new(),
            other => return failed(format!("arguments are not an object: {other}")),
        };
        if let Some(tool) = self.tool(name) {
            coerce_arguments(&mut arguments, &tool.input_schema);
        }
        match self.send(name, arguments).await {
            Err(Unanswered::Mcp { code, message }) => Response {
                text: format!("Error: {message}"),
                issue: Some(CallIssue::ErrorResult(format!(
                    "MCP error {code}: {message}"
                ))),
            },
            Err(Unanswered::Failure(message)) => failed(message),
            Ok(result) => {
                let text = result
                    .content
                    .first()
                    .map(|item| match item.as_text() {
                        Some(text) => text.text.clone(),
                        None => serde_json::to_string(item).unwrap_or_default(),
                    })
                    .unwrap_or_default();
                let issue = (result.is_error == Some(true))
                    .then(|| CallIssue::ErrorResult(format!("isError: {}", excerpt(&text))));
                Response { text, issue }
            }
        }
    }

    /// Calls a tool as any MCP client does: the arguments as given (no coercion) and the
    /// whole result; an MCP error or no answer is the error.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, CallIssue> {
        self.send(name, arguments).await.map_err(|e| match e {
            Unanswered::Mcp { code, message } => {
                CallIssue::ErrorResult(format!("MCP error {code}: {message}"))
            }
            Unanswered::Failure(message) => CallIssue::Failure(message),
        })
    }

    async fn send(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<CallToolResult, Unanswered> {
        let request = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let call = async {
            match vakra_pytext::digits::current() {
                None => self.client.call_tool(request).await,
                Some(digits) => self.call_with_digits(request, digits).await,
            }
        };
        match tokio::time::timeout(self.call_timeout, call).await {
            Err(_) => Err(Unanswered::Failure(format!(
                "no answer within {:?}",
                self.call_timeout
            ))),
            Ok(Err(ServiceError::McpError(error))) => Err(Unanswered::Mcp {
                code: error.code.0,
                message: error.message.to_string(),
            }),
            Ok(Err(error)) => Err(Unanswered::Failure(error.to_string())),
            Ok(Ok(result)) => Ok(result),
        }
    }

    /// A call made while integers beyond 64 bits of the caller's message are in force (an RL
    /// episode's action, [`vakra_pytext::digits`]): their digits go beside the request, as the
    /// HTTP and stdio transports carry them, so that the tool's texts quote them as Python
    /// would (in-process sessions only; a serialised request carries the floats). Dropped
    /// before its answer, the call is cancelled, as rmcp's own `call_tool` does.
    async fn call_with_digits(
        &self,
        params: CallToolRequestParams,
        digits: Arc<[String]>,
    ) -> Result<CallToolResult, ServiceError> {
        let mut request = CallToolRequest::new(params);
        request.extensions.insert(vakra_mcp::BigIntegers(digits));
        let handle = self
            .client
            .send_request_with_option(
                ClientRequest::CallToolRequest(request),
                PeerRequestOptions::no_options(),
            )
            .await?;
        let mut abandoned = Abandoned {
            peer: self.client.peer().clone(),
            id: Some(handle.id.clone()),
        };
        let result = handle.await_response().await;
        abandoned.id = None;
        match result? {
            ServerResult::CallToolResult(result) => Ok(result),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    /// Ends the session (the server process, if any, exits when its input closes).
    pub async fn close(self) {
        let _ = self.client.cancel().await;
    }
}

/// A request that, dropped before its answer, tells the server it is cancelled.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let peer = self.peer.clone();
        tokio::spawn(async move {
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some("request abandoned by the caller".to_owned()),
                ))
                .await;
        });
    }
}

/// A call that got no result.
enum Unanswered {
    /// The server answered with an MCP error.
    Mcp { code: i32, message: String },
    /// A timeout, a closed session or a transport error.
    Failure(String),
}

fn failed(message: String) -> Response {
    Response {
        text: format!("Error: {message}"),
        issue: Some(CallIssue::Failure(message)),
    }
}

/// The start of a long text, for a one-line problem.
fn excerpt(text: &str) -> String {
    const LIMIT: usize = 200;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

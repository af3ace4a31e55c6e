//! The one MCP `ServerHandler`, [`EnvServer`]'s, in front of every capability's
//! [`ToolServer`](crate::tool_server::ToolServer). A `tools/call` goes, in this order: into the
//! session's queue under its time limit (`calls.rs`); through the Python SDK's argument
//! validation against its cached listing, where the reference's stack does it; to the tool
//! server; out as an MCP result, with `notifications/tools/list_changed` when the listing
//! changed; through the result cap; into the session's trace.

use std::borrow::Cow;
use std::time::Instant;

use chrono::Utc;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::EnvServer;
use crate::env::SdkCache;
use crate::tool_server::Answer;
use crate::validation;

impl EnvServer {
    /// Lists the session's tools and caches their schemas, as the SDK does with every listing.
    /// Holding the cache while listing keeps a listing and a call's validation in order.
    async fn list_and_cache(&self, cache: &mut SdkCache) -> Vec<Tool> {
        let tools = self.server.tools().await;
        *cache = tools
            .iter()
            .map(|t| (t.name.to_string(), std::sync::Arc::clone(&t.input_schema)))
            .collect();
        tools
    }

    /// The SDK's check before a call: against the schema of the last listing (listed afresh
    /// when the name is not in it; a tool not listed at all is not checked). The message of
    /// the failure, if any.
    async fn sdk_validation(&self, name: &str, arguments: &Map<String, Value>) -> Option<String> {
        if !self.server.sdk_validates(name) {
            return None;
        }
        let mut cache = self.sdk_cache.lock().await;
        if !cache.contains_key(name) {
            self.list_and_cache(&mut cache).await;
        }
        let schema = cache.get(name).cloned()?;
        drop(cache);
        validation::validate(arguments, &schema)
    }

    /// A call's answer before it is traced.
    async fn answer(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let cancelled = context.ct.clone();
        let call = async {
            let name = request.name.as_ref();
            let arguments = request.arguments.unwrap_or_default();
            if let Some(message) = self.sdk_validation(name, &arguments).await {
                let text = format!("Input validation error: {message}");
                return Ok(Answer::text(text, true).into_result().into());
            }
            let answer = self
                .server
                .call(name, arguments)
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            if answer.listing_changed {
                // A client that went away cannot be told; the call's answer still stands.
                let _ = context.peer.notify_tool_list_changed().await;
            }
            Ok(answer.into_result().into())
        };
        let client = crate::incoming::client(&context.extensions);
        let response = self.calls.run(&cancelled, client, call).await?;
        Ok(capped(response, self.max_result_bytes))
    }
}

impl ServerHandler for EnvServer {
    fn get_info(&self) -> ServerConfig {
        self.server.info()
    }

    /// Up to 2025-11-25, what the reference's Python SDK speaks. 2026-07-28 serves each HTTP
    /// request statelessly, which would lose per-session state (capability-1 handles, BPO
    /// counters) and per-session tool lists.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    /// A request rmcp could not type: an unknown method, or a known one whose params do not
    /// parse (`tools/call` with `arguments` as a list). The Python SDK answers every request
    /// that fails its validation with invalid params, "Invalid request parameters", data "".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        tracing::debug!(method = request.method, "request that does not validate");
        Err(ErrorData::invalid_params(
            "Invalid request parameters",
            Some(Value::String(String::new())),
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(trace) = &self.trace {
            trace.file(&context.extensions);
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if let Some(trace) = &self.trace {
            trace.file(&context.extensions);
        }
        let mut cache = self.sdk_cache.lock().await;
        Ok(ListToolsResult {
            tools: self.list_and_cache(&mut cache).await,
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Arguments deeper than rmcp reads, and integers beyond 64 bits, arrive beside the
        // request (`incoming`): put back, and printed with their digits while the call runs.
        let request = crate::incoming::with_deep_arguments(request, &context.extensions);
        match crate::incoming::big_integers(&context.extensions) {
            Some(found) => {
                vakra_pytext::digits::WithDigits::new(found.0, self.traced_call(request, context))
                    .await
            }
            None => self.traced_call(request, context).await,
        }
    }
}

impl EnvServer {
    /// Answers a call, recording it and its answer in the session's trace when there is one.
    async fn traced_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(trace) = &self.trace else {
            return self.answer(request, context).await;
        };
        let extensions = context.extensions.clone();
        let started_at = Utc::now();
        let clock = Instant::now();
        let response = self.answer(request.clone(), context).await;
        trace
            .record_call(extensions, &request, &response, started_at, clock)
            .await;
        response
    }
}

/// Counts the bytes written to it (the size of a JSON value without building its text).
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Replaces a result whose text and structured content exceed `max_bytes` by an error that
/// says so: an agent gets a clear answer instead of an unbounded one (`--max-result-bytes`).
fn capped(response: CallToolResponse, max_bytes: usize) -> CallToolResponse {
    let CallToolResponse::Complete(result) = &response else {
        return response;
    };
    let text: usize = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.len())
        .sum();
    // BPO answers repeat their payload as structured content, sent (and built) as JSON too.
    let structured = result.structured_content.as_ref().map_or(0, |value| {
        let mut counter = ByteCounter(0);
        let _ = serde_json::to_writer(&mut counter, value);
        counter.0
    });
    let size = text + structured;
    if size <= max_bytes {
        return response;
    }
    let text = format!(
        "Error: the result of this call is {size} bytes, more than this server's limit of \
         {max_bytes} bytes (--max-result-bytes); ask for less data"
    );
    CallToolResponse::Complete(Answer::text(text, true).into_result())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use futures_util::FutureExt;
    use futures_util::future::BoxFuture;
    use rmcp::ServiceExt;
    use rmcp::model::{CallToolRequestParams, ServerConfig, Tool};
    use serde_json::{Map, Value, json};

    use crate::EnvServer;
    use crate::tool_server::{Answer, Answered, ToolServer};

    /// A server whose `grow` tool changes the listing: afterwards `grow` also requires `m` and
    /// `late` is listed. `own` checks its own arguments.
    #[derive(Default)]
    struct Growing {
        grown: AtomicBool,
    }

    fn tool(name: &'static str, required: &[&str]) -> Tool {
        let properties: Map<String, Value> = required
            .iter()
            .map(|p| (p.to_string(), json!({"type": "integer"})))
            .collect();
        let schema = json!({"type": "object", "properties": properties, "required": required});
        let Value::Object(schema) = schema else {
            unreachable!("a JSON object")
        };
        Tool::new(name, name, Arc::new(schema))
    }

    impl ToolServer for Growing {
        fn info(&self) -> ServerConfig {
            crate::options::server_config("growing", true)
        }

        fn tools(&self) -> BoxFuture<'_, Vec<Tool>> {
            let tools = if self.grown.load(Ordering::SeqCst) {
                vec![
                    tool("grow", &["n", "m"]),
                    tool("own", &["x"]),
                    tool("late", &["y"]),
                ]
            } else {
                vec![tool("grow", &["n"]), tool("own", &["x"])]
            };
            std::future::ready(tools).boxed()
        }

        fn new_session(&self) -> Arc<dyn ToolServer> {
            Arc::new(Growing::default())
        }

        fn sdk_validates(&self, name: &str) -> bool {
            name != "own"
        }

        fn call<'a>(&'a self, name: &'a str, _: Map<String, Value>) -> BoxFuture<'a, Answered> {
            let changed = name == "grow" && !self.grown.swap(true, Ordering::SeqCst);
            let answer = Answer {
                listing_changed: changed,
                ..Answer::text(format!("{name} ran"), false)
            };
            std::future::ready(Ok(answer)).boxed()
        }
    }

    /// An `EnvServer` around `Growing`, served over an in-memory pipe: the client's end.
    fn serve_growing() -> tokio::io::DuplexStream {
        let server = EnvServer::of(
            Arc::new(Growing::default()),
            1 << 20,
            Duration::from_secs(5),
            vakra_lanes::Lanes::unshared("tests"),
        );
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        client_end
    }

    /// The handler validates as the Python SDK does: against the session's last listing (a stale
    /// schema stays in force until the client lists again), listing afresh for a name not in it,
    /// and only the tools the server leaves to the SDK.
    #[tokio::test]
    async fn arguments_are_checked_against_the_last_listing() {
        let client_end = serve_growing();
        let client = ().serve(client_end).await.unwrap();
        let call = |name: &'static str, arguments: Value| {
            let Value::Object(arguments) = arguments else {
                unreachable!("a JSON object")
            };
            let client = &client;
            async move {
                let request = CallToolRequestParams::new(name).with_arguments(arguments);
                let result = client.call_tool(request).await.unwrap();
                let text = result.content[0].as_text().unwrap().text.clone();
                (text, result.is_error.unwrap_or(false))
            }
        };
        let invalid = |message: &str| (format!("Input validation error: {message}"), true);

        // No listing yet: the first call lists, then validates.
        assert_eq!(
            call("grow", json!({"n": "x"})).await,
            invalid("'x' is not of type 'integer'")
        );
        assert_eq!(call("own", json!({})).await, ("own ran".into(), false));
        assert_eq!(
            call("grow", json!({"n": 1})).await,
            ("grow ran".into(), false)
        );
        // `grow` now requires `m` too, but the cached listing still says `n` only…
        assert_eq!(
            call("grow", json!({"n": 2})).await,
            ("grow ran".into(), false)
        );
        // …while `late`, not in it, makes the SDK list again, which refreshes `grow` as well.
        assert_eq!(
            call("late", json!({})).await,
            invalid("'y' is a required property")
        );
        assert_eq!(
            call("grow", json!({"n": 3})).await,
            invalid("'m' is a required property")
        );
        // A tool listed nowhere is not validated: the server answers.
        assert_eq!(call("gone", json!({})).await, ("gone ran".into(), false));
        client.cancel().await.unwrap();
    }

    /// Requests that fail the Python SDK's validation (`arguments` a list, an unknown method)
    /// are answered as it answers them: -32602, "Invalid request parameters", data "".
    #[tokio::test]
    async fn requests_that_do_not_validate_get_invalid_params() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let client_end = serve_growing();
        let (read, mut write) = tokio::io::split(client_end);
        let mut lines = tokio::io::BufReader::new(read).lines();
        let requests = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "grow", "arguments": [1, 2]}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method", "params": {}}),
        ];
        for request in requests {
            write
                .write_all(format!("{request}\n").as_bytes())
                .await
                .unwrap();
        }
        let mut answers = Vec::new();
        while answers.len() < 3 {
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .expect("an answer within 10 s")
                .unwrap()
                .expect("a line");
            answers.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        for id in [2, 3] {
            let answer = answers.iter().find(|a| a["id"] == id).unwrap();
            assert_eq!(
                answer["error"],
                json!({"code": -32602, "message": "Invalid request parameters", "data": ""}),
                "{answer}"
            );
        }
    }
}

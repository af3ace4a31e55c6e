//! OpenEnv's wire format (meta-pytorch/OpenEnv, `openenv-core`): the messages a client sends
//! over the WebSocket, the envelopes the server answers with, the MCP-style actions and their
//! observations, and the JSON schemas `/schema` publishes.

use rmcp::model::Tool;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// A client's message (`{"type": …, "data": …}`).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    Reset {
        #[serde(default)]
        data: ResetData,
    },
    Step {
        data: Value,
    },
    State,
    Close,
    /// A JSON-RPC request (`tools/list`, `tools/call`) on the episode's session.
    Mcp {
        data: Value,
    },
}

/// What `reset` accepts; other keys are ignored, as OpenEnv ignores keys its environment's
/// `reset` does not take.
#[derive(Debug, Default, Deserialize)]
pub struct ResetData {
    pub uuid: Option<String>,
    pub seed: Option<u64>,
    pub episode_id: Option<String>,
    pub capability: Option<u8>,
    pub domain: Option<String>,
}

/// An action (`step`'s data): OpenEnv's MCP actions, and the answer that ends the episode.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    ListTools,
    CallTool {
        tool_name: String,
        #[serde(default)]
        arguments: Map<String, Value>,
    },
    SubmitAnswer {
        answer: Value,
    },
}

/// OpenEnv's error codes (`WSErrorCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidJson,
    UnknownType,
    ValidationError,
    ExecutionError,
    CapacityReached,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::UnknownType => "UNKNOWN_TYPE",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::ExecutionError => "EXECUTION_ERROR",
            ErrorCode::CapacityReached => "CAPACITY_REACHED",
        }
    }
}

/// A JSON object of these entries, their values moved in (`json!` copies every value it is
/// given by serializing it, which for observations holding tool listings and verdicts was a
/// tenth of the episodes' time).
pub fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect(),
    )
}

/// `{"type": "observation", "data": {"observation", "reward", "done"}}`.
pub fn observation_message(observation: Value, reward: Option<f64>, done: bool) -> Value {
    object([
        ("type", "observation".into()),
        ("data", step_result(observation, reward, done)),
    ])
}

/// The body of an observation (also `/reset`'s HTTP answer).
pub fn step_result(observation: Value, reward: Option<f64>, done: bool) -> Value {
    object([
        ("observation", observation),
        ("reward", reward.into()),
        ("done", done.into()),
    ])
}

pub fn state_message(state: Value) -> Value {
    object([("type", "state".into()), ("data", state)])
}

pub fn error_message(code: ErrorCode, message: &str) -> Value {
    json!({"type": "error", "data": {"message": message, "code": code.as_str()}})
}

pub fn mcp_message(response: Value) -> Value {
    object([("type", "mcp".into()), ("data", response)])
}

/// A tool as OpenEnv's `Tool` model holds it: the MCP listing's name, description and input
/// schema, unchanged.
pub fn tool_json(tool: &Tool) -> Value {
    object([
        ("name", tool.name.as_ref().into()),
        (
            "description",
            tool.description.as_deref().unwrap_or_default().into(),
        ),
        ("input_schema", Value::Object((*tool.input_schema).clone())),
    ])
}

/// The schemas `/schema` answers with.
pub fn schemas() -> Value {
    json!({
        "action": {
            "title": "VakraAction",
            "oneOf": [
                {"type": "object", "required": ["type"], "properties": {
                    "type": {"const": "list_tools"}}},
                {"type": "object", "required": ["type", "tool_name"], "properties": {
                    "type": {"const": "call_tool"},
                    "tool_name": {"type": "string"},
                    "arguments": {"type": "object"}}},
                {"type": "object", "required": ["type", "answer"], "properties": {
                    "type": {"const": "submit_answer"},
                    "answer": {"description": "The agent's final answer (usually a string)."}}}
            ]
        },
        "observation": {
            "title": "VakraObservation",
            "type": "object",
            "description": "reset: episode_id, uuid, capability, domain, query, messages, \
                policy, tools, seed; list_tools: tools; call_tool: tool_name, result (the MCP \
                CallToolResult) or error; submit_answer: answer, reward, verdict, prediction.",
            "properties": {
                "episode_id": {"type": "string"},
                "uuid": {"type": "string"},
                "capability": {"type": "integer"},
                "domain": {"type": "string"},
                "query": {"type": "string"},
                "messages": {"type": "array", "items": {"type": "object"}},
                "policy": {"type": ["string", "null"]},
                "tools": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "description": {"type": "string"},
                    "input_schema": {"type": "object"}}}},
                "tool_name": {"type": "string"},
                "result": {"type": ["object", "null"]},
                "error": {"type": ["object", "null"]},
                "verdict": {"type": "object"},
                "prediction": {"type": "object"},
            }
        },
        "state": {
            "title": "VakraState",
            "type": "object",
            "properties": {
                "episode_id": {"type": ["string", "null"]},
                "step_count": {"type": "integer"},
                "uuid": {"type": "string"},
                "capability": {"type": "integer"},
                "domain": {"type": "string"},
                "done": {"type": "boolean"},
                "reward": {"type": ["number", "null"]},
            }
        }
    })
}

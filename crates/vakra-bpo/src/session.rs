//! One MCP session's view of the BPO server. The reference keeps its random generator and call
//! counter in module globals of a server process that lives for one session, so each session
//! here starts from the same fresh state.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use vakra_catalog::tools::ToolSpec;

use crate::data::BpoData;
use crate::state::SessionState;
use crate::tools::{self, Call, Outcome, Returns, TOOLS, ToolDef};
use crate::validate::validate;

/// What an MCP client receives for one `tools/call`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The single text content item; `None` when the tool returned `None` (no content items).
    pub text: Option<String>,
    /// The result's `isError`.
    pub is_error: bool,
    /// How FastMCP derives `structuredContent` from the returned value, and whether that value
    /// was a string (sent as the text itself).
    structured: Option<(Returns, bool)>,
}

impl ToolOutput {
    fn error(text: String) -> Self {
        Self {
            text: Some(text),
            is_error: true,
            structured: None,
        }
    }

    /// The result's `structuredContent`, where FastMCP sends one: `{"result": value}` for tools
    /// declaring a union or non-object return type, the object itself for a model, and for
    /// undeclared return types the value when it is an object. Derived from the text on demand,
    /// as most clients ignore it.
    pub fn structured_content(&self) -> Option<Value> {
        let (returns, string) = self.structured?;
        let text = self.text.as_deref()?;
        let value = if string {
            Value::String(text.to_owned())
        } else {
            serde_json::from_str(text).ok()?
        };
        match returns {
            Returns::Wrapped => Some(json!({"result": value})),
            Returns::Model | Returns::Untyped => value.is_object().then_some(value),
        }
    }
}

/// A session of the BPO server: the shared data and this session's generator and counters.
pub struct BpoSession {
    data: Arc<BpoData>,
    state: SessionState,
}

impl BpoSession {
    /// A session in the state of a freshly started reference server.
    pub fn new(data: Arc<BpoData>) -> Self {
        Self {
            data,
            state: SessionState::fresh(),
        }
    }

    /// The 32 tools as the reference's FastMCP 2.x lists them, in its order, described by the
    /// data folder's descriptions file (a tool it does not describe has an empty description).
    pub fn tools(&self) -> Vec<ToolSpec> {
        TOOLS
            .iter()
            .map(|t| ToolSpec {
                name: t.name.into(),
                description: self.data.descriptions.tool(t.name).into(),
                input_schema: tools::input_schema(t.params),
            })
            .collect()
    }

    /// The tool's `outputSchema` (see [`BpoData::output_schema`]).
    pub fn output_schema(&self, tool: &str) -> Option<Map<String, Value>> {
        self.data.output_schema(tool)
    }

    /// Answers one `tools/call` as the reference server would, advancing this session's state
    /// as it does. Never panics on any input.
    pub fn call(&mut self, name: &str, arguments: Map<String, Value>) -> ToolOutput {
        let Some(tool) = tools::find(name) else {
            return ToolOutput::error(format!("Unknown tool: {name}"));
        };
        let args = match validate(tool.name, tool.params, &arguments) {
            Ok(args) => args,
            Err(text) => return ToolOutput::error(text),
        };
        let mut call = Call {
            data: &self.data,
            state: &mut self.state,
            args,
        };
        encode(tool, (tool.run)(&mut call))
    }
}

impl BpoData {
    /// The tool's `outputSchema`, for the tools whose reference function declares a return type,
    /// with the models described as the data folder's descriptions file describes them (a model it
    /// does not describe has no `description`).
    pub fn output_schema(&self, tool: &str) -> Option<Map<String, Value>> {
        match tools::output_schema(&self.descriptions, tool) {
            Some(Value::Object(map)) => Some(map),
            _ => None,
        }
    }
}

/// The `_meta` FastMCP 2.x lists with every tool.
pub fn tool_meta() -> Map<String, Value> {
    match json!({"_fastmcp": {"tags": []}}) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// FastMCP's encoding: strings as they are, anything else as compact JSON; `None` as no
/// content; exceptions as error results naming the tool.
fn encode(tool: &ToolDef, outcome: Outcome) -> ToolOutput {
    let (text, string) = match outcome {
        Outcome::Raise(message) => {
            return ToolOutput::error(format!("Error calling tool '{}': {message}", tool.name));
        }
        Outcome::Value(Value::Null) => (None, false),
        Outcome::Value(Value::String(s)) => (Some(s), true),
        Outcome::Value(value) => (Some(value.to_string()), false),
        Outcome::Json(text) => (Some(text), false),
    };
    ToolOutput {
        text,
        is_error: false,
        structured: Some((tool.returns, string)),
    }
}

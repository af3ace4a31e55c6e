//! Model-server dialects: how a server shapes the same assistant message. A dialect is a JSON
//! fixture (`fixtures/dialects/*.json`, written for this project from the servers' public
//! documentation of their OpenAI-compatible endpoints) whose keys say:
//!
//! - `server`: which server and which documented behaviour it stands for;
//! - `content_beside_tool_calls`: `null` or `""` (what `content` holds when tools are called);
//! - `arguments`: `"string"` (JSON text) or `"object"`;
//! - `reasoning`: `{"field": "reasoning_content"|"reasoning", "text": …}` or absent;
//! - `call_ids`: a prefix for tool-call ids, or `null` for none;
//! - `call_index`: whether each tool call carries its `index`;
//! - `usage`: whether `usage` is sent;
//! - `tool_finish_reason`: the `finish_reason` of a message that calls tools;
//! - `choices_before`: extra choices sent before the real one (with `index` 1, 2, …);
//! - `stream`: answer as server-sent events even when not asked to;
//! - `error_on_request`: a request number (0 = the first) answered 200 with an `error` object,
//!   with `error` the object.

use std::path::Path;

use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// A server's way of answering.
#[derive(Debug, Clone)]
pub struct Dialect {
    pub server: String,
    content_beside_tool_calls: Value,
    arguments_object: bool,
    reasoning: Option<(String, String)>,
    call_ids: Option<String>,
    call_index: bool,
    usage: bool,
    tool_finish_reason: String,
    choices_before: usize,
    stream: bool,
    error_on_request: Option<(usize, Value)>,
}

impl Dialect {
    /// Reads a fixture; the error names the key that is wrong.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::from_json(&value).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn from_json(value: &Value) -> Result<Self, String> {
        let text = |key: &str| {
            value[key]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("`{key}` must be a string"))
        };
        let flag = |key: &str| {
            value[key]
                .as_bool()
                .ok_or_else(|| format!("`{key}` must be true or false"))
        };
        let content = value["content_beside_tool_calls"].clone();
        if !(content.is_null() || content == "") {
            return Err("`content_beside_tool_calls` must be null or \"\"".into());
        }
        let arguments = text("arguments")?;
        if arguments != "string" && arguments != "object" {
            return Err("`arguments` must be \"string\" or \"object\"".into());
        }
        let reasoning = match &value["reasoning"] {
            Value::Null => None,
            r => Some((
                r["field"]
                    .as_str()
                    .ok_or("`reasoning.field` must be a string")?
                    .to_owned(),
                r["text"]
                    .as_str()
                    .ok_or("`reasoning.text` must be a string")?
                    .to_owned(),
            )),
        };
        let error_on_request = match value.get("error_on_request") {
            None | Some(Value::Null) => None,
            Some(n) => Some((
                n.as_u64().ok_or("`error_on_request` must be a number")? as usize,
                value.get("error").cloned().ok_or("`error` is missing")?,
            )),
        };
        Ok(Self {
            server: text("server")?,
            content_beside_tool_calls: content,
            arguments_object: arguments == "object",
            reasoning,
            call_ids: value["call_ids"].as_str().map(str::to_owned),
            call_index: flag("call_index")?,
            usage: flag("usage")?,
            tool_finish_reason: text("tool_finish_reason")?,
            choices_before: value["choices_before"].as_u64().unwrap_or(0) as usize,
            stream: flag("stream")?,
            error_on_request,
        })
    }

    /// The answer to request number `n` whose assistant message is `message` (as the stand-in's
    /// behaviour made it: OpenAI's shape), with `usage` counted by the stand-in.
    pub fn respond(&self, n: usize, model: &Value, message: &Value, usage: Value) -> Response {
        if let Some((_, error)) = self.error_on_request.as_ref().filter(|(at, _)| *at == n) {
            return axum::Json(json!({"error": error})).into_response();
        }
        let calls: Vec<Value> = message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, call)| self.call(n, i, call))
            .collect();
        let mut shaped = Map::new();
        shaped.insert("role".into(), "assistant".into());
        let content = if calls.is_empty() {
            message["content"].clone()
        } else {
            self.content_beside_tool_calls.clone()
        };
        shaped.insert("content".into(), content);
        if let Some((field, text)) = &self.reasoning {
            shaped.insert(field.clone(), Value::String(text.clone()));
        }
        let finish = if calls.is_empty() {
            "stop".to_owned()
        } else {
            shaped.insert("tool_calls".into(), Value::Array(calls));
            self.tool_finish_reason.clone()
        };
        let shaped = Value::Object(shaped);
        if self.stream {
            return self.stream(n, model, &shaped, &finish, usage);
        }
        let mut choices: Vec<Value> = (1..=self.choices_before)
            .map(|i| {
                json!({"index": i, "finish_reason": "stop",
                       "message": {"role": "assistant", "content": "another choice, never used"}})
            })
            .collect();
        choices.push(json!({"index": 0, "message": shaped, "finish_reason": finish}));
        let mut body = json!({"id": format!("cmpl-{n}"), "object": "chat.completion",
                              "model": model, "choices": choices});
        if self.usage {
            body["usage"] = usage;
        }
        axum::Json(body).into_response()
    }

    fn call(&self, n: usize, i: usize, call: &Value) -> Value {
        let function = &call["function"];
        let arguments = match (self.arguments_object, &function["arguments"]) {
            (true, Value::String(text)) => serde_json::from_str(text).unwrap_or(json!(text)),
            (_, other) => other.clone(),
        };
        let mut shaped = json!({"type": "function",
                                "function": {"name": function["name"], "arguments": arguments}});
        if let Some(prefix) = &self.call_ids {
            shaped["id"] = json!(format!("{prefix}{n}_{i}"));
        }
        if self.call_index {
            shaped["index"] = json!(i);
        }
        shaped
    }

    /// The same answer as server-sent events: the role, the reasoning, the content in two
    /// pieces, each tool call's id and name then its arguments in two pieces, the finish reason,
    /// `usage` in a last chunk without choices, `[DONE]`.
    fn stream(
        &self,
        n: usize,
        model: &Value,
        message: &Value,
        finish: &str,
        usage: Value,
    ) -> Response {
        let chunk = |delta: Value, finish: Value| {
            json!({"id": format!("cmpl-{n}"), "object": "chat.completion.chunk", "model": model,
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        let halves = |text: &str| {
            let cut = text
                .char_indices()
                .nth(text.chars().count() / 2)
                .map_or(0, |(i, _)| i);
            [text[..cut].to_owned(), text[cut..].to_owned()]
        };
        let mut chunks = vec![chunk(json!({"role": "assistant"}), Value::Null)];
        if let Some((field, text)) = &self.reasoning {
            chunks.push(chunk(json!({ field.as_str(): text }), Value::Null));
        }
        if let Some(text) = message["content"].as_str() {
            for half in halves(text) {
                chunks.push(chunk(json!({"content": half}), Value::Null));
            }
        }
        for (i, call) in message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let mut head = json!({"index": i, "type": "function",
                                  "function": {"name": call["function"]["name"], "arguments": ""}});
            if let Some(id) = call.get("id") {
                head["id"] = id.clone();
            }
            chunks.push(chunk(json!({"tool_calls": [head]}), Value::Null));
            let arguments = match &call["function"]["arguments"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            for half in halves(&arguments) {
                chunks.push(chunk(
                    json!({"tool_calls": [{"index": i, "function": {"arguments": half}}]}),
                    Value::Null,
                ));
            }
        }
        chunks.push(chunk(json!({}), json!(finish)));
        if self.usage {
            chunks.push(
                json!({"id": format!("cmpl-{n}"), "object": "chat.completion.chunk",
                               "model": model, "choices": [], "usage": usage}),
            );
        }
        let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        body.push_str("data: [DONE]\n\n");
        ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
    }
}

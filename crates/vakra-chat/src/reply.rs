//! The assistant's answer to one request, read leniently from the endpoint's JSON.

use serde_json::{Map, Value, json};

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call's id, echoed in the tool message that answers it (made up when the endpoint
    /// sends none).
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them: normally a JSON object in a string, but models
    /// write anything, so parsing is the caller's decision.
    pub arguments: String,
}

/// Tokens the endpoint reported for one request (`usage`); zero when it reports none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// The assistant's message.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The text, when there is any (`None` for a message that only calls tools).
    pub content: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    /// Reasoning text some servers send beside the content (`reasoning_content` or
    /// `reasoning`), kept for the trajectory.
    pub reasoning: Option<String>,
    pub usage: Usage,
    /// Time spent waiting on the endpoint: the HTTP exchanges and the waits between retries
    /// (building the request and reading the answer are not counted).
    pub waited: std::time::Duration,
}

impl Reply {
    /// Reads a Chat Completions answer; the error says what is missing.
    pub fn parse(body: &str) -> Result<Self, String> {
        let value: Value = serde_json::from_str(body)
            .map_err(|e| format!("the answer is not JSON ({e}): {}", excerpt(body)))?;
        let message = value
            .get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"))
            .and_then(Value::as_object)
            .ok_or_else(|| format!("the answer has no choices[0].message: {}", excerpt(body)))?;
        let text = |key: &str| {
            message
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let tool_calls = match message.get("tool_calls") {
            Some(Value::Array(calls)) => calls
                .iter()
                .enumerate()
                .map(|(i, call)| parse_call(i, call))
                .collect::<Result<_, _>>()?,
            Some(Value::Null) | None => Vec::new(),
            Some(_) => return Err("`tool_calls` is not a list".into()),
        };
        let usage = value.get("usage").map(parse_usage).unwrap_or_default();
        Ok(Self {
            content: text("content"),
            tool_calls,
            reasoning: text("reasoning_content").or_else(|| text("reasoning")),
            usage,
            waited: std::time::Duration::ZERO,
        })
    }

    /// The message as it goes back into the conversation.
    pub fn to_message(&self) -> Value {
        let mut message = Map::new();
        message.insert("role".into(), "assistant".into());
        message.insert(
            "content".into(),
            self.content.clone().map_or(Value::Null, Value::String),
        );
        if !self.tool_calls.is_empty() {
            let calls = self
                .tool_calls
                .iter()
                .map(|call| {
                    json!({"id": call.id, "type": "function",
                           "function": {"name": call.name, "arguments": call.arguments}})
                })
                .collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        Value::Object(message)
    }
}

fn parse_call(index: usize, call: &Value) -> Result<ToolCall, String> {
    let function = call
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("tool call {index} has no `function`"))?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("tool call {index} has no function name"))?
        .to_owned();
    let arguments = match function.get("arguments") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Null) | None => String::new(),
        // Some servers send the object itself.
        Some(other) => other.to_string(),
    };
    let id = call
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map_or_else(|| format!("call_{index}"), str::to_owned);
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

fn parse_usage(usage: &Value) -> Usage {
    let count = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| usage.get(*k).and_then(Value::as_u64))
            .unwrap_or(0)
    };
    Usage {
        input_tokens: count(&["prompt_tokens", "input_tokens"]),
        output_tokens: count(&["completion_tokens", "output_tokens"]),
    }
}

/// The start of a long text, for an error message.
pub(crate) fn excerpt(text: &str) -> String {
    const LIMIT: usize = 300;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tool_calls_and_usage() {
        let reply = Reply::parse(
            r#"{"choices":[{"message":{"role":"assistant","content":null,
                "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
                              {"function":{"name":"g","arguments":{"b":2}}}]}}],
                "usage":{"prompt_tokens":12,"completion_tokens":3}}"#,
        )
        .unwrap();
        assert_eq!(reply.content, None);
        assert_eq!(reply.tool_calls[0].arguments, r#"{"a":1}"#);
        assert_eq!(reply.tool_calls[1].id, "call_1");
        assert_eq!(reply.tool_calls[1].arguments, r#"{"b":2}"#);
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 3
            }
        );
        let message = reply.to_message();
        assert_eq!(message["tool_calls"][1]["function"]["name"], "g");
    }

    #[test]
    fn garbage_is_an_error_that_quotes_it() {
        let err = Reply::parse("<html>oops</html>").unwrap_err();
        assert!(
            err.contains("not JSON") && err.contains("<html>oops"),
            "{err}"
        );
        assert!(
            Reply::parse(r#"{"choices":[]}"#)
                .unwrap_err()
                .contains("choices[0]")
        );
        assert!(
            Reply::parse(r#"{"choices":[{"message":{"tool_calls":[{"id":"x"}]}}]}"#)
                .unwrap_err()
                .contains("function")
        );
    }
}

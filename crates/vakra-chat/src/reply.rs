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

    /// The message as it goes back into the conversation, in langchain-openai's form (what the
    /// reference's runner sends): `content` (`null` beside tool calls when there is no text),
    /// `role`, then the calls whose arguments are a JSON object (empty text counts as `{}`),
    /// with the arguments written again as Python's `json.dumps(args, ensure_ascii=False)` writes
    /// them, followed by the calls whose arguments are not (their text as the model wrote it).
    pub fn to_message(&self) -> Value {
        let mut message = Map::new();
        let content = match &self.content {
            Some(text) => Value::String(text.clone()),
            None if self.tool_calls.is_empty() => Value::String(String::new()),
            None => Value::Null,
        };
        message.insert("content".into(), content);
        message.insert("role".into(), "assistant".into());
        if !self.tool_calls.is_empty() {
            let (valid, invalid): (Vec<_>, Vec<_>) = self
                .tool_calls
                .iter()
                .map(|call| (call, call.object_arguments()))
                .partition(|(_, arguments)| arguments.is_some());
            let calls = valid
                .into_iter()
                .map(|(call, arguments)| {
                    let text = arguments
                        .and_then(|a| {
                            vakra_pytext::dumps(&Value::Object(a), &PYTHON_ARGUMENTS).ok()
                        })
                        .unwrap_or_default();
                    call_message(call, text)
                })
                .chain(
                    invalid
                        .into_iter()
                        .map(|(call, _)| call_message(call, call.arguments.clone())),
                )
                .collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        Value::Object(message)
    }
}

/// `json.dumps(args, ensure_ascii=False)`: how LangChain writes a call's arguments back.
const PYTHON_ARGUMENTS: vakra_pytext::DumpOptions = vakra_pytext::DumpOptions {
    ensure_ascii: false,
    ..vakra_pytext::DumpOptions::python_default()
};

fn call_message(call: &ToolCall, arguments: String) -> Value {
    json!({"type": "function", "id": call.id,
           "function": {"name": call.name, "arguments": arguments}})
}

impl ToolCall {
    /// The arguments when they are a JSON object, as LangChain reads them (empty text is `{}`);
    /// `None` for anything else, which LangChain keeps as an invalid call.
    pub fn object_arguments(&self) -> Option<Map<String, Value>> {
        let text = self.arguments.trim();
        match serde_json::from_str::<Value>(if text.is_empty() { "{}" } else { text }) {
            Ok(Value::Object(map)) => Some(map),
            _ => None,
        }
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
        assert_eq!(
            message["tool_calls"][0]["function"]["arguments"],
            r#"{"a": 1}"#
        );
    }

    #[test]
    fn the_message_goes_back_as_langchain_writes_it() {
        let reply = Reply::parse(
            r#"{"choices":[{"message":{"content":"","tool_calls":[
                {"id":"bad","function":{"name":"f","arguments":"not json"}},
                {"id":"a","function":{"name":"f","arguments":""}},
                {"id":"b","function":{"name":"g","arguments":"{\"x\":1e16,\"s\":\"\u00e9\",\"l\":[1,{\"y\":null}]}"}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&reply.to_message()).unwrap(),
            concat!(
                r#"{"content":null,"role":"assistant","tool_calls":["#,
                r#"{"type":"function","id":"a","function":{"name":"f","arguments":"{}"}},"#,
                r#"{"type":"function","id":"b","function":{"name":"g","arguments":"{\"x\": 1e+16, \"s\": \"é\", \"l\": [1, {\"y\": null}]}"}},"#,
                r#"{"type":"function","id":"bad","function":{"name":"f","arguments":"not json"}}]}"#
            )
        );
        let text = Reply::parse(r#"{"choices":[{"message":{"content":"done"}}]}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&text.to_message()).unwrap(),
            r#"{"content":"done","role":"assistant"}"#
        );
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

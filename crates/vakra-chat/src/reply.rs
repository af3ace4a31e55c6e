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
    /// Reads a Chat Completions answer, as a JSON body or as a stream of server-sent events (from
    /// a server that streams unless told not to); the error names the field that is unusable.
    /// Servers differ: `arguments` as a string or an object, `content` null or "" beside tool
    /// calls, reasoning in `reasoning_content` or `reasoning`, no `usage`, no call ids, several
    /// choices (the one with `index` 0 is read), and 200 answers holding an `error` object.
    pub fn parse(body: &str) -> Result<Self, String> {
        if is_event_stream(body) {
            return parse_stream(body);
        }
        let value: Value = serde_json::from_str(body)
            .map_err(|e| format!("the answer is not JSON ({e}): {}", excerpt(body)))?;
        server_error(&value)?;
        let choices = value
            .get("choices")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("the answer has no `choices` list: {}", excerpt(body)))?;
        let (i, choice) = first_choice(choices)
            .ok_or_else(|| format!("the answer has no choices[0].message: {}", excerpt(body)))?;
        let message = choice
            .get("message")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("the answer has no choices[{i}].message: {}", excerpt(body)))?;
        let mut reply = from_message(message, &format!("choices[{i}].message"))?;
        finished(&reply, choice, i)?;
        reply.usage = value.get("usage").map(parse_usage).unwrap_or_default();
        Ok(reply)
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

/// The choice whose `index` is 0, else the first; with its position.
fn first_choice(choices: &[Value]) -> Option<(usize, &Value)> {
    choices
        .iter()
        .enumerate()
        .find(|(_, c)| c.get("index").and_then(Value::as_u64) == Some(0))
        .or_else(|| choices.first().map(|c| (0, c)))
}

/// A 200 answer that holds an `error` object (LiteLLM, Ollama and proxies send them) and no
/// choices: the error, with the server's message.
fn server_error(value: &Value) -> Result<(), String> {
    let Some(error) = value.get("error").filter(|e| !e.is_null()) else {
        return Ok(());
    };
    if value.get("choices").is_some_and(|c| !c.is_null()) {
        return Ok(());
    }
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| excerpt(&error.to_string()), str::to_owned);
    Err(format!(
        "the server answered with an `error` object: {message}"
    ))
}

/// An empty message that the server cut off or filtered is an error naming `finish_reason`.
fn finished(reply: &Reply, choice: &Value, i: usize) -> Result<(), String> {
    let reason = choice.get("finish_reason").and_then(Value::as_str);
    match reason {
        Some(reason @ ("length" | "content_filter"))
            if reply.content.is_none() && reply.tool_calls.is_empty() =>
        {
            Err(format!(
                "choices[{i}].finish_reason is {reason:?} and the message is empty"
            ))
        }
        _ => Ok(()),
    }
}

/// The reply in an assistant message at `path` (for errors).
fn from_message(message: &Map<String, Value>, path: &str) -> Result<Reply, String> {
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
            .map(|(i, call)| parse_call(&format!("{path}.tool_calls[{i}]"), i, call))
            .collect::<Result<_, _>>()?,
        Some(Value::Null) | None => Vec::new(),
        Some(_) => return Err(format!("{path}.tool_calls is not a list")),
    };
    Ok(Reply {
        content: text("content"),
        tool_calls,
        reasoning: text("reasoning_content").or_else(|| text("reasoning")),
        usage: Usage::default(),
        waited: std::time::Duration::ZERO,
    })
}

fn parse_call(path: &str, index: usize, call: &Value) -> Result<ToolCall, String> {
    let function = call
        .get("function")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{path}.function is missing"))?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("{path}.function.name is missing"))?
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

/// Whether a body is server-sent events (`data: …` lines) rather than one JSON answer.
fn is_event_stream(body: &str) -> bool {
    body.trim_start().starts_with("data:")
}

/// A streamed answer: the `data:` chunks' deltas of the choice with index 0 joined into one
/// message (content, reasoning, tool calls by their `index`, arguments as string pieces or an
/// object), `usage` from the chunk that has it (often only the last), up to `[DONE]`.
fn parse_stream(body: &str) -> Result<Reply, String> {
    let mut content = String::new();
    let mut reasoning = String::new();
    let mut calls: Vec<Map<String, Value>> = Vec::new();
    let mut usage = Usage::default();
    let mut finish: Option<Value> = None;
    for (n, line) in body.lines().enumerate() {
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            continue;
        };
        if data == "[DONE]" {
            break;
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            format!(
                "streamed line {} is not JSON ({e}): {}",
                n + 1,
                excerpt(data)
            )
        })?;
        server_error(&chunk)?;
        if let Some(counted) = chunk.get("usage").filter(|u| u.is_object()) {
            usage = parse_usage(counted);
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        let Some((_, choice)) = choices.and_then(|c| first_choice(c)) else {
            continue;
        };
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            finish = Some(reason.clone());
        }
        let Some(delta) = choice.get("delta") else {
            continue;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            content.push_str(text);
        }
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta.get(key).and_then(Value::as_str) {
                reasoning.push_str(text);
            }
        }
        for (position, piece) in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let at = piece
                .get("index")
                .and_then(Value::as_u64)
                .map_or(position, |i| i as usize);
            if at > 1024 {
                return Err(format!("streamed line {}: tool call index {at}", n + 1));
            }
            while calls.len() <= at {
                calls.push(Map::new());
            }
            merge_call(&mut calls[at], piece);
        }
    }
    let mut message = Map::new();
    message.insert("content".into(), Value::String(content));
    message.insert("reasoning_content".into(), Value::String(reasoning));
    if !calls.is_empty() {
        message.insert(
            "tool_calls".into(),
            Value::Array(calls.into_iter().map(Value::Object).collect()),
        );
    }
    let mut reply = from_message(&message, "the stream's choices[0].delta")?;
    finished(&reply, &json!({"finish_reason": finish}), 0)?;
    reply.usage = usage;
    Ok(reply)
}

/// Adds one streamed piece of a tool call: id and name as they come, arguments appended (a
/// piece holding an object replaces them).
fn merge_call(call: &mut Map<String, Value>, piece: &Value) {
    if let Some(id) = piece.get("id").filter(|v| v.is_string()) {
        call.insert("id".into(), id.clone());
    }
    let Some(function) = piece.get("function") else {
        return;
    };
    let entry = call
        .entry("function")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("an object");
    if let Some(name) = function.get("name").and_then(Value::as_str) {
        // Most servers send the name once; some repeat it whole in later pieces.
        let known = entry.get("name").and_then(Value::as_str).unwrap_or("");
        if known != name {
            let joined = known.to_owned() + name;
            entry.insert("name".into(), Value::String(joined));
        }
    }
    match function.get("arguments") {
        Some(Value::String(text)) => {
            let joined = entry
                .get("arguments")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
                + text;
            entry.insert("arguments".into(), Value::String(joined));
        }
        Some(other) if !other.is_null() => {
            entry.insert("arguments".into(), other.clone());
        }
        _ => {}
    }
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

    #[test]
    fn dialects_read_the_same_reply() {
        // Several choices: the one of index 0, wherever it is; arguments as an object.
        let reply = Reply::parse(
            r#"{"choices":[{"index":1,"message":{"content":"other"}},
                {"index":0,"finish_reason":"stop","message":{"content":"","reasoning":"hm",
                 "tool_calls":[{"index":0,"function":{"name":"f","arguments":{"a":1}}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(
            (reply.content.as_deref(), reply.reasoning.as_deref()),
            (None, Some("hm"))
        );
        assert_eq!(reply.tool_calls[0].arguments, r#"{"a":1}"#);
        assert_eq!(reply.usage, Usage::default());
        assert!(
            !reply.to_message().to_string().contains("hm"),
            "reasoning is not sent back"
        );
        // Streamed, unasked: pieces joined by index, usage from the last chunk.
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"th\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"ink\",\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}\n\n",
            "data: [DONE]\n\n"
        );
        let reply = Reply::parse(stream).unwrap();
        assert_eq!(reply.reasoning.as_deref(), Some("think"));
        assert_eq!(
            (
                reply.tool_calls[0].id.as_str(),
                reply.tool_calls[0].arguments.as_str()
            ),
            ("c", r#"{"a":1}"#)
        );
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 7,
                output_tokens: 2
            }
        );
    }

    #[test]
    fn unusable_answers_name_the_field() {
        let err =
            Reply::parse(r#"{"error":{"message":"upstream down","code":"500"}}"#).unwrap_err();
        assert!(
            err.contains("`error` object") && err.contains("upstream down"),
            "{err}"
        );
        let err = Reply::parse(
            r#"{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"{}"}}]}}]}"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            "choices[0].message.tool_calls[0].function.name is missing"
        );
        let err =
            Reply::parse(r#"{"choices":[{"finish_reason":"length","message":{"content":""}}]}"#)
                .unwrap_err();
        assert!(err.contains("finish_reason is \"length\""), "{err}");
        let err = Reply::parse("data: {\"error\":{\"message\":\"overloaded\"}}\n\n").unwrap_err();
        assert!(err.contains("overloaded"), "{err}");
        let err = Reply::parse("data: {not json\n\n").unwrap_err();
        assert!(err.contains("streamed line 1 is not JSON"), "{err}");
    }
}

//! Client messages read from JSON text as deep as Python's `json` reads them (rmcp's own parsing
//! stops at serde_json's 128 levels), and the id of a message too long or too deep to read.
//!
//! A message nested deeper than serde_json reads is parsed with [`vakra_pytext::loads`]; the
//! arguments of a `tools/call` are taken out of it, so that the rest is shallow, and put back
//! into the typed request (stdio) or carried beside it as [`DeepArguments`] (HTTP, where rmcp
//! parses the body itself) until [`with_deep_arguments`] restores them. Integer literals beyond
//! 64 bits travel the same ways as [`BigIntegers`].

use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ErrorData, Extensions, JsonObject,
    JsonRpcMessage, JsonRpcRequest, RequestId, ServerJsonRpcMessage,
};
use serde_json::Value;
use vakra_pytext::loads::{self, MAX_NESTING, SHALLOW_NESTING};

/// What one line of the stdio transport is.
pub(crate) enum Incoming {
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to deliver and nothing to answer (text that is not JSON, a notification that
    /// does not parse: rmcp's rules).
    Ignored,
    /// An error answer to send back.
    Answer(Box<ServerJsonRpcMessage>),
}

/// Reads one line (without its line end) as rmcp's stdio transport does, but as deep as
/// Python's `json` reads: text that is not JSON is ignored, JSON that is not a message is
/// answered `Invalid request` (id null), a notification that does not parse is ignored, and
/// values nested deeper than [`MAX_NESTING`] get a parse error with the request's id when
/// [`recover_id`] finds it.
pub(crate) fn read_line(line: &[u8]) -> Incoming {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let depth = loads::nesting(line);
    if depth > MAX_NESTING {
        let error =
            ErrorData::parse_error(format!("Parse error: {}", loads::too_deep(depth)), None);
        return Incoming::Answer(Box::new(ServerJsonRpcMessage::error(
            error,
            recover_id(line, line),
        )));
    }
    let read = if depth <= SHALLOW_NESTING {
        serde_json::from_slice::<Value>(line)
            .map(|value| typed(value, None))
            .map_err(|e| e.to_string())
    } else {
        loads::loads_with(line, |mut value| {
            let arguments = take_arguments(&mut value);
            typed(value, arguments)
        })
    };
    match read {
        Err(e) => {
            tracing::debug!("Ignoring unparsable incoming message: {e}");
            Incoming::Ignored
        }
        Ok(Incoming::Message(mut message)) => {
            if let JsonRpcMessage::Request(JsonRpcRequest {
                request: ClientRequest::CallToolRequest(call),
                ..
            }) = &mut *message
                && let Some(found) = big_integers_in(line)
            {
                call.extensions.insert(found);
            }
            Incoming::Message(message)
        }
        Ok(other) => other,
    }
}

/// The message a JSON value stands for, with `arguments` put back into its `tools/call`; for a
/// value that is not a message, the answer to send (none for a notification).
fn typed(value: Value, arguments: Option<JsonObject>) -> Incoming {
    let is_notification = value.get("id").is_none();
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(mut message) => {
            if let JsonRpcMessage::Request(JsonRpcRequest {
                request: ClientRequest::CallToolRequest(call),
                ..
            }) = &mut message
                && arguments.is_some()
            {
                call.params.arguments = arguments;
            }
            Incoming::Message(Box::new(message))
        }
        Err(e) => {
            tracing::debug!("Protocol error on incoming message: {e}");
            if is_notification {
                return Incoming::Ignored;
            }
            let error = ErrorData::invalid_request("Invalid request", None);
            Incoming::Answer(Box::new(ServerJsonRpcMessage::error(error, None)))
        }
    }
}

/// Takes the arguments out of a `tools/call` message.
fn take_arguments(message: &mut Value) -> Option<JsonObject> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let params = message.get_mut("params")?.as_object_mut()?;
    match params.get("arguments") {
        Some(Value::Object(_)) => match params.remove("arguments") {
            Some(Value::Object(arguments)) => Some(arguments),
            _ => None,
        },
        _ => None,
    }
}

/// The arguments of an HTTP `tools/call` whose body nests deeper than rmcp parses, carried in
/// the request's extensions while rmcp reads the rest of the body.
#[derive(Clone, Debug)]
pub(crate) struct DeepArguments(std::sync::Arc<JsonObject>);

/// An HTTP body nested deeper than rmcp reads: the body without the arguments of its
/// `tools/call` and those arguments, or `None` when there is nothing to take out (a shallow
/// body, or one whose depth is not in its arguments: rmcp then answers it as before); an error
/// text for a body deeper than [`MAX_NESTING`].
pub(crate) fn shallow_body(body: &[u8]) -> Result<Option<(Vec<u8>, DeepArguments)>, String> {
    let depth = loads::nesting(body);
    if depth <= SHALLOW_NESTING {
        return Ok(None);
    }
    if depth > MAX_NESTING {
        return Err(loads::too_deep(depth));
    }
    let split = loads::loads_with(body, |mut value| {
        let arguments = take_arguments(&mut value)?;
        (loads::nesting_of(&value) <= SHALLOW_NESTING)
            .then(|| serde_json::to_vec(&value).ok())
            .flatten()
            .map(|rest| (rest, DeepArguments(std::sync::Arc::new(arguments))))
    });
    Ok(split.ok().flatten())
}

/// A `tools/call` with the arguments its HTTP body carried beside it ([`shallow_body`]).
pub(crate) fn with_deep_arguments(
    mut request: CallToolRequestParams,
    extensions: &Extensions,
) -> CallToolRequestParams {
    if let Some(DeepArguments(arguments)) = carried::<DeepArguments>(extensions) {
        request.arguments = Some(JsonObject::clone(arguments));
    }
    request
}

/// The integer literals beyond 64 bits in a message's text (serde_json reads them as floats),
/// kept so that the texts quoting them show their digits ([`vakra_pytext::digits`]). A client
/// in this process (an RL episode's) puts them into a `tools/call` request's extensions.
#[derive(Clone, Debug)]
pub struct BigIntegers(pub std::sync::Arc<[String]>);

/// How many big integers of one message are kept.
const MAX_BIG_INTEGERS: usize = 64;

/// The big integers of a message's text, if it has any.
pub fn big_integers_in(text: &[u8]) -> Option<BigIntegers> {
    let found = vakra_pytext::digits::big_integers(text, MAX_BIG_INTEGERS);
    (!found.is_empty()).then(|| BigIntegers(found.into()))
}

/// The address of the client whose request carries `extensions` (HTTP: put there by the
/// server that accepted the connection; none over stdio or in-process).
pub(crate) fn client(extensions: &Extensions) -> Option<vakra_lanes::Client> {
    carried::<vakra_lanes::Client>(extensions).copied()
}

/// The big integers a call's message carried (stdio: in the request's extensions; HTTP: in the
/// request head's).
pub(crate) fn big_integers(extensions: &Extensions) -> Option<BigIntegers> {
    carried::<BigIntegers>(extensions).cloned()
}

/// A value the transport attached to a request: directly (stdio) or to its HTTP request head.
fn carried<T: Send + Sync + 'static>(extensions: &Extensions) -> Option<&T> {
    extensions.get::<T>().or_else(|| {
        extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<T>())
    })
}

/// The id of a request that cannot be read, from the start of its text (a top-level `"id"`
/// member, as the Python SDK writes it, second) or its end (`"id": …}` last, as the TypeScript
/// SDK writes it); `None` (JSON-RPC's null) when neither shows one.
pub(crate) fn recover_id(head: &[u8], tail: &[u8]) -> Option<RequestId> {
    id_in_head(head).or_else(|| id_at_end(tail))
}

fn id_in_head(head: &[u8]) -> Option<RequestId> {
    let (mut depth, mut key_next, mut at) = (0usize, false, 0usize);
    while at < head.len() {
        match head[at] {
            b'"' => {
                let end = string_end(head, at)?;
                if depth == 1 && key_next && &head[at + 1..end] == b"id" {
                    let rest = head[end + 1..].trim_ascii_start();
                    return first_id(rest.strip_prefix(b":")?.trim_ascii_start());
                }
                key_next = false;
                at = end;
            }
            b'{' => {
                depth += 1;
                key_next = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => key_next = depth == 1,
            _ => {}
        }
        at += 1;
    }
    None
}

/// The index of the quote that ends the string starting at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

fn id_at_end(tail: &[u8]) -> Option<RequestId> {
    let rest = tail.trim_ascii_end().strip_suffix(b"}")?.trim_ascii_end();
    let value_start = if rest.ends_with(b"\"") {
        let body = &rest[..rest.len() - 1];
        body.iter().rposition(|&b| b == b'"')?
    } else {
        rest.iter()
            .rposition(|b| !(b.is_ascii_digit() || b"-+.eE".contains(b)))?
            + 1
    };
    let before = rest[..value_start].trim_ascii_end().strip_suffix(b":")?;
    let before = before
        .trim_ascii_end()
        .strip_suffix(b"\"id\"")?
        .trim_ascii_end();
    matches!(before.last(), Some(b',' | b'{')).then_some(())?;
    first_id(&rest[value_start..])
}

/// The id a JSON value at the start of `text` stands for (a number or a string).
fn first_id(text: &[u8]) -> Option<RequestId> {
    serde_json::Deserializer::from_slice(text)
        .into_iter::<Value>()
        .next()?
        .ok()
        .and_then(|value| match value {
            Value::Number(_) | Value::String(_) => serde_json::from_value(value).ok(),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Option<RequestId> {
        recover_id(text.as_bytes(), text.as_bytes())
    }

    #[test]
    fn ids_are_found_first_or_last() {
        let number = Some(RequestId::Number(7));
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#),
            number
        );
        assert_eq!(
            id(r#"{ "jsonrpc" : "2.0" , "id" : "a\"b", "params": ["#),
            Some(RequestId::String("a\"b".into()))
        );
        assert_eq!(id(r#"...,"x"]}},"jsonrpc":"2.0","id": 7 }"#), number);
        assert_eq!(
            id(r#"...}},"id":"k-1"}"#),
            Some(RequestId::String("k-1".into()))
        );
    }

    #[test]
    fn nested_or_odd_ids_are_not_taken() {
        assert_eq!(id(r#"{"method":"tools/call","params":{"id":5,"x":["#), None);
        assert_eq!(id(r#"{"params":{"k":"\"id\":3,"}, "#), None);
        assert_eq!(id(r#"...{"arguments":{"id":5}}}"#), None);
        assert_eq!(id(r#"{"id":null,"method":"#), None);
        assert_eq!(id(r#"{"id":1.5,"method":"#), None);
        assert_eq!(id("no json at all"), None);
    }

    fn deep_call(depth: usize) -> String {
        let value = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"t","arguments":{{"x":{value}}}}}}}"#
        )
    }

    #[test]
    fn deep_arguments_reach_the_request() {
        let Incoming::Message(message) = read_line(deep_call(200).as_bytes()) else {
            panic!("not read");
        };
        let Some((ClientRequest::CallToolRequest(call), RequestId::Number(3))) =
            message.into_request()
        else {
            panic!("not a call");
        };
        let arguments = Value::Object(call.params.arguments.unwrap());
        assert_eq!(loads::nesting_of(&arguments), 201);
    }

    #[test]
    fn too_deep_lines_are_answered_with_their_id() {
        let Incoming::Answer(answer) = read_line(deep_call(2_000).as_bytes()) else {
            panic!("not answered");
        };
        let answer = serde_json::to_value(&*answer).unwrap();
        assert_eq!(answer["id"], 3);
        assert_eq!(answer["error"]["code"], -32700);
        assert_eq!(
            answer["error"]["message"],
            "Parse error: values nested 2003 levels deep, more than 1000"
        );
    }

    #[test]
    fn deep_http_bodies_carry_their_arguments_aside() {
        let body = deep_call(500);
        let (rest, DeepArguments(arguments)) =
            shallow_body(body.as_bytes()).unwrap().expect("taken out");
        let rest: Value = serde_json::from_slice(&rest).unwrap();
        assert_eq!(rest["params"], serde_json::json!({"name": "t"}));
        assert_eq!(loads::nesting_of(&Value::Object((*arguments).clone())), 501);
        assert!(shallow_body(deep_call(20).as_bytes()).unwrap().is_none());
        assert_eq!(
            shallow_body(deep_call(1_500).as_bytes()).unwrap_err(),
            "values nested 1503 levels deep, more than 1000"
        );
    }
}

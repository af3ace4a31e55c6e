//! The `query_<domain>` tools of the reference's capability-4 combined MCP server: how they are
//! listed and the texts their calls return.
//!
//! The reference derives each tool from the retriever service's OpenAPI operation
//! `POST /<domain>/query`: the description is the operation's (FastAPI strips it and cuts it at
//! a form feed), and the input schema is the `QueryRequest` model flattened to the top level.
//! Calls are forwarded over HTTP and the JSON answer re-dumped with `indent=2`; HTTP failures
//! become `Error calling API: …` texts quoting the URL.

use serde_json::{Map, Value, json};
use vakra_catalog::tools::ToolSpec;
use vakra_pyjson::DumpOptions;

use crate::files::RetrieverFiles;

/// The reference's `RETRIEVER_BASE_URL` default, quoted in error texts.
pub const DEFAULT_BASE_URL: &str = "http://localhost:8001";

pub(crate) fn tool_name(domain: &str) -> String {
    format!("query_{domain}")
}

/// The tool's description: the domain's text from `domain_description_dict.json` as FastAPI
/// publishes it. A domain without a text gets vakra-rs' own fallback (the reference's data
/// describes every domain; its fallback wording is not reproduced).
pub(crate) fn description(files: &RetrieverFiles, domain: &str) -> String {
    let published = match files.descriptions.get(domain) {
        Some(Some(text)) => fastapi_description(text),
        _ => String::new(),
    };
    if published.is_empty() {
        fallback_description(domain)
    } else {
        published
    }
}

fn fallback_description(domain: &str) -> String {
    format!("Searches the documents of the {domain} domain for passages that answer a question.")
}

/// FastAPI keeps a route description up to the first form feed, stripped of Python whitespace.
fn fastapi_description(text: &str) -> String {
    let head = text.split('\u{c}').next().unwrap_or_default();
    head.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
        .to_owned()
}

/// `QueryRequest`'s JSON schema (pydantic 2) with the properties at the top level.
pub(crate) fn input_schema() -> Map<String, Value> {
    let schema = json!({
        "type": "object",
        "properties": {
            "question": {"type": "string", "title": "Question"},
            "n_results": {"type": "integer", "title": "N Results", "default": 10}
        },
        "required": ["question"]
    });
    match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub(crate) fn tool_spec(files: &RetrieverFiles, domain: &str) -> ToolSpec {
    ToolSpec {
        name: tool_name(domain),
        description: description(files, domain),
        input_schema: input_schema(),
    }
}

/// The MCP SDK's `jsonschema` check of the arguments against [`input_schema`]: a missing
/// `question` first, then type errors, the greatest property name winning (jsonschema's
/// `best_match`).
pub(crate) fn validation_error(arguments: &Map<String, Value>) -> Option<String> {
    if !arguments.contains_key("question") {
        return Some("'question' is a required property".to_owned());
    }
    let bad_question = arguments.get("question").filter(|v| !v.is_string());
    let bad_n = arguments.get("n_results").filter(|v| !is_json_integer(v));
    match (bad_question, bad_n) {
        (Some(v), _) => Some(type_error(v, "string")),
        (None, Some(v)) => Some(type_error(v, "integer")),
        (None, None) => None,
    }
}

fn type_error(value: &Value, ty: &str) -> String {
    format!(
        "{} is not of type {}",
        vakra_pyjson::py_repr(value),
        vakra_pyjson::py_repr(&Value::String(ty.to_owned()))
    )
}

/// jsonschema's `integer`: integral numbers, including floats such as `12.0`; not booleans.
fn is_json_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// A successful call: `json.dumps(response, indent=2)`.
pub(crate) fn success_text(body: &Value) -> String {
    vakra_pyjson::dumps(body, &DumpOptions::indent2()).unwrap_or_else(|e| format!("Error: {e}"))
}

/// What the wrapper says when the retriever answers with an error status (httpx's
/// `raise_for_status` message; the body is never shown).
pub(crate) fn http_error_text(status: u16, url: &str) -> String {
    let (class, reason) = match status {
        404 => ("Client", "Not Found"),
        422 => ("Client", "Unprocessable Entity"),
        _ => ("Server", "Internal Server Error"),
    };
    format!(
        "Error calling API: {class} error '{status} {reason}' for url '{url}'\n\
         For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/{status}"
    )
}

/// The URL the wrapper posts a domain's queries to.
pub(crate) fn query_url(base_url: &str, domain: &str) -> String {
    format!("{base_url}/{domain}/query")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_follow_fastapi_and_the_wrapper() {
        let mut files = RetrieverFiles::default();
        files
            .descriptions
            .insert("a".into(), Some("  text \n".into()));
        files
            .descriptions
            .insert("b".into(), Some("x\u{c}y".into()));
        files.descriptions.insert("c".into(), Some(" ".into()));
        files.descriptions.insert("d".into(), None);
        assert_eq!(description(&files, "a"), "text");
        assert_eq!(description(&files, "b"), "x");
        for domain in ["c", "d", "zz"] {
            assert_eq!(description(&files, domain), fallback_description(domain));
        }
    }

    #[test]
    fn validation_messages_are_jsonschema_s() {
        let check = |v: Value| validation_error(v.as_object().unwrap());
        assert_eq!(
            check(json!({})).as_deref(),
            Some("'question' is a required property")
        );
        assert_eq!(
            check(json!({"n_results": "x"})).as_deref(),
            Some("'question' is a required property")
        );
        assert_eq!(
            check(json!({"question": 5})).as_deref(),
            Some("5 is not of type 'string'")
        );
        assert_eq!(
            check(json!({"question": "q", "n_results": "3"})).as_deref(),
            Some("'3' is not of type 'integer'")
        );
        assert_eq!(
            check(json!({"question": "q", "n_results": true})).as_deref(),
            Some("True is not of type 'integer'")
        );
        assert_eq!(
            check(json!({"question": null, "n_results": 1.5})).as_deref(),
            Some("None is not of type 'string'")
        );
        assert_eq!(check(json!({"question": "q", "n_results": 12.0})), None);
        assert_eq!(check(json!({"question": "q", "other": [1]})), None);
    }
}

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
use vakra_pytext::DumpOptions;

use crate::RetrievalError;
use crate::files::{DOMAIN_PLACEHOLDER, DefaultDescriptions, RetrieverFiles};

/// The reference's `RETRIEVER_BASE_URL` default, quoted in error texts.
pub const DEFAULT_BASE_URL: &str = "http://localhost:8001";

pub(crate) fn tool_name(domain: &str) -> String {
    format!("query_{domain}")
}

/// The tool's description as the reference's two servers make it: the retriever server
/// publishes the domain's `domain_description_dict.json` text, or its own default text when the
/// domain has no entry or no `description` key, as FastAPI does (stripped, cut at a form feed);
/// the combined wrapper replaces a published description that is empty with its own default.
/// Both defaults come from the data root's `default_descriptions.json`; when it is absent and a
/// default is needed, the error names it.
pub(crate) fn description(files: &RetrieverFiles, domain: &str) -> Result<String, RetrievalError> {
    let published = match files.descriptions.get(domain) {
        Some(Some(text)) => fastapi_description(text),
        _ => fastapi_description(&default_text(files, domain, |d| &d.no_description)?),
    };
    if published.is_empty() {
        default_text(files, domain, |d| &d.empty_description)
    } else {
        Ok(published)
    }
}

fn default_text(
    files: &RetrieverFiles,
    domain: &str,
    pick: fn(&DefaultDescriptions) -> &String,
) -> Result<String, RetrievalError> {
    let defaults = files
        .defaults
        .as_ref()
        .ok_or_else(|| RetrievalError::DataFile {
            path: files.defaults_path.clone(),
            message: format!(
                "missing: domain {domain:?} has no description, and this file has the default \
                 ones (run `vakra import` to create it)"
            ),
        })?;
    Ok(pick(defaults).replace(DOMAIN_PLACEHOLDER, domain))
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

pub(crate) fn tool_spec(files: &RetrieverFiles, domain: &str) -> Result<ToolSpec, RetrievalError> {
    Ok(ToolSpec {
        name: tool_name(domain),
        description: description(files, domain)?,
        input_schema: input_schema(),
    })
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
        vakra_pytext::py_repr(value),
        vakra_pytext::py_repr(&Value::String(ty.to_owned()))
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
    vakra_pytext::dumps(body, &DumpOptions::indent2()).unwrap_or_else(|e| format!("Error: {e}"))
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
        let mut files = RetrieverFiles {
            defaults: Some(DefaultDescriptions {
                no_description: "  server default for {domain} \n".into(),
                empty_description: "wrapper default for '{domain}'".into(),
            }),
            ..RetrieverFiles::default()
        };
        let texts = [
            ("a", Some("  text \n")),
            ("b", Some("x\u{c}y")),
            ("c", Some(" ")),
            ("d", None),
            ("e", Some("")),
            ("f", Some("\u{c}after a form feed")),
        ];
        for (domain, text) in texts {
            files
                .descriptions
                .insert(domain.into(), text.map(str::to_owned));
        }
        let described =
            |files: &RetrieverFiles, d: &str| description(files, d).expect("description");
        assert_eq!(described(&files, "a"), "text");
        assert_eq!(described(&files, "b"), "x");
        // No `description` key, or no entry: the server's default, stripped by FastAPI.
        assert_eq!(described(&files, "d"), "server default for d");
        assert_eq!(described(&files, "zz"), "server default for zz");
        // Published empty: the wrapper's default.
        for domain in ["c", "e", "f"] {
            assert_eq!(
                described(&files, domain),
                format!("wrapper default for '{domain}'")
            );
        }
        // A server default that FastAPI publishes empty gets the wrapper's.
        files.defaults = Some(DefaultDescriptions {
            no_description: " \u{c}{domain}".into(),
            empty_description: "w {domain}".into(),
        });
        assert_eq!(described(&files, "zz"), "w zz");
        // Without the defaults file, only a domain that needs a default fails, naming it.
        files.defaults = None;
        files.defaults_path = "root/retrievers/default_descriptions.json".into();
        assert_eq!(described(&files, "a"), "text");
        let error = description(&files, "d")
            .expect_err("no defaults")
            .to_string();
        assert!(
            error.contains("root/retrievers/default_descriptions.json")
                && error.contains("\"d\"")
                && error.contains("vakra import"),
            "{error}"
        );
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

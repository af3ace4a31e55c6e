//! FastMCP 2.x validates tool arguments with pydantic against the function signature (lax mode,
//! unknown keywords forbidden) and answers with the `ValidationError`'s text. This module
//! reproduces those checks for the parameter kinds the BPO tools use, and the text.

use serde_json::{Map, Value};
use vakra_pyjson::py_repr;

use crate::tools::{Arg, Args, Param, ParamKind};

/// The pydantic minor version in the documentation links of error texts (the one installed
/// with the reference's unpinned requirements when this was written).
const PYDANTIC_DOCS_VERSION: &str = "2.14";

/// pydantic-core shortens the repr of an input longer than 50 bytes to its first 25 and last
/// 24 bytes (widened to character boundaries).
fn truncated_repr(value: &Value) -> String {
    let repr = py_repr(value);
    if repr.len() <= 50 {
        return repr;
    }
    let mut head = 25;
    while !repr.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = repr.len() - 24;
    while !repr.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}...{}", &repr[..head], &repr[tail..])
}

/// The Python type name pydantic reports as `input_type`.
fn python_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

struct LineError {
    loc: String,
    kind: &'static str,
    message: &'static str,
    input_repr: String,
    input_type: &'static str,
}

impl LineError {
    fn new(loc: String, kind: &'static str, message: &'static str, input: &Value) -> Self {
        Self {
            loc,
            kind,
            message,
            input_repr: truncated_repr(input),
            input_type: python_type(input),
        }
    }
}

fn string_type(loc: String, input: &Value) -> LineError {
    LineError::new(loc, "string_type", "Input should be a valid string", input)
}

/// Checks `arguments` against the tool's parameters; on failure returns the text of pydantic's
/// `ValidationError` for the call.
pub(crate) fn validate(
    tool: &str,
    params: &[Param],
    arguments: &Map<String, Value>,
) -> Result<Args, String> {
    let mut errors = Vec::new();
    let mut args = Vec::with_capacity(params.len());
    for param in params {
        let Some(value) = arguments.get(param.name) else {
            match param.kind {
                ParamKind::Str => errors.push(LineError::new(
                    param.name.into(),
                    "missing_argument",
                    "Missing required argument",
                    &Value::Object(arguments.clone()),
                )),
                ParamKind::StrDefault(default) => args.push(Arg::Str(default.into())),
                ParamKind::StrDefaultNone | ParamKind::OptionalStrList => args.push(Arg::Null),
            }
            continue;
        };
        match (param.kind, value) {
            (ParamKind::OptionalStrList, Value::Null) => args.push(Arg::Null),
            (ParamKind::OptionalStrList, Value::Array(items)) => {
                let mut strings = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => strings.push(s.clone()),
                        other => errors.push(string_type(format!("{}.{i}", param.name), other)),
                    }
                }
                args.push(Arg::List(strings));
            }
            (ParamKind::OptionalStrList, other) => errors.push(LineError::new(
                param.name.into(),
                "list_type",
                "Input should be a valid list",
                other,
            )),
            (_, Value::String(s)) => args.push(Arg::Str(s.clone())),
            (_, other) => errors.push(string_type(param.name.into(), other)),
        }
    }
    for (name, value) in arguments {
        if !params.iter().any(|p| p.name == name) {
            errors.push(LineError::new(
                name.clone(),
                "unexpected_keyword_argument",
                "Unexpected keyword argument",
                value,
            ));
        }
    }
    if errors.is_empty() {
        Ok(Args(args))
    } else {
        Err(render(tool, &errors))
    }
}

fn render(tool: &str, errors: &[LineError]) -> String {
    let plural = if errors.len() == 1 { "" } else { "s" };
    let mut out = format!("{} validation error{plural} for call[{tool}]", errors.len());
    for e in errors {
        out.push_str(&format!(
            "\n{}\n  {} [type={}, input_value={}, input_type={}]\n    For further information visit https://errors.pydantic.dev/{PYDANTIC_DOCS_VERSION}/v/{}",
            e.loc, e.message, e.kind, e.input_repr, e.input_type, e.kind
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::truncated_repr;
    use serde_json::json;

    #[test]
    fn long_reprs_are_cut_at_character_boundaries() {
        assert_eq!(
            truncated_repr(&json!("x".repeat(48))),
            format!("'{}'", "x".repeat(48))
        );
        assert_eq!(
            truncated_repr(&json!("x".repeat(49))),
            format!("'{}...{}'", "x".repeat(24), "x".repeat(23))
        );
        assert_eq!(
            truncated_repr(&json!("é".repeat(30))),
            format!("'{}...{}'", "é".repeat(12), "é".repeat(11))
        );
        assert_eq!(
            truncated_repr(&json!("😀".repeat(49))),
            format!("'{}...{}'", "😀".repeat(6), "😀".repeat(5))
        );
    }
}

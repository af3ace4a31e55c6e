//! FastMCP 2.x validates tool arguments with pydantic against the function signature (lax mode,
//! unknown keywords forbidden) and answers with the `ValidationError`'s text. This module
//! reproduces those checks for the parameter kinds the BPO tools use, and the text.

use serde_json::{Map, Value};
use vakra_pytext::pydantic::{
    LIST_TYPE, LineError, MISSING_ARGUMENT, STRING_TYPE, UNEXPECTED_KEYWORD_ARGUMENT,
    validation_error,
};

use crate::tools::{Arg, Args, Param, ParamKind};

fn string_type(loc: String, input: &Value) -> LineError {
    LineError::for_value(loc, STRING_TYPE, input)
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
                ParamKind::Str => errors.push(LineError::for_value(
                    param.name,
                    MISSING_ARGUMENT,
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
            (ParamKind::OptionalStrList, other) => {
                errors.push(LineError::for_value(param.name, LIST_TYPE, other))
            }
            (_, Value::String(s)) => args.push(Arg::Str(s.clone())),
            (_, other) => errors.push(string_type(param.name.into(), other)),
        }
    }
    for (name, value) in arguments {
        if !params.iter().any(|p| p.name == name) {
            errors.push(LineError::for_value(
                name.clone(),
                UNEXPECTED_KEYWORD_ARGUMENT,
                value,
            ));
        }
    }
    if errors.is_empty() {
        Ok(Args(args))
    } else {
        Err(validation_error(&format!("call[{tool}]"), &errors))
    }
}

//! The text of pydantic v2's `ValidationError`, which the reference's servers print when a
//! model or a tool signature rejects arguments:
//!
//! ```text
//! 1 validation error for FilterDataInput
//! data
//!   Input should be a valid dictionary [type=dict_type, input_value='nope_1', input_type=str]
//!     For further information visit https://errors.pydantic.dev/2.14/v/dict_type
//! ```

use serde_json::Value;

/// The pydantic minor version in the documentation links (the one installed with the
/// reference's unpinned requirements when the recordings were made).
pub const PYDANTIC_DOCS_VERSION: &str = "2.14";

/// One of pydantic-core's error types and the message it prints with it (in a
/// `ValidationError`'s lines and in FastAPI's 422 details alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorType {
    pub kind: &'static str,
    pub message: &'static str,
}

const fn error_type(kind: &'static str, message: &'static str) -> ErrorType {
    ErrorType { kind, message }
}

pub const MISSING: ErrorType = error_type("missing", "Field required");
pub const MISSING_ARGUMENT: ErrorType = error_type("missing_argument", "Missing required argument");
pub const UNEXPECTED_KEYWORD_ARGUMENT: ErrorType =
    error_type("unexpected_keyword_argument", "Unexpected keyword argument");
pub const EXTRA_FORBIDDEN: ErrorType =
    error_type("extra_forbidden", "Extra inputs are not permitted");
pub const STRING_TYPE: ErrorType = error_type("string_type", "Input should be a valid string");
pub const BOOL_TYPE: ErrorType = error_type("bool_type", "Input should be a valid boolean");
pub const BOOL_PARSING: ErrorType = error_type(
    "bool_parsing",
    "Input should be a valid boolean, unable to interpret input",
);
pub const INT_TYPE: ErrorType = error_type("int_type", "Input should be a valid integer");
pub const INT_PARSING: ErrorType = error_type(
    "int_parsing",
    "Input should be a valid integer, unable to parse string as an integer",
);
pub const INT_PARSING_SIZE: ErrorType = error_type(
    "int_parsing_size",
    "Unable to parse input string as an integer, exceeded maximum size",
);
pub const INT_FROM_FLOAT: ErrorType = error_type(
    "int_from_float",
    "Input should be a valid integer, got a number with a fractional part",
);
pub const FLOAT_TYPE: ErrorType = error_type("float_type", "Input should be a valid number");
pub const FLOAT_PARSING: ErrorType = error_type(
    "float_parsing",
    "Input should be a valid number, unable to parse string as a number",
);
pub const FINITE_NUMBER: ErrorType = error_type("finite_number", "Input should be a finite number");
pub const LIST_TYPE: ErrorType = error_type("list_type", "Input should be a valid list");
pub const DICT_TYPE: ErrorType = error_type("dict_type", "Input should be a valid dictionary");
pub const MODEL_ATTRIBUTES_TYPE: ErrorType = error_type(
    "model_attributes_type",
    "Input should be a valid dictionary or object to extract fields from",
);

/// The message of `model_type`: a model field given something other than an object.
pub fn model_type_message(model: &str) -> String {
    format!("Input should be a valid dictionary or instance of {model}")
}

/// One line item of a `ValidationError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The location (`data`, `names.0`); empty for a model-level error, which has no line.
    pub loc: String,
    pub message: String,
    /// pydantic's error type (`dict_type`, `missing`, …), also the link's last part.
    pub kind: &'static str,
    /// The full Python `repr` of the input; shortened when rendered.
    pub input_repr: String,
    pub input_type: &'static str,
}

impl LineError {
    /// An error about a JSON input value.
    pub fn for_value(loc: impl Into<String>, error: ErrorType, input: &Value) -> Self {
        Self {
            loc: loc.into(),
            message: error.message.to_owned(),
            kind: error.kind,
            input_repr: crate::py_repr(input),
            input_type: python_type(input),
        }
    }
}

/// `str(ValidationError)` for the model or call named `title`.
pub fn validation_error(title: &str, errors: &[LineError]) -> String {
    let n = errors.len();
    let plural = if n == 1 { "" } else { "s" };
    let mut out = format!("{n} validation error{plural} for {title}");
    for e in errors {
        out.push('\n');
        if !e.loc.is_empty() {
            out.push_str(&e.loc);
            out.push('\n');
        }
        out.push_str(&format!(
            "  {} [type={}, input_value={}, input_type={}]\n    For further information visit {}",
            e.message,
            e.kind,
            shorten_repr(&e.input_repr),
            e.input_type,
            docs_url(e.kind)
        ));
    }
    out
}

/// The documentation link of an error type.
pub fn docs_url(kind: &str) -> String {
    format!("https://errors.pydantic.dev/{PYDANTIC_DOCS_VERSION}/v/{kind}")
}

/// pydantic-core's `input_value` shortening, in UTF-8 bytes: a repr over 50 bytes keeps its
/// first 25 and last 24 bytes (widened to character boundaries) around `...`.
pub fn shorten_repr(repr: &str) -> String {
    if repr.len() <= 50 {
        return repr.to_owned();
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

/// The Python type name of a JSON value after `json.loads`, as `input_type` reports it.
pub fn python_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        // An integer beyond 64 bits that arrived as digits is still Python's int.
        Value::Number(n)
            if n.is_f64() && n.as_f64().and_then(crate::digits::digits_of).is_none() =>
        {
            "float"
        }
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn formats_like_pydantic() {
        let e = LineError::for_value("data", DICT_TYPE, &json!("nope_1"));
        assert_eq!(
            validation_error("FilterDataInput", &[e]),
            "1 validation error for FilterDataInput\ndata\n  Input should be a valid dictionary [type=dict_type, input_value='nope_1', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.14/v/dict_type"
        );
    }

    #[test]
    fn long_reprs_are_cut_at_character_boundaries() {
        let cut = |s: &str| shorten_repr(&crate::py_repr(&json!(s)));
        assert_eq!(cut(&"x".repeat(48)), format!("'{}'", "x".repeat(48)));
        assert_eq!(
            cut(&"x".repeat(49)),
            format!("'{}...{}'", "x".repeat(24), "x".repeat(23))
        );
        assert_eq!(
            cut(&"é".repeat(30)),
            format!("'{}...{}'", "é".repeat(12), "é".repeat(11))
        );
        // recorded by the capability-1 transcripts: a two-byte character counts twice
        let text = "{'data': {'word': ['her\u{f2}dot', 'x'], '_dtypes': {'word': 'object', 'd': 'object'}}}";
        assert!(shorten_repr(text).starts_with("{'data': {'word': ['her\u{f2}..."));
    }
}

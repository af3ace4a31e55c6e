//! pydantic v2's `ValidationError` text, which the reference prints after
//! `Input validation error: ` when a tool's input model rejects the resolved arguments (an
//! unknown handle in place of a table, extra arguments to an unlisted getter, a sort without a
//! key):
//!
//! ```text
//! 1 validation error for FilterDataInput
//! data
//!   Input should be a valid dictionary [type=dict_type, input_value='nope_1', input_type=str]
//!     For further information visit https://errors.pydantic.dev/2.14/v/dict_type
//! ```

use serde_json::Value;
use vakra_frame::Table;

fn str_repr(s: String) -> String {
    vakra_pyjson::py_repr(&Value::String(s))
}

/// The pydantic minor version in the documentation links (the reference's image had 2.14).
pub const PYDANTIC_DOCS_VERSION: &str = "2.14";

/// An argument after handle resolution: a stored table or the JSON the client sent.
#[derive(Debug, Clone)]
pub enum ArgValue {
    Table(std::sync::Arc<Table>),
    Json(Value),
}

impl ArgValue {
    /// Python's `repr` of the value the tool function receives.
    pub fn python_repr(&self) -> String {
        match self {
            ArgValue::Json(v) => vakra_pyjson::py_repr(v),
            ArgValue::Table(t) => table_repr(t),
        }
    }

    /// Python's type name of that value.
    pub fn python_type(&self) -> &'static str {
        match self {
            ArgValue::Table(_) => "dict",
            ArgValue::Json(v) => match v {
                Value::Null => "NoneType",
                Value::Bool(_) => "bool",
                Value::Number(n) if n.is_f64() => "float",
                Value::Number(_) => "int",
                Value::String(_) => "str",
                Value::Array(_) => "list",
                Value::Object(_) => "dict",
            },
        }
    }

    /// Python truthiness (an empty table or string is false).
    pub fn is_truthy(&self) -> bool {
        match self {
            ArgValue::Table(t) => t.num_columns() > 0 || t.has_dtypes(),
            ArgValue::Json(v) => match v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                Value::Array(a) => !a.is_empty(),
                Value::Object(o) => !o.is_empty(),
            },
        }
    }
}

/// `repr` of a table as the reference holds it: a dict of lists, with the `_dtypes` sidecar
/// last when the table has one.
fn table_repr(table: &Table) -> String {
    let mut out = String::from("{");
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !first {
            out.push_str(", ");
        }
        first = false;
    };
    for column in table.columns() {
        sep(&mut out);
        out.push_str(&str_repr(column.name().to_owned()));
        out.push_str(": [");
        for (i, cell) in column.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&cell.python_repr());
        }
        out.push(']');
    }
    if table.has_dtypes() {
        sep(&mut out);
        out.push_str("'_dtypes': {");
        for (i, name) in table.column_names().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let dtype = table.dtype(name).map_or("object", |d| d.as_str());
            out.push_str(&str_repr(name.to_owned()));
            out.push_str(": ");
            out.push_str(&str_repr(dtype.to_owned()));
        }
        out.push('}');
    }
    out.push('}');
    out
}

/// `repr` of the keyword arguments a model was called with.
pub fn kwargs_repr(args: &[(String, ArgValue)]) -> String {
    let items: Vec<String> = args
        .iter()
        .map(|(k, v)| format!("{}: {}", str_repr(k.clone()), v.python_repr()))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// One line item of a `ValidationError`.
#[derive(Debug, Clone)]
pub struct ErrorItem {
    /// The field; empty for a model-level error.
    pub loc: String,
    pub message: String,
    pub kind: &'static str,
    pub input_repr: String,
    pub input_type: &'static str,
}

impl ErrorItem {
    /// The field does not hold the type the model wants.
    pub fn wrong_type(field: &str, value: &ArgValue, kind: &'static str, message: &str) -> Self {
        Self {
            loc: field.to_owned(),
            message: message.to_owned(),
            kind,
            input_repr: value.python_repr(),
            input_type: value.python_type(),
        }
    }

    /// An argument the model does not declare.
    pub fn extra(field: &str, value: &ArgValue) -> Self {
        Self::wrong_type(
            field,
            value,
            "extra_forbidden",
            "Extra inputs are not permitted",
        )
    }

    /// A required field is absent; pydantic quotes all arguments.
    pub fn missing(field: &str, args: &[(String, ArgValue)]) -> Self {
        Self {
            loc: field.to_owned(),
            message: "Field required".into(),
            kind: "missing",
            input_repr: kwargs_repr(args),
            input_type: "dict",
        }
    }
}

/// pydantic-core's `input_value` shortening, in UTF-8 bytes: reprs over 50 bytes keep their
/// first 25 and last 24 bytes (cut at character boundaries) around `...`.
fn shorten(repr: &str) -> String {
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

/// `str(ValidationError)`.
pub fn validation_error(title: &str, errors: &[ErrorItem]) -> String {
    let n = errors.len();
    let mut out = format!(
        "{n} validation error{} for {title}",
        if n == 1 { "" } else { "s" }
    );
    for e in errors {
        out.push('\n');
        if !e.loc.is_empty() {
            out.push_str(&e.loc);
            out.push('\n');
        }
        out.push_str(&format!(
            "  {} [type={}, input_value={}, input_type={}]\n    For further information visit https://errors.pydantic.dev/{}/v/{}",
            e.message,
            e.kind,
            shorten(&e.input_repr),
            e.input_type,
            PYDANTIC_DOCS_VERSION,
            e.kind
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_pydantic() {
        let value = ArgValue::Json(Value::String("nope_1".into()));
        let text = validation_error(
            "FilterDataInput",
            &[ErrorItem::wrong_type(
                "data",
                &value,
                "dict_type",
                "Input should be a valid dictionary",
            )],
        );
        assert_eq!(
            text,
            "1 validation error for FilterDataInput\ndata\n  Input should be a valid dictionary [type=dict_type, input_value='nope_1', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.14/v/dict_type"
        );
        let long = "x".repeat(60);
        assert_eq!(shorten(&long).chars().count(), 52);
        // recorded: a two-byte character counts twice
        let text = "{'data': {'word': ['her\u{f2}dot', 'x'], '_dtypes': {'word': 'object', 'float64', 'd': 'object'}}}";
        assert!(shorten(text).starts_with("{'data': {'word': ['her\u{f2}..."));
    }
}

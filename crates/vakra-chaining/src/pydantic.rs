//! The arguments of capability-1 input models as pydantic sees them, for its `ValidationError`
//! texts (formatted by [`vakra_pytext::pydantic`]): Python reprs and type names of resolved
//! arguments, including stored tables.

use serde_json::Value;
use vakra_frame::Table;
use vakra_pytext::pydantic::{EXTRA_FORBIDDEN, ErrorType, LineError, MISSING};
use vakra_pytext::str_repr;

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
            ArgValue::Json(v) => vakra_pytext::py_repr(v),
            ArgValue::Table(t) => table_repr(t),
        }
    }

    /// Python's type name of that value.
    pub fn python_type(&self) -> &'static str {
        match self {
            ArgValue::Table(_) => "dict",
            ArgValue::Json(v) => vakra_pytext::pydantic::python_type(v),
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
        out.push_str(&str_repr(column.name()));
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
            out.push_str(&str_repr(name));
            out.push_str(": ");
            out.push_str(&str_repr(dtype));
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
        .map(|(k, v)| format!("{}: {}", str_repr(k), v.python_repr()))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// A line item about an argument's value.
pub fn wrong_type(field: &str, value: &ArgValue, kind: &'static str, message: &str) -> LineError {
    LineError {
        loc: field.to_owned(),
        message: message.to_owned(),
        kind,
        input_repr: value.python_repr(),
        input_type: value.python_type(),
    }
}

/// A line item of one of pydantic's fixed error types about an argument's value.
pub fn wrong(field: &str, value: &ArgValue, error: ErrorType) -> LineError {
    wrong_type(field, value, error.kind, error.message)
}

/// An argument the model does not declare.
pub fn extra(field: &str, value: &ArgValue) -> LineError {
    wrong(field, value, EXTRA_FORBIDDEN)
}

/// A required field is absent; pydantic quotes all arguments.
pub fn missing(field: &str, args: &[(String, ArgValue)]) -> LineError {
    LineError {
        loc: field.to_owned(),
        message: MISSING.message.into(),
        kind: MISSING.kind,
        input_repr: kwargs_repr(args),
        input_type: "dict",
    }
}

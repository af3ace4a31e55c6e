//! The values a handler computes with: what Python's `sqlite3` returns and what the response
//! templates build, before FastAPI turns them into JSON.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Write;

use serde_json::{Map, Number, Value};
use vakra_sql::SqlValue;

/// How REST bodies are written (Starlette's `JSONResponse`).
const COMPACT: vakra_pytext::DumpOptions = vakra_pytext::DumpOptions::compact_utf8();

/// Up to this many keys a dict's keys are checked for repeats pair by pair, past it through a
/// set (a dict built from every row of a result may have thousands).
const SMALL_DICT: usize = 16;

/// A Python value, restricted to what the reference's handlers use.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<PyValue>),
    Tuple(Vec<PyValue>),
    Dict(Vec<(PyValue, PyValue)>),
}

/// Why a value could not become a JSON body; the reference answers 500 in each case.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JsonError {
    #[error("Out of range float values are not JSON compliant")]
    NonFiniteFloat,
    #[error("'utf-8' codec can't decode bytes")]
    InvalidUtf8,
    /// A tuple dict key: FastAPI's `jsonable_encoder` turns it into a list, which cannot be a
    /// key.
    #[error("unhashable type: '{0}'")]
    UnhashableKey(&'static str),
}

impl From<SqlValue> for PyValue {
    fn from(value: SqlValue) -> Self {
        match value {
            SqlValue::Null => PyValue::None,
            SqlValue::Integer(i) => PyValue::Int(i),
            SqlValue::Real(f) => PyValue::Float(f),
            SqlValue::Text(s) => PyValue::Str(s),
            SqlValue::Blob(b) => PyValue::Bytes(b),
        }
    }
}

impl PyValue {
    /// A row as Python's `sqlite3` returns it: a tuple.
    pub fn row(cells: Vec<SqlValue>) -> Self {
        PyValue::Tuple(cells.into_iter().map(PyValue::from).collect())
    }

    /// Python's truth value.
    pub fn truthy(&self) -> bool {
        match self {
            PyValue::None => false,
            PyValue::Bool(b) => *b,
            PyValue::Int(i) => *i != 0,
            PyValue::Float(f) => *f != 0.0,
            PyValue::Str(s) => !s.is_empty(),
            PyValue::Bytes(b) => !b.is_empty(),
            PyValue::List(v) | PyValue::Tuple(v) => !v.is_empty(),
            PyValue::Dict(d) => !d.is_empty(),
        }
    }

    /// Python's type name, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::Bytes(_) => "bytes",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Dict(_) => "dict",
        }
    }

    /// A JSON value converted the way `json.loads` would hand it to Python.
    pub fn from_json(value: &Value) -> Self {
        match value {
            Value::Null => PyValue::None,
            Value::Bool(b) => PyValue::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => PyValue::Int(i),
                None => PyValue::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => PyValue::Str(s.clone()),
            Value::Array(items) => PyValue::List(items.iter().map(PyValue::from_json).collect()),
            Value::Object(map) => PyValue::Dict(
                map.iter()
                    .map(|(k, v)| (PyValue::Str(k.clone()), PyValue::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// FastAPI's `jsonable_encoder` followed by `json.dumps`: tuples become arrays, bytes are
    /// decoded as UTF-8, dict keys become strings as `json.dumps` writes them (a tuple key is
    /// refused), and non-finite floats are refused (`allow_nan=False`), keys included.
    ///
    /// Keys that are distinct in Python but the same string in JSON (`1` and `'1'`) appear
    /// twice in FastAPI's body; a JSON object holds one, so the last value is kept at the first
    /// key's position, which is what a client's `json.loads` of that body gives.
    pub fn to_json(&self) -> Result<Value, JsonError> {
        Ok(match self {
            PyValue::None => Value::Null,
            PyValue::Bool(b) => Value::Bool(*b),
            PyValue::Int(i) => Value::Number((*i).into()),
            PyValue::Float(f) => {
                Value::Number(Number::from_f64(*f).ok_or(JsonError::NonFiniteFloat)?)
            }
            PyValue::Str(s) => Value::String(s.clone()),
            PyValue::Bytes(b) => {
                Value::String(String::from_utf8(b.clone()).map_err(|_| JsonError::InvalidUtf8)?)
            }
            PyValue::List(items) | PyValue::Tuple(items) => Value::Array(
                items
                    .iter()
                    .map(PyValue::to_json)
                    .collect::<Result<_, _>>()?,
            ),
            PyValue::Dict(pairs) => {
                let mut map = Map::new();
                for (k, v) in pairs {
                    map.insert(k.json_key()?.into_owned(), v.to_json()?);
                }
                Value::Object(map)
            }
        })
    }

    /// [`PyValue::to_json`] written straight into `out` as Starlette's `JSONResponse` writes it
    /// (`json.dumps` with `ensure_ascii=False`, `allow_nan=False` and compact separators:
    /// `vakra_pytext::DumpOptions::compact_utf8`), without building the JSON value first. The
    /// same text and the same errors; on an error `out` holds a partial text.
    pub fn write_json(&self, out: &mut String) -> Result<(), JsonError> {
        match self {
            PyValue::None => out.push_str("null"),
            PyValue::Bool(true) => out.push_str("true"),
            PyValue::Bool(false) => out.push_str("false"),
            PyValue::Int(i) => {
                let _ = write!(out, "{i}");
            }
            PyValue::Float(f) if f.is_finite() => out.push_str(&vakra_pytext::float_repr(*f)),
            PyValue::Float(_) => return Err(JsonError::NonFiniteFloat),
            PyValue::Str(s) => vakra_pytext::dump_str_to(out, s, &COMPACT),
            PyValue::Bytes(b) => {
                let s = std::str::from_utf8(b).map_err(|_| JsonError::InvalidUtf8)?;
                vakra_pytext::dump_str_to(out, s, &COMPACT);
            }
            PyValue::List(items) | PyValue::Tuple(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out)?;
                }
                out.push(']');
            }
            PyValue::Dict(pairs) => {
                let keys = pairs
                    .iter()
                    .map(|(k, _)| k.json_key())
                    .collect::<Result<Vec<_>, _>>()?;
                let repeated = if keys.len() <= SMALL_DICT {
                    keys.iter()
                        .enumerate()
                        .any(|(i, key)| keys[..i].contains(key))
                } else {
                    let mut seen = HashSet::with_capacity(keys.len());
                    !keys.iter().all(|key| seen.insert(key.as_ref()))
                };
                if repeated {
                    // One key, the last value at the first one's place: the JSON value's rule.
                    let value = self.to_json()?;
                    return vakra_pytext::dump_to(out, &value, &COMPACT)
                        .map_err(|_| JsonError::NonFiniteFloat);
                }
                out.push('{');
                for (i, (key, (_, value))) in keys.iter().zip(pairs).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    vakra_pytext::dump_str_to(out, key, &COMPACT);
                    out.push(':');
                    value.write_json(out)?;
                }
                out.push('}');
            }
        }
        Ok(())
    }

    /// A dict key as `json.dumps` writes it, after `jsonable_encoder` decoded bytes.
    fn json_key(&self) -> Result<Cow<'_, str>, JsonError> {
        Ok(match self {
            PyValue::Str(s) => Cow::Borrowed(s),
            PyValue::None => "null".into(),
            PyValue::Bool(b) => b.to_string().into(),
            PyValue::Int(i) => i.to_string().into(),
            PyValue::Float(f) if f.is_finite() => vakra_pytext::float_repr(*f).into(),
            PyValue::Float(_) => return Err(JsonError::NonFiniteFloat),
            PyValue::Bytes(b) => std::str::from_utf8(b)
                .map_err(|_| JsonError::InvalidUtf8)?
                .into(),
            PyValue::List(_) | PyValue::Tuple(_) => return Err(JsonError::UnhashableKey("list")),
            PyValue::Dict(_) => return Err(JsonError::UnhashableKey("dict")),
        })
    }

    /// Python's `repr()`.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    /// Python's `str()`: like `repr()` except that a string is itself.
    pub fn str(&self) -> String {
        match self {
            PyValue::Str(s) => s.clone(),
            other => other.repr(),
        }
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            PyValue::None => out.push_str("None"),
            PyValue::Bool(true) => out.push_str("True"),
            PyValue::Bool(false) => out.push_str("False"),
            PyValue::Int(i) => {
                let _ = write!(out, "{i}");
            }
            PyValue::Float(f) => out.push_str(&vakra_pytext::float_repr(*f)),
            PyValue::Str(s) => out.push_str(&vakra_pytext::str_repr(s)),
            PyValue::Bytes(b) => out.push_str(&vakra_pytext::bytes_repr(b)),
            PyValue::List(items) => write_seq(out, "[", items, "]"),
            PyValue::Tuple(items) if items.len() == 1 => write_seq(out, "(", items, ",)"),
            PyValue::Tuple(items) => write_seq(out, "(", items, ")"),
            PyValue::Dict(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_seq(out: &mut String, open: &str, items: &[PyValue], close: &str) {
    out.push_str(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write_repr(out);
    }
    out.push_str(close);
}

//! Argument decoding for the input models of capability 1's tools: each field taken in model
//! order and checked as pydantic would, the errors collected into `str(ValidationError)`.

use std::str::FromStr;
use std::sync::Arc;

use serde_json::{Map, Value};
use vakra_frame::{Cell, Table};
use vakra_pytext::pydantic::{
    BOOL_TYPE, DICT_TYPE, ErrorType, INT_TYPE, LIST_TYPE, LineError, STRING_TYPE, validation_error,
};

use crate::pydantic::{self as py, ArgValue};

/// The arguments of one input-model call, taken field by field in model order so that errors
/// come out in pydantic's order.
pub(crate) struct Inputs {
    model: &'static str,
    pub(crate) args: Vec<(String, ArgValue)>,
    taken: Vec<String>,
    errors: Vec<LineError>,
}

impl Inputs {
    pub(crate) fn new(model: &'static str, args: Vec<(String, ArgValue)>) -> Self {
        Self {
            model,
            args,
            taken: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn take(&mut self, field: &str) -> Option<ArgValue> {
        self.taken.push(field.to_owned());
        self.args
            .iter()
            .find(|(k, _)| k == field)
            .map(|(_, v)| v.clone())
    }

    fn missing(&mut self, field: &str) {
        let error = py::missing(field, &self.args);
        self.errors.push(error);
    }

    pub(crate) fn table(&mut self, field: &str) -> Option<Arc<Table>> {
        match self.take(field) {
            None => {
                self.missing(field);
                None
            }
            Some(ArgValue::Table(t)) => Some(t),
            Some(ArgValue::Json(Value::Object(o))) => match inline_table(&o) {
                Some(t) => Some(Arc::new(t)),
                None => {
                    let v = ArgValue::Json(Value::Object(o));
                    self.errors.push(py::wrong(field, &v, LIST_TYPE));
                    None
                }
            },
            Some(other) => {
                self.errors.push(py::wrong(field, &other, DICT_TYPE));
                None
            }
        }
    }

    pub(crate) fn json(&mut self, field: &str, default: Option<Value>) -> Option<Value> {
        match self.take(field) {
            Some(ArgValue::Json(v)) => Some(v),
            Some(ArgValue::Table(_)) => {
                self.wrong(field, "Input should be a valid value", "value_error");
                None
            }
            None if default.is_some() => default,
            None => {
                self.missing(field);
                None
            }
        }
    }

    fn wrong(&mut self, field: &str, message: &str, kind: &'static str) {
        if let Some(v) = self
            .args
            .iter()
            .find(|(k, _)| k == field)
            .map(|(_, v)| v.clone())
        {
            self.errors.push(py::wrong_type(field, &v, kind, message));
        }
    }

    fn wrong_as(&mut self, field: &str, error: ErrorType) {
        self.wrong(field, error.message, error.kind);
    }

    pub(crate) fn string(&mut self, field: &str, default: Option<&str>) -> Option<String> {
        match self.json(field, default.map(|d| Value::String(d.into())))? {
            Value::String(s) => Some(s),
            _ => {
                self.wrong_as(field, STRING_TYPE);
                None
            }
        }
    }

    /// An integer field (an integral float too, as pydantic's lax mode takes it). Every integer
    /// field bounds a slice (`limit`, `start_index`, `end_index`, `n`), where Python's integers
    /// beyond 64 bits act as the nearest 64-bit one: such values are clamped, not refused.
    pub(crate) fn int(&mut self, field: &str, default: Option<i64>) -> Option<i64> {
        let value = self.json(field, default.map(Value::from))?;
        match &value {
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            Value::Number(n) if n.is_u64() => Some(i64::MAX),
            // `as` saturates beyond the range of i64.
            Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => {
                n.as_f64().map(|f| f as i64)
            }
            _ => {
                self.wrong_as(field, INT_TYPE);
                None
            }
        }
    }

    pub(crate) fn boolean(&mut self, field: &str, default: Option<bool>) -> Option<bool> {
        match self.json(field, default.map(Value::Bool))? {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong_as(field, BOOL_TYPE);
                None
            }
        }
    }

    /// An enum field, or a preset constant when `preset` is given.
    pub(crate) fn choice<T: FromStr + Copy>(
        &mut self,
        field: &str,
        preset: Option<T>,
        all: &[&str],
    ) -> Option<T> {
        let default = preset.is_some().then(|| Value::Null);
        let value = self.json(field, default)?;
        if value.is_null()
            && let Some(p) = preset
        {
            return Some(p);
        }
        match value.as_str().and_then(|s| s.parse::<T>().ok()) {
            Some(t) => Some(t),
            None => {
                let quoted: Vec<String> = all.iter().map(|a| format!("'{a}'")).collect();
                let list = match quoted.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} or {last}", rest.join(", "))
                    }
                    _ => quoted.join(""),
                };
                self.wrong(field, &format!("Input should be {list}"), "enum");
                None
            }
        }
    }

    /// Extra arguments, then the collected errors as `str(ValidationError)`.
    pub(crate) fn finish(&mut self) -> Result<(), String> {
        let extras: Vec<(String, ArgValue)> = self
            .args
            .iter()
            .filter(|(k, _)| !self.taken.contains(k))
            .cloned()
            .collect();
        for (k, v) in &extras {
            self.errors.push(py::extra(k, v));
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(validation_error(self.model, &self.errors))
        }
    }
}

/// An inline table (only reachable for tools the SDK does not validate): a dict of lists.
fn inline_table(object: &Map<String, Value>) -> Option<Table> {
    let mut columns = Vec::new();
    for (name, values) in object {
        if name == "_dtypes" {
            continue;
        }
        let cells: Option<Vec<Cell>> = values.as_array()?.iter().map(Cell::from_json).collect();
        columns.push((name.clone(), cells?));
    }
    Some(Table::from_columns(columns))
}

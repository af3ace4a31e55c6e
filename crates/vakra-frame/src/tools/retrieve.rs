//! The tools that read values without pandas: `retrieve_data` (§7.5), the SEL-BIRD getters
//! (§8.3), `select_unique_values` (§7.6) and `truncate` (§8.2).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cell::{Cell, distinct};
use crate::column::Column;
use crate::error::ToolError;
use crate::table::Table;

use super::ToolValue;

/// `retrieve_data`'s `key_name`: one column or a list of columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KeyName {
    /// One column (`distinct` applies).
    One(String),
    /// Several columns, in this order (`distinct` is ignored).
    Many(Vec<String>),
}

fn is_nan(cell: &Cell) -> bool {
    matches!(cell, Cell::Float(x) if x.is_nan())
}

/// The column with NaN written as `None`, as the reference's `retrieve_data` and getters do.
fn nan_to_none(column: &Column) -> Column {
    if column.may_hold_nan() && column.iter().any(is_nan) {
        column.with_cells(
            column
                .iter()
                .map(|c| if is_nan(c) { Cell::None } else { c.clone() })
                .collect(),
        )
    } else {
        column.clone()
    }
}

/// Selects columns into a new table without a dtype sidecar: a single key may be made distinct
/// (a list of keys ignores `distinct`), `limit >= 0` keeps a prefix, and NaN becomes `None`.
pub fn retrieve_data(
    data: &Table,
    key_name: &KeyName,
    distinct_values: bool,
    limit: i64,
) -> Result<ToolValue, ToolError> {
    let columns = match key_name {
        KeyName::One(key) => {
            let column = &data.columns()[data.best_key(key)?];
            let column = if distinct_values {
                column.with_cells(distinct(&column.values()))
            } else {
                column.clone()
            };
            vec![finish(&column, limit)]
        }
        KeyName::Many(keys) => {
            let mut columns = Vec::with_capacity(keys.len());
            for key in keys {
                columns.push(finish(&data.columns()[data.index_of(key)?], limit));
            }
            columns
        }
    };
    Ok(ToolValue::Table(Table::from_parts(columns, None)))
}

/// One retrieved column: the `limit` prefix, NaN replaced by `None`.
fn finish(column: &Column, limit: i64) -> Column {
    let column = match usize::try_from(limit) {
        Ok(limit) => column.prefix(limit),
        Err(_) => column.clone(),
    };
    nan_to_none(&column)
}

/// A SEL-BIRD getter `get_<column>s`: the whole column of any table, NaN written as `null`.
pub fn getter(data: &Table, column: &str) -> Result<ToolValue, ToolError> {
    let column = &data.columns()[data.index_of(column)?];
    Ok(ToolValue::List(
        column
            .iter()
            .map(|c| if is_nan(c) { Cell::None } else { c.clone() })
            .collect(),
    ))
}

/// The distinct values of a JSON list in first-occurrence order, with Python's hash equality
/// (`[1, 1.0, true, "1"]` gives `[1, "1"]`); objects and arrays are unhashable.
pub fn select_unique_values(unique_array: &[Value]) -> Result<ToolValue, ToolError> {
    let mut cells = Vec::with_capacity(unique_array.len());
    for value in unique_array {
        match Cell::from_json(value) {
            Some(cell) => cells.push(cell),
            None => {
                let kind = if value.is_array() { "list" } else { "dict" };
                return Err(ToolError::new(format!("unhashable type: '{kind}'")));
            }
        }
    }
    Ok(ToolValue::List(distinct(&cells)))
}

/// `truncate_array[:n]` for an inline JSON list; an inline object fails as slicing a dict does.
pub fn truncate(truncate_array: &Value, n: i64) -> Result<ToolValue, ToolError> {
    if n < 0 {
        return Err(ToolError::new("n must be a non-negative integer."));
    }
    match truncate_array {
        Value::Array(items) => {
            let end = usize::try_from(n).unwrap_or(usize::MAX).min(items.len());
            let text = vakra_pytext::dumps(
                &Value::Array(items[..end].to_vec()),
                &vakra_pytext::DumpOptions::python_default(),
            )
            .map_err(|e| ToolError::new(e.to_string()))?;
            Ok(ToolValue::Json(text))
        }
        _ => Err(ToolError::new("unhashable type: 'slice'")),
    }
}

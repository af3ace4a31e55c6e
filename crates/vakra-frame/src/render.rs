//! The texts agents read for tables and lists: `json.dumps` with Python's defaults, and the
//! handle suffix rule.

use serde_json::Value;
use vakra_pytext::{DumpOptions, dump_to, float_to_json};

use crate::cell::Cell;
use crate::error::RenderError;
use crate::table::Table;

/// Appends `json.dumps(cell)`: NaN and infinities as bare `NaN`/`Infinity` tokens (not strict
/// JSON, as the reference writes them), floats in Python's repr, strings ASCII-escaped.
fn push_cell(out: &mut String, cell: &Cell) -> Result<(), RenderError> {
    match cell {
        Cell::None => out.push_str("null"),
        Cell::Bool(true) => out.push_str("true"),
        Cell::Bool(false) => out.push_str("false"),
        Cell::Int(i) => out.push_str(&i.to_string()),
        Cell::UInt(u) => out.push_str(&u.to_string()),
        Cell::Float(x) => out.push_str(&float_to_json(*x, true).unwrap_or_default()),
        Cell::Str(s) => push_str(out, s),
        Cell::Bytes(_) => return Err(RenderError),
    }
    Ok(())
}

/// Appends `json.dumps(text)`.
pub(crate) fn push_str(out: &mut String, text: &str) {
    // Strings always encode, so the result can be ignored.
    let _ = dump_to(
        out,
        &Value::String(text.to_owned()),
        &DumpOptions::python_default(),
    );
}

fn push_list(out: &mut String, cells: &[Cell]) -> Result<(), RenderError> {
    out.push('[');
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_cell(out, cell)?;
    }
    out.push(']');
    Ok(())
}

/// `json.dumps(list)`: how the reference returns list results (getters, `truncate`,
/// `select_unique_values`, `Calculator` on lists).
pub fn render_list(cells: &[Cell]) -> Result<String, RenderError> {
    let mut out = String::with_capacity(cells.len() * 8 + 2);
    push_list(&mut out, cells)?;
    Ok(out)
}

/// Python's `str(value)`, how the reference returns scalar results.
pub fn python_str(cell: &Cell) -> String {
    cell.python_str()
}

/// The middle part of a handle, `<prefix>_<suffix>_<n>`: the first column name up to its first
/// `_`, or `data` when there is no column or the name has no `_`.
pub fn handle_suffix(table: &Table) -> String {
    match table.column_names().next() {
        Some(name) if name.contains('_') => name.split('_').next().unwrap_or_default().to_owned(),
        _ => "data".to_owned(),
    }
}

/// The peek the reference answers with when it stores a table under `handle`:
/// `{"handle", "num_records", "key_details": [{"name", "dtype", "first_3_values"}]}`.
///
/// `dtype` is the sidecar's pandas name when the table has one, otherwise the Python type name
/// of the column's first value, or `unknown` for an empty column. The first three values are
/// written raw (NaN stays `NaN`). A BLOB among them makes `json.dumps` fail, as in the
/// reference, after the handle has been stored.
pub fn peek(table: &Table, handle: &str) -> Result<String, RenderError> {
    let mut out = String::with_capacity(64 + table.num_columns() * 96);
    out.push_str("{\"handle\": ");
    push_str(&mut out, handle);
    out.push_str(", \"num_records\": ");
    out.push_str(&table.num_rows().to_string());
    out.push_str(", \"key_details\": [");
    for (i, column) in table.columns().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let first: Vec<Cell> = column.iter().take(3).cloned().collect();
        let dtype = match table.dtype_at(i) {
            Some(d) => d.as_str(),
            None => first.first().map_or("unknown", Cell::type_name),
        };
        out.push_str("{\"name\": ");
        push_str(&mut out, column.name());
        out.push_str(", \"dtype\": ");
        push_str(&mut out, dtype);
        out.push_str(", \"first_3_values\": ");
        push_list(&mut out, &first)?;
        out.push('}');
    }
    out.push_str("]}");
    Ok(out)
}

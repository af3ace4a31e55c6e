//! `transform_data` (§7.8) and the three SEL-BIRD transforms (§8.2): pure-Python column
//! rewrites, so the result has no dtype sidecar.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::cell::Cell;
use crate::error::ToolError;
use crate::isoformat::parse_date;
use crate::table::Table;
use crate::text::Text;

use super::{ToolValue, TransformOperation};

/// A Python slice bound: `None` or an int (clamped, as CPython clamps out-of-range indices).
#[derive(Debug, Clone, Copy)]
enum Bound {
    Default,
    At(i64),
}

const SLICE_INDEX_ERROR: &str =
    "slice indices must be integers or None or have an __index__ method";

/// A JSON `operation_args` entry used as a slice index; `Err` for non-integers.
fn bound_of(value: &Value) -> Result<Bound, ()> {
    match value {
        Value::Null => Ok(Bound::Default),
        Value::Bool(b) => Ok(Bound::At(i64::from(*b))),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(Bound::At(i))
            } else if n.as_u64().is_some() {
                Ok(Bound::At(i64::MAX))
            } else {
                // Integers beyond 64 bits reach us as floats; Python would clamp them.
                match n.as_f64() {
                    Some(x) if x.fract() == 0.0 && x.abs() >= 9.2e18 => {
                        Ok(Bound::At(if x > 0.0 { i64::MAX } else { i64::MIN }))
                    }
                    _ => Err(()),
                }
            }
        }
        _ => Err(()),
    }
}

/// `transform_data`: `substring` (indices from `operation_args`, default `0` and `-1`, which
/// drops the last character), `abs`, or `datetime` (pattern from `operation_args`, default
/// `%Y`). The column keeps its position; other columns are unchanged.
pub fn transform_data(
    data: &Table,
    key_name: &str,
    operation_type: TransformOperation,
    operation_args: Option<&Map<String, Value>>,
) -> Result<ToolValue, ToolError> {
    let index = data.best_key(key_name)?;
    match operation_type {
        TransformOperation::Substring => {
            let get = |name: &str, default: i64| {
                operation_args
                    .and_then(|args| args.get(name))
                    .map_or(Ok(Bound::At(default)), bound_of)
            };
            let (start, end) = (get("start_index", 0), get("end_index", -1));
            replace(data, index, |cells| substring(cells, start, end))
        }
        TransformOperation::Abs => replace(data, index, absolute),
        TransformOperation::Datetime => {
            let pattern = match operation_args {
                None => Value::String("%Y".to_owned()),
                Some(args) => args
                    .get("pattern")
                    .cloned()
                    .ok_or_else(|| ToolError::key_error("pattern"))?,
            };
            replace(data, index, |cells| Ok(date_parts(cells, pattern.as_str())))
        }
    }
}

/// `transform_data_to_substring`: `cell[start_index:end_index]` for every cell.
pub fn transform_data_to_substring(
    data: &Table,
    key_name: &str,
    start_index: i64,
    end_index: i64,
) -> Result<ToolValue, ToolError> {
    let index = data.best_key(key_name)?;
    replace(data, index, |cells| {
        substring(cells, Ok(Bound::At(start_index)), Ok(Bound::At(end_index)))
    })
}

/// `transform_data_to_absolute_value`: `abs(cell)` for every cell.
pub fn transform_data_to_absolute_value(
    data: &Table,
    key_name: &str,
) -> Result<ToolValue, ToolError> {
    let index = data.best_key(key_name)?;
    replace(data, index, absolute)
}

/// `transform_data_to_datetime_part`: year (`%Y`), month (`%m`) or day (`%d`) of every cell
/// `datetime.fromisoformat` accepts, `None` for any other pattern, other cells unchanged.
pub fn transform_data_to_datetime_part(
    data: &Table,
    key_name: &str,
    datetime_pattern: &str,
) -> Result<ToolValue, ToolError> {
    let index = data.best_key(key_name)?;
    replace(data, index, |cells| {
        Ok(date_parts(cells, Some(datetime_pattern)))
    })
}

/// A copy of `data` (without sidecar) whose column `index` is rewritten.
fn replace(
    data: &Table,
    index: usize,
    rewrite: impl FnOnce(&[Cell]) -> Result<Vec<Cell>, ToolError>,
) -> Result<ToolValue, ToolError> {
    let mut columns = data.columns().to_vec();
    // Gathering a view first keeps the per-value work on contiguous memory.
    let cells = rewrite(&columns[index].values())?;
    columns[index] = columns[index].with_cells(cells);
    Ok(ToolValue::Table(Table::from_parts(columns, None)))
}

/// Python's slice bounds resolved against a length.
fn resolve(len: usize, start: Bound, end: Bound) -> (usize, usize) {
    let len = len as i128;
    let fix = |b: Bound, default: i128| -> i128 {
        match b {
            Bound::Default => default,
            Bound::At(i) => {
                let i = i128::from(i);
                if i < 0 { (i + len).max(0) } else { i.min(len) }
            }
        }
    };
    let s = fix(start, 0);
    let e = fix(end, len);
    (s as usize, e.max(s) as usize)
}

fn substring(
    cells: &[Cell],
    start: Result<Bound, ()>,
    end: Result<Bound, ()>,
) -> Result<Vec<Cell>, ToolError> {
    cells
        .iter()
        .map(|cell| {
            let bounds = || match (start, end) {
                (Ok(s), Ok(e)) => Ok((s, e)),
                _ => Err(ToolError::new(SLICE_INDEX_ERROR)),
            };
            match cell {
                Cell::Str(s) => {
                    let (start, end) = bounds()?;
                    Ok(Cell::Str(slice_str(s, start, end)))
                }
                Cell::Bytes(b) => {
                    let (start, end) = bounds()?;
                    let (s, e) = resolve(b.len(), start, end);
                    Ok(Cell::Bytes(Arc::from(&b[s..e])))
                }
                other => Err(ToolError::new(format!(
                    "'{}' object is not subscriptable",
                    other.type_name()
                ))),
            }
        })
        .collect()
}

/// `s[start:end]` by code points.
fn slice_str(s: &Text, start: Bound, end: Bound) -> Text {
    if s.is_ascii() {
        let (a, b) = resolve(s.len(), start, end);
        if a == 0 && b == s.len() {
            return s.clone();
        }
        return Text::from(&s[a..b]);
    }
    let count = s.chars().count();
    let (a, b) = resolve(count, start, end);
    Text::from(s.chars().skip(a).take(b - a).collect::<String>())
}

fn absolute(cells: &[Cell]) -> Result<Vec<Cell>, ToolError> {
    cells
        .iter()
        .map(|cell| match cell {
            Cell::Bool(b) => Ok(Cell::Int(i64::from(*b))),
            Cell::Int(i) => Ok(i
                .checked_abs()
                .map_or(Cell::UInt(i.unsigned_abs()), Cell::Int)),
            Cell::UInt(u) => Ok(Cell::UInt(*u)),
            Cell::Float(x) => Ok(Cell::Float(x.abs())),
            other => Err(ToolError::new(format!(
                "bad operand type for abs(): '{}'",
                other.type_name()
            ))),
        })
        .collect()
}

/// The reference's `datetime_extraction` for every cell; `pattern` is `None` when it is not a
/// string (it then equals none of `%Y`, `%m`, `%d`).
fn date_parts(cells: &[Cell], pattern: Option<&str>) -> Vec<Cell> {
    cells
        .iter()
        .map(|cell| {
            let Cell::Str(s) = cell else {
                return cell.clone();
            };
            match parse_date(s) {
                None => cell.clone(),
                Some((y, m, d)) => match pattern {
                    Some("%Y") => Cell::Int(i64::from(y)),
                    Some("%m") => Cell::Int(i64::from(m)),
                    Some("%d") => Cell::Int(i64::from(d)),
                    _ => Cell::None,
                },
            }
        })
        .collect()
}

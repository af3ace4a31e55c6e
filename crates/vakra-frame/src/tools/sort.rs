//! `sort_data` and the `sort_data_*` variants (§7.7): pandas'
//! `sort_values(kind='stable', na_position='last')` on the re-inferred table.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::cell::{Cell, CmpOp, num_cmp};
use crate::column::Column;
use crate::error::ToolError;
use crate::table::{Dtype, Table};

use super::{ToolValue, timsort};

/// The column pandas adds for `ranking_array` and drops again.
const RANKING_COLUMN: &str = "__temp_ranking__";

/// Sorts the rows by `key_name`, or by `ranking_array` when given (which must be non-empty and
/// as long as the table). Stable in both directions; missing values last in their original
/// order.
pub fn sort_data(
    data: &Table,
    key_name: &str,
    ascending: bool,
    ranking_array: Option<&[Cell]>,
) -> Result<ToolValue, ToolError> {
    if let Some(ranking) = ranking_array {
        if ranking.is_empty() {
            return Err(ToolError::new("ranking_array cannot be empty"));
        }
        let rows = data.columns().first().map_or(0, Column::len);
        if ranking.len() != rows {
            return Err(ToolError::new(format!(
                "ranking_array length ({}) must match data row count ({rows})",
                ranking.len()
            )));
        }
    }
    data.check_rectangular()?;
    let frame = data.reinfer();
    let order = Arc::new(match ranking_array {
        Some(ranking) => {
            let (dtype, keys) = Column::new(RANKING_COLUMN, ranking.to_vec()).frame();
            sort_order(&keys, dtype, ascending)?
        }
        None => {
            let index = data.best_key(key_name)?;
            if data.columns()[index].is_empty() {
                return Err(ToolError::new("Empty data can't be sorted. "));
            }
            let dtype = frame.dtype_at(index).unwrap_or(Dtype::Object);
            sort_order(&frame.columns()[index], dtype, ascending)?
        }
    });
    let mut columns = Vec::with_capacity(frame.num_columns());
    let mut dtypes = Vec::with_capacity(frame.num_columns());
    for (i, column) in frame.columns().iter().enumerate() {
        if ranking_array.is_some() && column.name() == RANKING_COLUMN {
            continue;
        }
        columns.push(column.select(&order));
        dtypes.push(frame.dtype_at(i).unwrap_or(Dtype::Object));
    }
    Ok(ToolValue::Table(Table::from_parts(columns, Some(dtypes))))
}

/// pandas' `nargsort`: the non-missing rows stably sorted (descending by sorting the reversed
/// rows ascending and reversing the result), then the missing rows.
fn sort_order(keys: &Column, dtype: Dtype, ascending: bool) -> Result<Vec<u32>, ToolError> {
    if dtype != Dtype::Object
        && let Some(order) = int_or_float_order(keys, ascending)
    {
        return Ok(order);
    }
    let (mut present, missing): (Vec<u32>, Vec<u32>) =
        (0..keys.len() as u32).partition(|&i| !keys.get(i as usize).is_null());
    let sorted = match dtype {
        Dtype::Int64 | Dtype::UInt64 | Dtype::Bool | Dtype::Float64 => {
            numeric_sort(keys, &mut present, ascending);
            present
        }
        Dtype::Object => object_sort(keys, present, ascending)?,
    };
    let mut order = sorted;
    order.extend(missing);
    Ok(order)
}

/// A key whose unsigned order is the numeric order of an int64 or (non-NaN) float64 value.
fn float_key(x: f64) -> u64 {
    let x = if x == 0.0 { 0.0 } else { x };
    let bits = x.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The order of an int64 or float64 column in one pass over the keys: each value becomes an
/// order-preserving `u64`, ties broken by row (a stable sort), NaN rows appended in order.
fn int_or_float_order(keys: &Column, ascending: bool) -> Option<Vec<u32>> {
    let mut pairs = Vec::with_capacity(keys.len());
    let mut missing = Vec::new();
    let mut ints = None;
    for (row, cell) in keys.iter().enumerate() {
        let key = match *cell {
            Cell::Int(i) if ints != Some(false) => {
                ints = Some(true);
                (i as u64) ^ (1 << 63)
            }
            Cell::Float(x) if x.is_nan() => {
                missing.push(row as u32);
                continue;
            }
            Cell::Float(x) if ints != Some(true) => {
                ints = Some(false);
                float_key(x)
            }
            _ => return None,
        };
        pairs.push((if ascending { key } else { !key }, row as u32));
    }
    pairs.sort_unstable();
    Some(
        pairs
            .into_iter()
            .map(|(_, row)| row)
            .chain(missing)
            .collect(),
    )
}

fn numeric_sort(keys: &Column, rows: &mut Vec<u32>, ascending: bool) {
    let all_int = rows
        .iter()
        .all(|&r| matches!(keys.get(r as usize), Cell::Int(_)));
    let all_float = rows
        .iter()
        .all(|&r| matches!(keys.get(r as usize), Cell::Float(_)));
    if all_int || all_float {
        let mut pairs: Vec<(u64, u32)> = rows
            .iter()
            .map(|&r| {
                let key = match *keys.get(r as usize) {
                    Cell::Int(i) => (i as u64) ^ (1 << 63),
                    Cell::Float(x) => float_key(x),
                    _ => 0,
                };
                (if ascending { key } else { !key }, r)
            })
            .collect();
        pairs.sort_unstable();
        *rows = pairs.into_iter().map(|(_, r)| r).collect();
        return;
    }
    let cmp = |a: &u32, b: &u32| {
        let (x, y) = (
            keys.get(*a as usize).as_num(),
            keys.get(*b as usize).as_num(),
        );
        match (x, y) {
            (Some(x), Some(y)) => num_cmp(x, y).unwrap_or(Ordering::Equal),
            _ => Ordering::Equal,
        }
    };
    if ascending {
        rows.sort_by(cmp);
    } else {
        rows.sort_by(|a, b| cmp(b, a));
    }
}

/// Object columns: values of one comparable kind sort directly; anything else goes through
/// numpy's timsort with Python comparisons, failing on the first unorderable pair.
fn object_sort(keys: &Column, present: Vec<u32>, ascending: bool) -> Result<Vec<u32>, ToolError> {
    let all = |f: fn(&Cell) -> bool| present.iter().all(|&r| f(keys.get(r as usize)));
    if all(|c| matches!(c, Cell::Str(_))) || all(|c| matches!(c, Cell::Bytes(_))) {
        let mut rows = present;
        let cmp = |a: &u32, b: &u32| match (&keys.get(*a as usize), &keys.get(*b as usize)) {
            (Cell::Str(x), Cell::Str(y)) => x.cmp(y),
            (Cell::Bytes(x), Cell::Bytes(y)) => x.as_ref().cmp(y.as_ref()),
            _ => Ordering::Equal,
        };
        if ascending {
            rows.sort_by(cmp);
        } else {
            rows.sort_by(|a, b| cmp(b, a));
        }
        return Ok(rows);
    }
    if all(|c| c.as_num().is_some()) {
        let mut rows = present;
        numeric_sort(keys, &mut rows, ascending);
        return Ok(rows);
    }
    let mut rows = present;
    if !ascending {
        rows.reverse();
    }
    let values: Vec<&Cell> = rows.iter().map(|&r| keys.get(r as usize)).collect();
    let order = timsort::argsort(values.len(), |a, b| {
        if values[a].py_compare(values[b], CmpOp::Lt)? {
            return Ok::<i32, String>(-1);
        }
        Ok(i32::from(values[a].py_compare(values[b], CmpOp::Gt)?))
    })
    .map_err(ToolError::new)?;
    let mut sorted: Vec<u32> = order.into_iter().map(|i| rows[i]).collect();
    if !ascending {
        sorted.reverse();
    }
    Ok(sorted)
}

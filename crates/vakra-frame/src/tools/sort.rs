//! `sort_data` and the `sort_data_*` variants (§7.7): pandas'
//! `sort_values(kind='stable', na_position='last')` on the re-inferred table.

use std::cmp::Ordering;

use crate::cell::{Cell, CmpOp, num_cmp};
use crate::column::Column;
use crate::dtype::Dtype;
use crate::error::ToolError;
use crate::pandas::Pandas;
use crate::table::Table;

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
    pandas: Pandas,
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
    let frame = data.reinfer(pandas);
    let order = match ranking_array {
        Some(ranking) => {
            let (dtype, keys) = Column::new(RANKING_COLUMN, ranking.to_vec()).frame(pandas);
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
    };
    let mut kept = Vec::with_capacity(frame.num_columns());
    let mut dtypes = Vec::with_capacity(frame.num_columns());
    for (i, column) in frame.columns().iter().enumerate() {
        if ranking_array.is_some() && column.name() == RANKING_COLUMN {
            continue;
        }
        kept.push(column.clone());
        dtypes.push(frame.dtype_at(i).unwrap_or(Dtype::Object));
    }
    let columns = Column::select_all(&kept, order);
    Ok(ToolValue::Table(Table::from_parts(columns, Some(dtypes))))
}

/// pandas' `nargsort`: the non-missing rows stably sorted (descending by sorting the reversed
/// rows ascending and reversing the result), then the missing rows.
fn sort_order(keys: &Column, dtype: Dtype, ascending: bool) -> Result<Vec<u32>, ToolError> {
    if !matches!(dtype, Dtype::Object | Dtype::Str)
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
        Dtype::Object | Dtype::Str => object_sort(keys, present, ascending)?,
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
        return Ok(byte_string_order(keys, present, ascending));
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

/// The bytes a `str` or `bytes` cell compares by: Python orders `str` by code point, which is
/// the byte order of UTF-8.
fn comparable_bytes(cell: &Cell) -> &[u8] {
    match cell {
        Cell::Str(s) => s.as_bytes(),
        Cell::Bytes(b) => b,
        _ => &[],
    }
}

/// A stable sort of rows whose keys are all `str` or all `bytes`. Each row gets its key's first
/// eight bytes as a big-endian integer and its length (capped at nine), so most comparisons
/// are settled without reading the cells; only keys that share eight bytes are compared in
/// full. Ties go by row, which makes the order total and so the same as a stable sort's, in
/// both directions (pandas keeps equal keys in their original order when descending too).
fn byte_string_order(keys: &Column, rows: Vec<u32>, ascending: bool) -> Vec<u32> {
    const PREFIX: usize = 8;
    let mut keyed: Vec<(u64, u8, u32)> = rows
        .into_iter()
        .map(|row| {
            let bytes = comparable_bytes(keys.get(row as usize));
            let mut prefix = [0u8; PREFIX];
            let n = bytes.len().min(PREFIX);
            prefix[..n].copy_from_slice(&bytes[..n]);
            let length = u8::try_from(bytes.len().min(PREFIX + 1)).unwrap_or(u8::MAX);
            (u64::from_be_bytes(prefix), length, row)
        })
        .collect();
    if keyed
        .iter()
        .all(|&(_, length, _)| usize::from(length) <= PREFIX)
    {
        // Every key is whole in its prefix: prefix, length and row make one integer to sort by.
        let mut packed: Vec<u128> = keyed
            .into_iter()
            .map(|(prefix, length, row)| {
                let (prefix, length) = if ascending {
                    (prefix, length)
                } else {
                    (!prefix, !length)
                };
                (u128::from(prefix) << 64) | (u128::from(length) << 32) | u128::from(row)
            })
            .collect();
        packed.sort_unstable();
        return packed.into_iter().map(|key| key as u32).collect();
    }
    keyed.sort_unstable_by(|a, b| {
        let by_key = a.0.cmp(&b.0).then_with(|| {
            if usize::from(a.1) <= PREFIX && usize::from(b.1) <= PREFIX {
                // both keys are whole in their prefixes: the shorter one is a prefix of the other
                a.1.cmp(&b.1)
            } else {
                let x = comparable_bytes(keys.get(a.2 as usize));
                let y = comparable_bytes(keys.get(b.2 as usize));
                x.cmp(y)
            }
        });
        let by_key = if ascending { by_key } else { by_key.reverse() };
        by_key.then(a.2.cmp(&b.2))
    });
    keyed.into_iter().map(|(_, _, row)| row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys made to defeat the prefix shortcut: shared eight-byte prefixes, NUL bytes (the
    /// prefix's padding), lengths around eight, multibyte characters, many duplicates.
    fn awkward_keys(n: usize) -> Vec<String> {
        let pieces = [
            "", "a", "\0", "ab", "abcdefgh", "abcdefg", "\u{e9}", "\u{4e2d}", "z", "ab\0",
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        (0..n)
            .map(|_| {
                let mut key = String::new();
                for _ in 0..3 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    key.push_str(pieces[(state % pieces.len() as u64) as usize]);
                }
                key
            })
            .collect()
    }

    #[test]
    fn string_keys_sort_as_a_stable_sort_does_in_both_directions() {
        let short: Vec<String> = awkward_keys(3000)
            .into_iter()
            .map(|k| k.chars().take(2).collect())
            .collect();
        assert!(short.iter().all(|k| k.len() <= 8), "the packed path");
        for keys in [awkward_keys(3000), short] {
            check_against_a_stable_sort(&keys);
        }
    }

    fn check_against_a_stable_sort(keys: &[String]) {
        let cells = keys.iter().map(|k| Cell::Str(k.as_str().into())).collect();
        let column = Column::new("k", cells);
        let rows: Vec<u32> = (0..keys.len() as u32).collect();
        for ascending in [true, false] {
            let mut expected = rows.clone();
            if ascending {
                expected.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
            } else {
                expected.sort_by(|&a, &b| keys[b as usize].cmp(&keys[a as usize]));
            }
            let got = byte_string_order(&column, rows.clone(), ascending);
            assert_eq!(got, expected, "ascending: {ascending}");
        }
    }
}

//! `concatenate_data` (§7.3): `pd.concat([df1, df2], ignore_index=True)` of the two
//! re-inferred tables, including pandas' dtype rules for mismatched columns, which work on
//! the frames' dtype blocks rather than on single columns.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::cell::Cell;
use crate::column::to_float_cell;
use crate::dtype::Dtype;
use crate::error::ToolError;
use crate::pandas::Pandas;
use crate::table::Table;

use super::ToolValue;

/// Stacks the rows of `data_1` and then `data_2`. Both must have the same set of columns
/// (otherwise a bare `AssertionError`, whose text is empty); the order is `data_1`'s.
pub fn concatenate_data(
    data_1: &Table,
    data_2: &Table,
    pandas: Pandas,
) -> Result<ToolValue, ToolError> {
    let names_1: HashSet<&str> = data_1.column_names().collect();
    let names_2: HashSet<&str> = data_2.column_names().collect();
    if names_1 != names_2 {
        return Err(ToolError::new(""));
    }
    data_1.check_rectangular()?;
    data_2.check_rectangular()?;
    let frame_1 = data_1.reinfer(pandas);
    let frame_2 = data_2.reinfer(pandas);
    let width = frame_1.num_columns();
    let positions_2: Vec<usize> = frame_1
        .column_names()
        .map(|name| frame_2.position(name).unwrap_or(0))
        .collect();
    let dtype = |frame: &Table, i: usize| frame.dtype_at(i).unwrap_or(Dtype::Object);
    let blocks_1: Vec<usize> = (0..width)
        .map(|i| dtype_block(dtype(&frame_1, i)))
        .collect();
    let blocks_2 = reindexed_blocks(&frame_2, &positions_2);

    let mut columns = Vec::with_capacity(width);
    let mut dtypes = Vec::with_capacity(width);
    let mut start = 0;
    while start < width {
        let mut end = start + 1;
        while end < width
            && blocks_1[end] == blocks_1[start]
            && blocks_2[end] == blocks_2[start]
            && !own_block(dtype(&frame_1, start))
        {
            end += 1;
        }
        let unit_1 = Unit::new(&frame_1, (start..end).collect(), dtype(&frame_1, start));
        let unit_2 = Unit::new(
            &frame_2,
            positions_2[start..end].to_vec(),
            dtype(&frame_2, positions_2[start]),
        );
        let (target, cells) = concat_units(&unit_1, &unit_2);
        for (offset, cells) in cells.into_iter().enumerate() {
            let column = &frame_1.columns()[start + offset];
            columns.push(column.with_cells(cells));
            dtypes.push(target);
        }
        start = end;
    }
    Ok(ToolValue::Table(Table::from_parts(columns, Some(dtypes))))
}

/// A consolidated frame holds one block per numpy dtype.
fn dtype_block(dtype: Dtype) -> usize {
    match dtype {
        Dtype::Int64 => 0,
        Dtype::Float64 => 1,
        Dtype::Object => 2,
        Dtype::Bool => 3,
        Dtype::UInt64 => 4,
        Dtype::Str => 5,
    }
}

/// Extension dtypes (pandas 3's `str`) keep one block per column.
fn own_block(dtype: Dtype) -> bool {
    dtype == Dtype::Str
}

/// The block of each result column in the second frame. In the first frame's column order the
/// blocks are unchanged; otherwise pandas reindexes by slicing: each run of consecutive
/// columns from one block becomes one block if their positions in it are evenly spaced, else
/// one block per column.
fn reindexed_blocks(frame: &Table, positions: &[usize]) -> Vec<usize> {
    let dtype_of = |p: usize| frame.dtype_at(p).unwrap_or(Dtype::Object);
    if positions.iter().enumerate().all(|(i, p)| i == *p) {
        return positions
            .iter()
            .map(|&p| dtype_block(dtype_of(p)))
            .collect();
    }
    // Position of each column inside its dtype block.
    let mut counters = [0usize; 6];
    let blocklocs: Vec<usize> = (0..frame.num_columns())
        .map(|p| {
            let b = dtype_block(dtype_of(p));
            counters[b] += 1;
            counters[b] - 1
        })
        .collect();
    let mut result = vec![0; positions.len()];
    let mut next_block = 0;
    let mut i = 0;
    while i < positions.len() {
        let block = dtype_block(dtype_of(positions[i]));
        let mut j = i + 1;
        while j < positions.len()
            && !own_block(dtype_of(positions[i]))
            && dtype_block(dtype_of(positions[j])) == block
        {
            j += 1;
        }
        let taker: Vec<isize> = positions[i..j]
            .iter()
            .map(|&p| blocklocs[p] as isize)
            .collect();
        if evenly_spaced(&taker) {
            result[i..j].iter_mut().for_each(|b| *b = next_block);
            next_block += 1;
        } else {
            for b in &mut result[i..j] {
                *b = next_block;
                next_block += 1;
            }
        }
        i = j;
    }
    result
}

/// `lib.maybe_indices_to_slice`: one item, or a constant non-zero step.
fn evenly_spaced(taker: &[isize]) -> bool {
    if taker.len() <= 1 {
        return true;
    }
    let step = taker[1] - taker[0];
    step != 0 && taker.windows(2).all(|w| w[1] - w[0] == step)
}

/// One frame's part of a run of columns: a slice of one of its dtype blocks.
struct Unit<'a> {
    dtype: Dtype,
    columns: Vec<Cow<'a, [Cell]>>,
    rows: usize,
}

impl<'a> Unit<'a> {
    fn new(frame: &'a Table, positions: Vec<usize>, dtype: Dtype) -> Self {
        let columns: Vec<Cow<[Cell]>> = positions
            .iter()
            .map(|&p| frame.columns()[p].values())
            .collect();
        Unit {
            dtype,
            rows: frame.num_rows(),
            columns,
        }
    }

    /// `JoinUnit.is_na`: a block that can hold missing values and is empty or all missing.
    fn is_na(&self) -> bool {
        matches!(self.dtype, Dtype::Float64 | Dtype::Object)
            && (self.rows == 0 || self.columns.iter().all(|c| c.iter().all(Cell::is_null)))
    }
}

/// numpy's type promotion among the dtypes tables have.
fn promote(a: Dtype, b: Dtype) -> Dtype {
    use Dtype::*;
    match (a, b) {
        _ if a == b => a,
        (Object, _) | (_, Object) => Object,
        (Float64, _) | (_, Float64) => Float64,
        (Int64, UInt64) | (UInt64, Int64) => Float64,
        (Bool, other) | (other, Bool) => other,
        _ => Object,
    }
}

/// pandas' `find_common_type`: bools never mix with numbers.
fn common_type(dtypes: &[Dtype]) -> Dtype {
    let first = dtypes[0];
    if dtypes.iter().all(|d| *d == first) {
        return first;
    }
    let has_bool = dtypes.contains(&Dtype::Bool);
    if has_bool
        && dtypes
            .iter()
            .any(|d| matches!(d, Dtype::Int64 | Dtype::UInt64 | Dtype::Float64))
    {
        return Dtype::Object;
    }
    dtypes.iter().copied().fold(first, promote)
}

/// A value as stored in an array of `target` dtype (numpy's `astype`).
fn convert(cell: &Cell, target: Dtype) -> Cell {
    match target {
        Dtype::Float64 => to_float_cell(cell),
        Dtype::Int64 | Dtype::UInt64 => match cell {
            Cell::Bool(b) => Cell::Int(i64::from(*b)),
            other => other.clone(),
        },
        Dtype::Object | Dtype::Bool | Dtype::Str => cell.clone(),
    }
}

/// One array of `concat_compat`'s input: its dtype, and per column the values (or, for an
/// all-missing filler, the fill value repeated).
struct Part {
    dtype: Dtype,
    columns: Vec<Vec<Cell>>,
    rows: usize,
}

fn part_of(unit: &Unit<'_>) -> Part {
    Part {
        dtype: unit.dtype,
        columns: unit.columns.iter().map(|c| c.to_vec()).collect(),
        rows: unit.rows,
    }
}

/// `_concatenate_join_units` (or the uniform fast path) for one run of columns.
fn concat_units(u1: &Unit<'_>, u2: &Unit<'_>) -> (Dtype, Vec<Vec<Cell>>) {
    if own_block(u1.dtype) || own_block(u2.dtype) {
        // `str` joins only `str`; with anything else the values are kept as objects.
        let target = if u1.dtype == u2.dtype {
            u1.dtype
        } else {
            Dtype::Object
        };
        return (target, stack(&[part_of(u1), part_of(u2)], target));
    }
    let kind_iub = |d: Dtype| matches!(d, Dtype::Int64 | Dtype::UInt64 | Dtype::Bool);
    // `_is_uniform_join_units`: every unit has the first one's dtype or an int/uint/bool one.
    let uniform = (u2.dtype == u1.dtype || kind_iub(u2.dtype)) && !u1.is_na() && !u2.is_na();
    if uniform {
        let target = promote(u1.dtype, u2.dtype);
        return (target, stack(&[part_of(u1), part_of(u2)], target));
    }
    let empty_dtype = if u1.dtype == u2.dtype {
        u1.dtype
    } else {
        let mut dtypes: Vec<Dtype> = [u1, u2]
            .iter()
            .filter(|u| !u.is_na())
            .map(|u| u.dtype)
            .collect();
        if dtypes.is_empty() {
            dtypes = vec![u1.dtype, u2.dtype];
        }
        common_type(&dtypes)
    };
    let upcast = matches!(empty_dtype, Dtype::Float64 | Dtype::Object);
    let parts: Vec<Part> = [u1, u2]
        .iter()
        .map(|unit| {
            if upcast && unit.is_na() {
                let first_is_none = unit.dtype == Dtype::Object
                    && unit
                        .columns
                        .first()
                        .and_then(|c| c.first())
                        .is_some_and(|c| matches!(c, Cell::None));
                let fill = if empty_dtype == Dtype::Object && first_is_none {
                    Cell::None
                } else {
                    Cell::Float(f64::NAN)
                };
                Part {
                    dtype: empty_dtype,
                    columns: vec![vec![fill; unit.rows]; unit.columns.len()],
                    rows: unit.rows,
                }
            } else {
                part_of(unit)
            }
        })
        .collect();
    concat_compat(parts)
}

/// `concat_compat`: arrays of one dtype are joined as they are; otherwise they are cast to a
/// common dtype, and bools mixed with numbers end up as objects.
fn concat_compat(parts: Vec<Part>) -> (Dtype, Vec<Vec<Cell>>) {
    let first = parts[0].dtype;
    if parts.iter().all(|p| p.dtype == first) {
        return (first, stack(&parts, first));
    }
    let dtypes: Vec<Dtype> = parts.iter().map(|p| p.dtype).collect();
    let has_bool = dtypes.contains(&Dtype::Bool);
    let target = if parts.iter().all(|p| p.rows == 0) {
        let numeric = |d: &Dtype| matches!(d, Dtype::Int64 | Dtype::UInt64 | Dtype::Float64);
        let integral = |d: &Dtype| matches!(d, Dtype::Bool | Dtype::Int64 | Dtype::UInt64);
        if dtypes.iter().all(numeric) || dtypes.iter().all(integral) {
            dtypes.iter().copied().fold(first, promote)
        } else {
            Dtype::Object
        }
    } else {
        dtypes.iter().copied().fold(first, promote)
    };
    let to_object = has_bool && matches!(target, Dtype::Int64 | Dtype::UInt64 | Dtype::Float64);
    let cells = stack(&parts, target);
    (if to_object { Dtype::Object } else { target }, cells)
}

/// The parts' columns one above the other, cast to `target`.
fn stack(parts: &[Part], target: Dtype) -> Vec<Vec<Cell>> {
    let width = parts[0].columns.len();
    (0..width)
        .map(|i| {
            parts
                .iter()
                .flat_map(|p| p.columns[i].iter().map(|c| convert(c, target)))
                .collect()
        })
        .collect()
}

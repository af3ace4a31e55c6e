//! `filter_data` and the `select_data_*` variants (§7.4): the value coercions of the
//! reference, then pandas 2's element-wise comparisons on the re-inferred column.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::cell::{Cell, CmpOp, num_cmp};
use crate::column::Column;
use crate::dtype::Dtype;
use crate::error::{ToolError, interrupted};
use crate::like::{LikePattern, not_a_pattern};
use crate::pandas::Pandas;
use crate::pyre::PyRegex;
use crate::pystr::{PyInt, py_float, py_int, py_int_of_float};
use crate::table::Table;
use crate::text::Text;

use super::{FilterCondition, ToolValue};

/// The comparison value after the reference's coercions (which may produce ints of any size).
#[derive(Debug, Clone)]
enum Value {
    Null,
    Bool(bool),
    Int(PyInt),
    Float(f64),
    Str(Text),
    Bytes(Arc<[u8]>),
}

impl Value {
    fn of(cell: &Cell) -> Value {
        match cell {
            Cell::None => Value::Null,
            Cell::Bool(b) => Value::Bool(*b),
            Cell::Int(i) => Value::Int(PyInt::Exact(i128::from(*i))),
            Cell::UInt(u) => Value::Int(PyInt::Exact(i128::from(*u))),
            Cell::Float(x) => Value::Float(*x),
            Cell::Str(s) => Value::Str(s.clone()),
            Cell::Bytes(b) => Value::Bytes(Arc::clone(b)),
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
        }
    }

    /// pandas' `is_scalar(v) and isna(v)`: `None` or NaN, which compare without looking at
    /// the column.
    fn is_na(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Float(x) => x.is_nan(),
            _ => false,
        }
    }

    /// The value as numpy converts it for a float64 comparison.
    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Int(PyInt::Exact(i)) => Some(*i as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// The value as the Python object the object-dtype comparisons see (ints beyond 128 bits
    /// only come from coercions for int64 columns, so their stand-in never meets an object).
    fn as_cell(&self) -> Cell {
        match self {
            Value::Null => Cell::None,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Int(PyInt::Exact(i)) => Cell::from_i128(*i).unwrap_or(Cell::Float(*i as f64)),
            Value::Int(PyInt::Huge { negative }) => Cell::Float(if *negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            Value::Float(x) => Cell::Float(*x),
            Value::Str(s) => Cell::Str(s.clone()),
            Value::Bytes(b) => Cell::Bytes(Arc::clone(b)),
        }
    }
}

/// Keeps the rows whose `key_name` cell satisfies `condition` with `value`, in order. The
/// result carries the dtypes pandas inferred for the input (a zero-row result keeps them).
pub fn filter_data(
    data: &Table,
    key_name: &str,
    value: &Cell,
    condition: FilterCondition,
    pandas: Pandas,
) -> Result<ToolValue, ToolError> {
    let index = data.best_key(key_name)?;
    let raw = &data.columns()[index];
    if raw.is_empty() {
        return Err(ToolError::new("list index out of range"));
    }
    let first = raw.get(0);
    let mut value = Value::of(value);
    if matches!(first, Cell::Str(_)) && matches!(value, Value::Int(_)) {
        value = Value::Str(Text::from(value.as_cell().python_str()));
    }
    data.check_rectangular()?;
    let frame = data.reinfer(pandas);
    let dtype = frame.dtype_at(index).unwrap_or(Dtype::Object);
    value = match (&value, dtype) {
        (Value::Str(s), Dtype::Float64) => Value::Float(py_float(s)?),
        (Value::Str(s), Dtype::Int64) => Value::Int(py_int(s)?),
        (Value::Float(x), Dtype::Int64) => Value::Int(py_int_of_float(*x)?),
        _ => value,
    };
    // Gathering a view first keeps the per-value work on contiguous memory.
    let cells = &*frame.columns()[index].values();
    let mask = match condition {
        FilterCondition::EqualTo => equality(cells, dtype, &value, false),
        FilterCondition::NotEqualTo => equality(cells, dtype, &value, true),
        FilterCondition::GreaterThan => ordering(cells, dtype, &value, CmpOp::Gt)?,
        FilterCondition::LessThan => ordering(cells, dtype, &value, CmpOp::Lt)?,
        FilterCondition::GreaterThanEqualTo => ordering(cells, dtype, &value, CmpOp::Ge)?,
        FilterCondition::LessThanEqualTo => ordering(cells, dtype, &value, CmpOp::Le)?,
        FilterCondition::Contains => contains(cells, dtype, &value, pandas)?,
        FilterCondition::Like => like(cells, &value)?,
    };
    Ok(ToolValue::Table(take_rows(&frame, &mask)))
}

/// The rows of `frame` where `mask` holds, with `frame`'s dtypes.
pub(crate) fn take_rows(frame: &Table, mask: &[bool]) -> Table {
    let rows: Arc<[u32]> = mask
        .iter()
        .enumerate()
        .filter(|(_, keep)| **keep)
        .map(|(i, _)| i as u32)
        .collect();
    let columns = Column::select_all(frame.columns(), rows);
    let dtypes = (0..frame.num_columns())
        .map(|i| frame.dtype_at(i).unwrap_or(Dtype::Object))
        .collect();
    Table::from_parts(columns, Some(dtypes))
}

/// Numeric comparison of a cell of a numeric-dtype column with a numeric value, as numpy does
/// it (float64 columns compare against the value converted to float64).
fn numeric_cmp(cell: &Cell, dtype: Dtype, value: &Value) -> Option<Ordering> {
    let cell_num = cell.as_num()?;
    let value_num = match value {
        Value::Bool(b) => crate::cell::Num::Int(i128::from(*b)),
        Value::Int(PyInt::Exact(i)) => crate::cell::Num::Int(*i),
        Value::Int(PyInt::Huge { negative }) => {
            if matches!(cell, Cell::Float(x) if x.is_nan()) {
                return None;
            }
            return Some(if *negative {
                Ordering::Greater
            } else {
                Ordering::Less
            });
        }
        Value::Float(x) => crate::cell::Num::Float(*x),
        _ => return None,
    };
    if dtype == Dtype::Float64 {
        return cell_num.as_f64().partial_cmp(&value_num.as_f64());
    }
    num_cmp(cell_num, value_num)
}

fn equality(cells: &[Cell], dtype: Dtype, value: &Value, negate: bool) -> Vec<bool> {
    if matches!(value, Value::Null) {
        return cells.iter().map(|c| c.is_null() != negate).collect();
    }
    if value.is_na() {
        return vec![negate; cells.len()];
    }
    if matches!(dtype, Dtype::Object | Dtype::Str) {
        let v = value.as_cell();
        return cells
            .iter()
            .map(|c| {
                if c.is_null() {
                    negate
                } else {
                    c.py_eq(&v) != negate
                }
            })
            .collect();
    }
    if matches!(value, Value::Str(_) | Value::Bytes(_)) {
        return vec![negate; cells.len()];
    }
    cells
        .iter()
        .map(|c| (numeric_cmp(c, dtype, value) == Some(Ordering::Equal)) != negate)
        .collect()
}

fn ordering(
    cells: &[Cell],
    dtype: Dtype,
    value: &Value,
    op: CmpOp,
) -> Result<Vec<bool>, ToolError> {
    if value.is_na() {
        return Ok(vec![false; cells.len()]);
    }
    if matches!(dtype, Dtype::Object | Dtype::Str) {
        let v = value.as_cell();
        return cells
            .iter()
            .map(|c| {
                if c.is_null() {
                    Ok(false)
                } else {
                    c.py_compare(&v, op).map_err(ToolError::new)
                }
            })
            .collect();
    }
    if let (Dtype::Float64, Some(v)) = (dtype, value.as_f64()) {
        // float64 columns hold only floats: compare them directly.
        return Ok(cells
            .iter()
            .map(|c| match *c {
                Cell::Float(x) => match op {
                    CmpOp::Lt => x < v,
                    CmpOp::Le => x <= v,
                    CmpOp::Gt => x > v,
                    CmpOp::Ge => x >= v,
                },
                _ => false,
            })
            .collect());
    }
    if matches!(value, Value::Str(_) | Value::Bytes(_)) {
        return Err(ToolError::new(format!(
            "Invalid comparison between dtype={} and {}",
            dtype.as_str(),
            value.type_name()
        )));
    }
    Ok(cells
        .iter()
        .map(|c| {
            numeric_cmp(c, dtype, value).is_some_and(|o| match op {
                CmpOp::Lt => o == Ordering::Less,
                CmpOp::Le => o != Ordering::Greater,
                CmpOp::Gt => o == Ordering::Greater,
                CmpOp::Ge => o != Ordering::Less,
            })
        })
        .collect())
}

/// Whether pandas allows `.str` on an object column: its non-null values must not all be
/// bools, ints, floats, or ints and floats (`infer_dtype` must say string, bytes, mixed or
/// mixed-integer, or empty).
fn str_accessor_allowed(cells: &[Cell]) -> bool {
    let mut values = cells.iter().filter(|c| !c.is_null());
    let Some(first) = values.next() else {
        return true;
    };
    let rest: Vec<&Cell> = values.collect();
    let all = |f: fn(&Cell) -> bool| f(first) && rest.iter().all(|c| f(c));
    let int = |c: &Cell| matches!(c, Cell::Int(_) | Cell::UInt(_));
    let number = |c: &Cell| matches!(c, Cell::Int(_) | Cell::UInt(_) | Cell::Float(_));
    match first {
        Cell::Int(_) | Cell::UInt(_) => !all(int) && !all(number),
        Cell::Float(_) => !all(number),
        Cell::Bool(_) => !all(|c| matches!(c, Cell::Bool(_))),
        _ => true,
    }
}

/// `lib.infer_dtype(values, skipna=True)` for a column `.str` refuses.
fn inferred_dtype(cells: &[Cell], dtype: Dtype) -> &'static str {
    match dtype {
        Dtype::Float64 => return "floating",
        Dtype::Int64 | Dtype::UInt64 => return "integer",
        Dtype::Bool => return "boolean",
        Dtype::Object | Dtype::Str => {}
    }
    let values = cells.iter().filter(|c| !c.is_null());
    let (mut int, mut float, mut boolean) = (false, false, false);
    for c in values {
        match c {
            Cell::Int(_) | Cell::UInt(_) => int = true,
            Cell::Float(_) => float = true,
            Cell::Bool(_) => boolean = true,
            _ => {}
        }
    }
    match (int, float, boolean) {
        (_, _, true) => "boolean",
        (true, true, _) => "mixed-integer-float",
        (false, true, _) => "floating",
        _ => "integer",
    }
}

fn contains(
    cells: &[Cell],
    dtype: Dtype,
    value: &Value,
    pandas: Pandas,
) -> Result<Vec<bool>, ToolError> {
    let allowed = match dtype {
        Dtype::Str => true,
        Dtype::Object => str_accessor_allowed(cells),
        _ => false,
    };
    if !allowed {
        return Err(ToolError::new(match pandas {
            Pandas::V2 => "Can only use .str accessor with string values!".to_owned(),
            Pandas::V3 => format!(
                "Can only use .str accessor with string values, not {}",
                inferred_dtype(cells, dtype)
            ),
        }));
    }
    let Value::Str(pattern) = value else {
        return Err(ToolError::new(
            "first argument must be string or compiled pattern",
        ));
    };
    let regex = PyRegex::compile(pattern, true)?;
    cells
        .iter()
        .map(|c| {
            interrupted()?;
            match c {
                Cell::Str(s) => regex.search(s),
                _ => Ok(false),
            }
        })
        .collect()
}

fn like(cells: &[Cell], value: &Value) -> Result<Vec<bool>, ToolError> {
    let Value::Str(pattern) = value else {
        return Err(not_a_pattern(value.type_name()));
    };
    let like = LikePattern::new(pattern);
    cells
        .iter()
        .map(|c| match c {
            Cell::Str(s) => interrupted().map(|()| like.matches(s)),
            Cell::Float(x) if x.is_nan() => Ok(false),
            Cell::Bytes(_) => Err(ToolError::new(
                "cannot use a string pattern on a bytes-like object",
            )),
            other => Err(ToolError::new(format!(
                "expected string or bytes-like object, got '{}'",
                other.type_name()
            ))),
        })
        .collect()
}

//! numpy 2.2's view of a Python list (`np.asanyarray`) and the nan-aware reductions the
//! reference aggregates with (`nansum`, `nanmean`, `nanstd`, `nanmin`, `nanmax`), bit for bit:
//! pairwise summation, buffered casts, and the texts of the errors numpy raises.

use crate::cell::{Cell, CmpOp};
use crate::error::ToolError;

/// The array numpy builds from a list of Python objects.
pub(crate) enum NpArray {
    Bool(Vec<bool>),
    Int(Vec<i64>),
    UInt(Vec<u64>),
    Float(Vec<f64>),
    /// `<U{width}`: strings, or strings mixed with numbers (which numpy stringifies).
    Unicode(usize),
    /// `S{width}`: bytes, possibly mixed with numbers.
    Bytes(usize),
    /// Any `None` makes numpy keep the objects.
    Object(Vec<Cell>),
}

/// The character width numpy gives a value when it converts it to a string dtype.
fn string_width(cell: &Cell) -> usize {
    match cell {
        Cell::Str(s) => s.chars().count(),
        Cell::Bytes(b) => b.len(),
        Cell::Int(_) => 21,
        Cell::UInt(_) => 20,
        Cell::Float(_) => 32,
        Cell::Bool(_) => 5,
        Cell::None => 0,
    }
}

/// `np.asanyarray(values)`.
pub(crate) fn asarray<'a>(values: impl ExactSizeIterator<Item = &'a Cell> + Clone) -> NpArray {
    let (mut none, mut strs, mut bytes, mut floats, mut ints, mut uints) =
        (false, false, false, false, false, false);
    for cell in values.clone() {
        match cell {
            Cell::None => none = true,
            Cell::Str(_) => strs = true,
            Cell::Bytes(_) => bytes = true,
            Cell::Float(_) => floats = true,
            Cell::Int(_) => ints = true,
            Cell::UInt(_) => uints = true,
            Cell::Bool(_) => {}
        }
    }
    if none {
        return NpArray::Object(values.cloned().collect());
    }
    if strs || bytes {
        let width = values.map(string_width).max().unwrap_or(0).max(1);
        return if strs {
            NpArray::Unicode(width)
        } else {
            NpArray::Bytes(width)
        };
    }
    if floats || (uints && ints) || values.len() == 0 {
        return NpArray::Float(values.map(float_of).collect());
    }
    if uints {
        return NpArray::UInt(
            values
                .map(|c| match c {
                    Cell::UInt(u) => *u,
                    Cell::Bool(b) => u64::from(*b),
                    _ => 0,
                })
                .collect(),
        );
    }
    if ints {
        return NpArray::Int(
            values
                .map(|c| match c {
                    Cell::Int(i) => *i,
                    Cell::Bool(b) => i64::from(*b),
                    _ => 0,
                })
                .collect(),
        );
    }
    NpArray::Bool(values.map(|c| matches!(c, Cell::Bool(true))).collect())
}

fn float_of(cell: &Cell) -> f64 {
    match cell {
        Cell::Float(x) => *x,
        Cell::Int(i) => *i as f64,
        Cell::UInt(u) => *u as f64,
        Cell::Bool(b) => f64::from(u8::from(*b)),
        _ => f64::NAN,
    }
}

fn dtype_repr(array: &NpArray, width: usize) -> String {
    match array {
        NpArray::Bytes(_) => format!("dtype('S{width}')"),
        _ => format!("dtype('<U{width}')"),
    }
}

fn add_reduce_error(array: &NpArray, width: usize) -> ToolError {
    ToolError::new(format!(
        "the resolved dtypes are not compatible with add.reduce. Resolved ({}, {}, {})",
        dtype_repr(array, width),
        dtype_repr(array, width),
        dtype_repr(array, width * 2)
    ))
}

fn no_loop_error(array: &NpArray, width: usize, ufunc: &str) -> ToolError {
    ToolError::new(format!(
        "ufunc '{ufunc}' did not contain a loop with signature matching types ({}, {}) -> None",
        dtype_repr(array, width),
        dtype_repr(array, width)
    ))
}

/// numpy's pairwise summation of float64 (`DOUBLE_pairwise_sum`): blocks of up to 128 values
/// summed with eight accumulators, larger ranges split in halves that are multiples of 8.
pub(crate) fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// numpy's ufunc buffer: reductions see the data in chunks this long.
const BUFFER_SIZE: usize = 8192;

/// `np.add.reduce` of a float64 array (also after casting ints): the identity 0.0 plus the
/// pairwise sum of each buffer-sized chunk, in order.
fn float_sum(a: &[f64]) -> f64 {
    let mut acc = 0.0;
    for chunk in a.chunks(BUFFER_SIZE) {
        acc += pairwise_sum(chunk);
    }
    acc
}

/// The nan-aware reductions the reference offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduction {
    Sum,
    Mean,
    Std,
    Min,
    Max,
}

/// `float(np.nan<op>(values))`.
pub(crate) fn reduce<'a>(
    values: impl ExactSizeIterator<Item = &'a Cell> + Clone,
    op: Reduction,
) -> Result<f64, ToolError> {
    let array = asarray(values);
    match (&array, op) {
        (
            NpArray::Unicode(w) | NpArray::Bytes(w),
            Reduction::Sum | Reduction::Mean | Reduction::Std,
        ) => Err(add_reduce_error(&array, *w)),
        (NpArray::Unicode(w) | NpArray::Bytes(w), Reduction::Min) => {
            Err(no_loop_error(&array, *w, "minimum"))
        }
        (NpArray::Unicode(w) | NpArray::Bytes(w), Reduction::Max) => {
            Err(no_loop_error(&array, *w, "maximum"))
        }
        (NpArray::Object(cells), _) => object_reduce(cells, op),
        (NpArray::Float(xs), _) => float_reduce(xs, op),
        (NpArray::Bool(bs), _) => {
            let xs: Vec<f64> = bs.iter().map(|b| f64::from(u8::from(*b))).collect();
            match op {
                Reduction::Sum => Ok(bs.iter().filter(|b| **b).count() as f64),
                _ => integer_reduce(&xs, op),
            }
        }
        (NpArray::Int(is), _) => {
            let xs: Vec<f64> = is.iter().map(|i| *i as f64).collect();
            match op {
                Reduction::Sum => Ok(is.iter().fold(0i64, |a, b| a.wrapping_add(*b)) as f64),
                Reduction::Min => Ok(is.iter().min().map_or(0.0, |m| *m as f64)),
                Reduction::Max => Ok(is.iter().max().map_or(0.0, |m| *m as f64)),
                _ => integer_reduce(&xs, op),
            }
        }
        (NpArray::UInt(us), _) => {
            let xs: Vec<f64> = us.iter().map(|u| *u as f64).collect();
            match op {
                Reduction::Sum => Ok(us.iter().fold(0u64, |a, b| a.wrapping_add(*b)) as f64),
                Reduction::Min => Ok(us.iter().min().map_or(0.0, |m| *m as f64)),
                Reduction::Max => Ok(us.iter().max().map_or(0.0, |m| *m as f64)),
                _ => integer_reduce(&xs, op),
            }
        }
    }
}

/// `np.mean`/`np.std` of a non-empty integer or bool array (these have no NaN to skip): sums
/// in float64 through the casting buffer.
fn integer_reduce(xs: &[f64], op: Reduction) -> Result<f64, ToolError> {
    let n = xs.len() as f64;
    match op {
        Reduction::Mean => Ok(float_sum(xs) / n),
        Reduction::Std => {
            let mean = float_sum(xs) / n;
            let squares: Vec<f64> = xs
                .iter()
                .map(|x| {
                    let d = x - mean;
                    d * d
                })
                .collect();
            Ok((float_sum(&squares) / n).sqrt())
        }
        Reduction::Min | Reduction::Max => {
            // Only reached for bool arrays: the extreme of 0.0/1.0 values.
            let pick = if op == Reduction::Min {
                xs.iter().copied().fold(f64::INFINITY, f64::min)
            } else {
                xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            };
            Ok(pick)
        }
        Reduction::Sum => Ok(float_sum(xs)),
    }
}

/// The float64 branch of numpy's nan-functions: NaN replaced by the neutral value, counted
/// out of means and variances, and NaN again when every value was NaN.
fn float_reduce(xs: &[f64], op: Reduction) -> Result<f64, ToolError> {
    let cleaned: Vec<f64> = xs
        .iter()
        .map(|x| if x.is_nan() { 0.0 } else { *x })
        .collect();
    let count = xs.iter().filter(|x| !x.is_nan()).count();
    match op {
        Reduction::Sum => Ok(float_sum(&cleaned)),
        Reduction::Mean => Ok(float_sum(&cleaned) / count as f64),
        Reduction::Std => {
            let cnt = count as f64;
            let avg = float_sum(&cleaned) / cnt;
            let squares: Vec<f64> = xs
                .iter()
                .map(|x| {
                    if x.is_nan() {
                        0.0
                    } else {
                        let d = x - avg;
                        d * d
                    }
                })
                .collect();
            if count == 0 {
                return Ok(f64::NAN);
            }
            Ok((float_sum(&squares) / cnt).sqrt())
        }
        Reduction::Min | Reduction::Max => {
            if xs.is_empty() {
                let name = if op == Reduction::Min {
                    "minimum"
                } else {
                    "maximum"
                };
                return Err(ToolError::new(format!(
                    "zero-size array to reduction operation {name} which has no identity"
                )));
            }
            if count == 0 {
                return Ok(f64::NAN);
            }
            // numpy's `minimum` keeps the accumulator only when it is strictly smaller, so
            // of equal values (0.0 and -0.0) the last one wins.
            let mut best: Option<f64> = None;
            for &x in xs.iter().filter(|x| !x.is_nan()) {
                best = Some(match best {
                    Some(b) if op == Reduction::Min && b < x => b,
                    Some(b) if op == Reduction::Max && b > x => b,
                    _ => x,
                });
            }
            Ok(best.unwrap_or(f64::NAN))
        }
    }
}

/// A Python object produced while numpy adds an object array element by element.
#[derive(Debug, Clone)]
enum PyObj {
    Cell(Cell),
    Int(i128),
    Str(String),
    Bytes(Vec<u8>),
}

impl PyObj {
    fn type_name(&self) -> &'static str {
        match self {
            PyObj::Cell(c) => c.type_name(),
            PyObj::Int(_) => "int",
            PyObj::Str(_) => "str",
            PyObj::Bytes(_) => "bytes",
        }
    }
}

fn int_of(obj: &PyObj) -> Option<i128> {
    match obj {
        PyObj::Int(i) => Some(*i),
        PyObj::Cell(Cell::Bool(b)) => Some(i128::from(*b)),
        PyObj::Cell(Cell::Int(i)) => Some(i128::from(*i)),
        PyObj::Cell(Cell::UInt(u)) => Some(i128::from(*u)),
        _ => None,
    }
}

/// Python's `a + b` for the objects numpy meets in an object array.
fn py_add(a: PyObj, b: &Cell) -> Result<PyObj, ToolError> {
    let unsupported = |a: &PyObj| {
        ToolError::new(format!(
            "unsupported operand type(s) for +: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        ))
    };
    let a_float = match &a {
        PyObj::Cell(Cell::Float(x)) => Some(*x),
        _ => None,
    };
    match (&a, b) {
        (PyObj::Str(_) | PyObj::Cell(Cell::Str(_)), _) => {
            let mut s = match a {
                PyObj::Str(s) => s,
                PyObj::Cell(Cell::Str(s)) => s.to_string(),
                _ => String::new(),
            };
            match b {
                Cell::Str(t) => {
                    s.push_str(t);
                    Ok(PyObj::Str(s))
                }
                other => Err(ToolError::new(format!(
                    "can only concatenate str (not \"{}\") to str",
                    other.type_name()
                ))),
            }
        }
        (PyObj::Bytes(_) | PyObj::Cell(Cell::Bytes(_)), _) => {
            let mut v = match a {
                PyObj::Bytes(v) => v,
                PyObj::Cell(Cell::Bytes(v)) => v.to_vec(),
                _ => Vec::new(),
            };
            match b {
                Cell::Bytes(t) => {
                    v.extend_from_slice(t);
                    Ok(PyObj::Bytes(v))
                }
                other => Err(ToolError::new(format!(
                    "can't concat {} to bytes",
                    other.type_name()
                ))),
            }
        }
        _ => {
            let b_num = b.as_num();
            match (int_of(&a), a_float, b_num) {
                (Some(x), _, Some(crate::cell::Num::Int(y))) => Ok(PyObj::Int(x.saturating_add(y))),
                (Some(x), _, Some(crate::cell::Num::Float(y))) => {
                    Ok(PyObj::Cell(Cell::Float(x as f64 + y)))
                }
                (None, Some(x), Some(y)) => Ok(PyObj::Cell(Cell::Float(x + y.as_f64()))),
                _ => Err(unsupported(&a)),
            }
        }
    }
}

/// Python's `float(x)`.
fn py_float_of(obj: &PyObj) -> Result<f64, ToolError> {
    match obj {
        PyObj::Int(i) => Ok(*i as f64),
        PyObj::Str(s) => crate::pystr::py_float(s),
        PyObj::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) if crate::pystr::py_float(s).is_ok() => crate::pystr::py_float(s),
            _ => Err(ToolError::new(format!(
                "could not convert string to float: {}",
                vakra_pytext::bytes_repr(b)
            ))),
        },
        PyObj::Cell(cell) => match cell {
            Cell::Str(s) => crate::pystr::py_float(s),
            Cell::Bytes(b) => py_float_of(&PyObj::Bytes(b.to_vec())),
            Cell::None => Err(ToolError::new(
                "float() argument must be a string or a real number, not 'NoneType'",
            )),
            other => Ok(other.as_num().map_or(f64::NAN, |n| n.as_f64())),
        },
    }
}

fn is_nan_cell(cell: &Cell) -> bool {
    matches!(cell, Cell::Float(x) if x.is_nan())
}

/// Object arrays (the list holds a `None`): numpy works element by element with Python
/// operators, so the first unsupported operation decides the error.
fn object_reduce(cells: &[Cell], op: Reduction) -> Result<f64, ToolError> {
    match op {
        Reduction::Sum | Reduction::Mean | Reduction::Std => {
            let zeroed: Vec<Cell> = cells
                .iter()
                .map(|c| {
                    if is_nan_cell(c) {
                        Cell::Int(0)
                    } else {
                        c.clone()
                    }
                })
                .collect();
            let mut iter = zeroed.iter();
            let Some(first) = iter.next() else {
                return Ok(0.0);
            };
            let mut acc = PyObj::Cell(first.clone());
            for cell in iter {
                acc = py_add(acc, cell)?;
            }
            // Without an error the array was a lone `None` (object arrays always hold one):
            // `float(None)` for the sum, `None / count` for the mean and the variance.
            if op == Reduction::Sum {
                return py_float_of(&acc);
            }
            Err(ToolError::new(format!(
                "unsupported operand type(s) for /: '{}' and 'int'",
                acc.type_name()
            )))
        }
        Reduction::Min | Reduction::Max => {
            let fill = if op == Reduction::Min {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            let replaced: Vec<Cell> = cells
                .iter()
                .map(|c| {
                    if is_nan_cell(c) {
                        Cell::Float(fill)
                    } else {
                        c.clone()
                    }
                })
                .collect();
            let cmp = if op == Reduction::Min {
                CmpOp::Le
            } else {
                CmpOp::Ge
            };
            let mut iter = replaced.iter();
            let Some(first) = iter.next() else {
                return Ok(0.0);
            };
            let mut acc = first.clone();
            for cell in iter {
                if !acc.py_compare(cell, cmp).map_err(ToolError::new)? {
                    acc = cell.clone();
                }
            }
            py_float_of(&PyObj::Cell(acc))
        }
    }
}

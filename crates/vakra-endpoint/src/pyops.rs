//! Python's operators on [`PyValue`]s with CPython 3.11's results and messages: arithmetic,
//! comparisons, membership, indexing, slicing and iteration.

use std::cmp::Ordering;

use vakra_pysyntax::ast::{BinOp, CmpOp, UnaryOp};

use crate::PyValue;
use crate::exception::PyError;

/// Longest list, tuple or string an expression may build; past it a `MemoryError` is raised.
pub(crate) const MAX_SEQUENCE: usize = 10_000_000;

/// A number operand (`bool` is an `int`, as in Python).
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn of(value: &PyValue) -> Option<Self> {
        match value {
            PyValue::Bool(b) => Some(Num::Int(i64::from(*b))),
            PyValue::Int(i) => Some(Num::Int(*i)),
            PyValue::Float(f) => Some(Num::Float(*f)),
            _ => None,
        }
    }

    fn to_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// An `int` (or `bool`) value.
pub(crate) fn integer(value: &PyValue) -> Option<i64> {
    match Num::of(value) {
        Some(Num::Int(i)) => Some(i),
        _ => None,
    }
}

/// An `int` or `float` value as a float, as Python converts it.
pub(crate) fn float_value(value: &PyValue) -> Option<f64> {
    Num::of(value).map(Num::to_f64)
}

/// `operator.index()`: what range bounds, counts and `maxsplit` accept.
pub(crate) fn as_index(value: &PyValue) -> Result<i64, PyError> {
    integer(value).ok_or_else(|| {
        PyError::type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            value.type_name()
        ))
    })
}

pub(crate) fn overflow() -> PyError {
    PyError::new("OverflowError", "integer overflow")
}

fn zero_division(message: &str) -> PyError {
    PyError::new("ZeroDivisionError", message)
}

/// `l <op> r` for `+ - * / // %`.
pub(crate) fn binop(op: BinOp, l: PyValue, r: PyValue) -> Result<PyValue, PyError> {
    match (Num::of(&l), Num::of(&r)) {
        (Some(Num::Int(a)), Some(Num::Int(b))) => int_op(op, a, b),
        (Some(a), Some(b)) => float_op(op, a.to_f64(), b.to_f64()),
        _ => sequence_op(op, l, r),
    }
}

fn int_op(op: BinOp, a: i64, b: i64) -> Result<PyValue, PyError> {
    let value = match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mult => a.checked_mul(b),
        BinOp::Div if b == 0 => return Err(zero_division("division by zero")),
        BinOp::Div => return Ok(PyValue::Float(int_true_div(a, b))),
        BinOp::FloorDiv if b == 0 => {
            return Err(zero_division("integer division or modulo by zero"));
        }
        BinOp::FloorDiv => a
            .checked_div(b)
            .map(|q| q - i64::from(a % b != 0 && (a < 0) != (b < 0))),
        _ if b == 0 => return Err(zero_division("integer modulo by zero")),
        _ => {
            let r = a.wrapping_rem(b);
            Some(if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            })
        }
    };
    value.map(PyValue::Int).ok_or_else(overflow)
}

/// `a / b` rounded once, as CPython's `long_true_divide` does: operands beyond 2**53 are not
/// rounded to floats first.
fn int_true_div(a: i64, b: i64) -> f64 {
    const EXACT: u64 = 1 << 53;
    if a.unsigned_abs() <= EXACT && b.unsigned_abs() <= EXACT {
        return a as f64 / b as f64;
    }
    // The quotient of the magnitudes in fixed point with at least 63 significant bits; a
    // non-zero remainder sets the lowest bit, so the conversion to f64 rounds correctly.
    let (n, d) = (u128::from(a.unsigned_abs()), u128::from(b.unsigned_abs()));
    let shift = n.leading_zeros() - 1;
    let scaled = n << shift;
    let q = (scaled / d) | u128::from(scaled % d != 0);
    let magnitude = q as f64 * 2f64.powi(-(shift as i32));
    if (a < 0) != (b < 0) {
        -magnitude
    } else {
        magnitude
    }
}

fn float_op(op: BinOp, a: f64, b: f64) -> Result<PyValue, PyError> {
    Ok(PyValue::Float(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mult => a * b,
        BinOp::Div if b == 0.0 => return Err(zero_division("float division by zero")),
        BinOp::FloorDiv if b == 0.0 => return Err(zero_division("float floor division by zero")),
        _ if b == 0.0 => return Err(zero_division("float modulo")),
        BinOp::Div => a / b,
        BinOp::FloorDiv => float_divmod(a, b).0,
        _ => float_divmod(a, b).1,
    }))
}

/// CPython's `_float_div_mod`: `fmod` first, then the quotient from it, so that
/// `1 // 0.1 == 9.0` and `1 % 0.1 == 0.09999999999999995`; a zero remainder takes the sign of
/// the divisor.
fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut rem = a % b;
    let mut div = (a - rem) / b;
    if rem != 0.0 {
        if (b < 0.0) != (rem < 0.0) {
            rem += b;
            div -= 1.0;
        }
    } else {
        rem = 0f64.copysign(b);
    }
    let floor = if div != 0.0 {
        let floor = div.floor();
        if div - floor > 0.5 {
            floor + 1.0
        } else {
            floor
        }
    } else {
        0f64.copysign(a / b)
    };
    (floor, rem)
}

fn sequence_op(op: BinOp, l: PyValue, r: PyValue) -> Result<PyValue, PyError> {
    let unsupported = |l: &PyValue, r: &PyValue| {
        let symbol = match op {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mult => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            _ => "%",
        };
        PyError::type_error(format!(
            "unsupported operand type(s) for {symbol}: '{}' and '{}'",
            l.type_name(),
            r.type_name()
        ))
    };
    match (op, l, r) {
        (BinOp::Add, PyValue::Str(a), PyValue::Str(b)) => Ok(PyValue::Str(a + &b)),
        (BinOp::Add, PyValue::List(mut a), PyValue::List(b)) => {
            a.extend(b);
            Ok(PyValue::List(a))
        }
        (BinOp::Add, PyValue::Tuple(mut a), PyValue::Tuple(b)) => {
            a.extend(b);
            Ok(PyValue::Tuple(a))
        }
        (BinOp::Add, PyValue::Bytes(mut a), PyValue::Bytes(b)) => {
            a.extend(b);
            Ok(PyValue::Bytes(a))
        }
        (BinOp::Add, PyValue::Bytes(_), r) => Err(PyError::type_error(format!(
            "can't concat {} to bytes",
            r.type_name()
        ))),
        (BinOp::Add, l @ (PyValue::Str(_) | PyValue::List(_) | PyValue::Tuple(_)), r) => {
            Err(PyError::type_error(format!(
                "can only concatenate {} (not \"{}\") to {}",
                l.type_name(),
                r.type_name(),
                l.type_name()
            )))
        }
        (BinOp::Mult, seq, n) | (BinOp::Mult, n, seq) if is_sequence(&seq) => {
            let times = integer(&n).ok_or_else(|| {
                PyError::type_error(format!(
                    "can't multiply sequence by non-int of type '{}'",
                    n.type_name()
                ))
            })?;
            repeat(seq, times)
        }
        (_, l, r) => Err(unsupported(&l, &r)),
    }
}

fn is_sequence(value: &PyValue) -> bool {
    matches!(
        value,
        PyValue::Str(_) | PyValue::Bytes(_) | PyValue::List(_) | PyValue::Tuple(_)
    )
}

/// `seq * times` for a string, bytes, list or tuple.
fn repeat(seq: PyValue, times: i64) -> Result<PyValue, PyError> {
    let times = usize::try_from(times).unwrap_or(0);
    let len = match &seq {
        PyValue::Str(s) => s.len(),
        PyValue::Bytes(b) => b.len(),
        PyValue::List(v) | PyValue::Tuple(v) => v.len(),
        _ => 0,
    };
    if len.saturating_mul(times) > MAX_SEQUENCE {
        return Err(PyError::new("MemoryError", "sequence too large"));
    }
    let items = |v: Vec<PyValue>| v.iter().cycle().take(len * times).cloned().collect();
    Ok(match seq {
        PyValue::Str(s) => PyValue::Str(s.repeat(times)),
        PyValue::Bytes(b) => PyValue::Bytes(b.repeat(times)),
        PyValue::List(v) => PyValue::List(items(v)),
        PyValue::Tuple(v) => PyValue::Tuple(items(v)),
        other => other,
    })
}

/// `op value` for `- + not`.
pub(crate) fn unary(op: UnaryOp, value: PyValue) -> Result<PyValue, PyError> {
    match (op, Num::of(&value)) {
        (UnaryOp::Not, _) => Ok(PyValue::Bool(!value.truthy())),
        (UnaryOp::USub, Some(Num::Int(i))) => {
            i.checked_neg().map(PyValue::Int).ok_or_else(overflow)
        }
        (UnaryOp::USub, Some(Num::Float(f))) => Ok(PyValue::Float(-f)),
        (UnaryOp::UAdd, Some(Num::Int(i))) => Ok(PyValue::Int(i)),
        (UnaryOp::UAdd, Some(Num::Float(f))) => Ok(PyValue::Float(f)),
        (op, _) => Err(PyError::type_error(format!(
            "bad operand type for unary {}: '{}'",
            if matches!(op, UnaryOp::USub) {
                "-"
            } else {
                "+"
            },
            value.type_name()
        ))),
    }
}

/// `a <op> b` for one comparison operator.
pub(crate) fn compare(op: CmpOp, a: &PyValue, b: &PyValue) -> Result<bool, PyError> {
    match op {
        CmpOp::Eq => Ok(py_eq(a, b)),
        CmpOp::NotEq => Ok(!py_eq(a, b)),
        CmpOp::Is => Ok(identical(a, b)),
        CmpOp::IsNot => Ok(!identical(a, b)),
        CmpOp::In => contains(b, a),
        CmpOp::NotIn => contains(b, a).map(|found| !found),
        _ => order(op, a, b),
    }
}

/// `is` for the singletons; other values are never the same object in a handler.
fn identical(a: &PyValue, b: &PyValue) -> bool {
    match (a, b) {
        (PyValue::None, PyValue::None) => true,
        (PyValue::Bool(x), PyValue::Bool(y)) => x == y,
        _ => false,
    }
}

/// Python's `==`: numbers compare exactly across `bool`, `int` and `float`; lists, tuples and
/// dicts compare by content.
pub(crate) fn py_eq(a: &PyValue, b: &PyValue) -> bool {
    if let (Some(x), Some(y)) = (Num::of(a), Num::of(b)) {
        return num_cmp(x, y) == Some(Ordering::Equal);
    }
    match (a, b) {
        (PyValue::List(x), PyValue::List(y)) | (PyValue::Tuple(x), PyValue::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (PyValue::Dict(x), PyValue::Dict(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| py_eq(k, k2) && py_eq(v, v2)))
        }
        _ => a == b,
    }
}

/// `< <= > >=`: numbers exactly, strings and bytes by code point, lists and tuples
/// lexicographically (the first unequal items decide, with the same operator).
fn order(op: CmpOp, a: &PyValue, b: &PyValue) -> Result<bool, PyError> {
    let ordering = match (a, b) {
        (PyValue::Str(x), PyValue::Str(y)) => Some(x.cmp(y)),
        (PyValue::Bytes(x), PyValue::Bytes(y)) => Some(x.cmp(y)),
        (PyValue::List(x), PyValue::List(y)) | (PyValue::Tuple(x), PyValue::Tuple(y)) => {
            match x.iter().zip(y).find(|(p, q)| !py_eq(p, q)) {
                Some((p, q)) => return order(op, p, q),
                None => Some(x.len().cmp(&y.len())),
            }
        }
        _ => match (Num::of(a), Num::of(b)) {
            (Some(x), Some(y)) => num_cmp(x, y),
            _ => {
                let symbol = match op {
                    CmpOp::Lt => "<",
                    CmpOp::LtE => "<=",
                    CmpOp::Gt => ">",
                    _ => ">=",
                };
                return Err(PyError::type_error(format!(
                    "'{symbol}' not supported between instances of '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                )));
            }
        },
    };
    // An unordered pair (a NaN) makes every ordering comparison false.
    Ok(ordering.is_some_and(|o| match op {
        CmpOp::Lt => o.is_lt(),
        CmpOp::LtE => o.is_le(),
        CmpOp::Gt => o.is_gt(),
        _ => o.is_ge(),
    }))
}

fn num_cmp(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Int(i), Num::Float(f)) => int_float_cmp(i, f),
        (Num::Float(f), Num::Int(i)) => int_float_cmp(i, f).map(Ordering::reverse),
    }
}

/// Compares an int with a float exactly, as CPython does (`2**53 + 1 != 2.0**53`).
fn int_float_cmp(i: i64, f: f64) -> Option<Ordering> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        None
    } else if f >= TWO_63 {
        Some(Ordering::Less)
    } else if f < -TWO_63 {
        Some(Ordering::Greater)
    } else {
        let whole = f.trunc();
        let fraction = f - whole;
        Some(i.cmp(&(whole as i64)).then(if fraction > 0.0 {
            Ordering::Less
        } else if fraction < 0.0 {
            Ordering::Greater
        } else {
            Ordering::Equal
        }))
    }
}

/// `item in container`.
fn contains(container: &PyValue, item: &PyValue) -> Result<bool, PyError> {
    match (container, item) {
        (PyValue::Str(haystack), PyValue::Str(needle)) => Ok(haystack.contains(needle.as_str())),
        (PyValue::Str(_), other) => Err(PyError::type_error(format!(
            "'in <string>' requires string as left operand, not {}",
            other.type_name()
        ))),
        (PyValue::Bytes(haystack), PyValue::Bytes(needle)) => {
            Ok(needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle))
        }
        (PyValue::Bytes(haystack), other) => match integer(other) {
            Some(byte) => u8::try_from(byte)
                .map(|byte| haystack.contains(&byte))
                .map_err(|_| PyError::value_error("byte must be in range(0, 256)")),
            None => Err(PyError::type_error(format!(
                "a bytes-like object is required, not '{}'",
                other.type_name()
            ))),
        },
        (PyValue::List(items) | PyValue::Tuple(items), _) => {
            Ok(items.iter().any(|x| py_eq(x, item)))
        }
        (PyValue::Dict(pairs), _) => {
            check_hashable(item)?;
            Ok(pairs.iter().any(|(k, _)| py_eq(k, item)))
        }
        (other, _) => Err(PyError::type_error(format!(
            "argument of type '{}' is not iterable",
            other.type_name()
        ))),
    }
}

/// Lists and dicts (also inside tuples) cannot be dict keys.
fn check_hashable(key: &PyValue) -> Result<(), PyError> {
    match key {
        PyValue::List(_) | PyValue::Dict(_) => Err(PyError::type_error(format!(
            "unhashable type: '{}'",
            key.type_name()
        ))),
        PyValue::Tuple(items) => items.iter().try_for_each(check_hashable),
        _ => Ok(()),
    }
}

/// `out[key] = value`, keeping the first key's position as a Python dict does.
pub(crate) fn dict_insert(
    out: &mut Vec<(PyValue, PyValue)>,
    key: PyValue,
    value: PyValue,
) -> Result<(), PyError> {
    check_hashable(&key)?;
    match out.iter_mut().find(|(k, _)| py_eq(k, &key)) {
        Some(slot) => slot.1 = value,
        None => out.push((key, value)),
    }
    Ok(())
}

/// Python's iteration protocol for the values we have.
pub(crate) fn iterate(value: PyValue) -> Result<Vec<PyValue>, PyError> {
    match value {
        PyValue::List(items) | PyValue::Tuple(items) => Ok(items),
        PyValue::Str(s) => Ok(s.chars().map(|c| PyValue::Str(c.to_string())).collect()),
        PyValue::Bytes(b) => Ok(b.into_iter().map(|b| PyValue::Int(i64::from(b))).collect()),
        PyValue::Dict(pairs) => Ok(pairs.into_iter().map(|(k, _)| k).collect()),
        other => Err(PyError::type_error(format!(
            "'{}' object is not iterable",
            other.type_name()
        ))),
    }
}

/// `container[key]`.
pub(crate) fn subscript(container: PyValue, key: &PyValue) -> Result<PyValue, PyError> {
    let position = |len: usize, kind: &str| -> Result<usize, PyError> {
        let i = integer(key).ok_or_else(|| {
            PyError::type_error(if kind == "string" {
                format!("string indices must be integers, not '{}'", key.type_name())
            } else {
                format!(
                    "{kind} indices must be integers or slices, not {}",
                    key.type_name()
                )
            })
        })?;
        let len = len as i64;
        let i = if i < 0 { i + len } else { i };
        if (0..len).contains(&i) {
            Ok(i as usize)
        } else if kind == "byte" {
            Err(PyError::new("IndexError", "index out of range"))
        } else {
            Err(PyError::new(
                "IndexError",
                format!("{kind} index out of range"),
            ))
        }
    };
    match container {
        PyValue::List(mut items) => Ok(items.swap_remove(position(items.len(), "list")?)),
        PyValue::Tuple(mut items) => Ok(items.swap_remove(position(items.len(), "tuple")?)),
        PyValue::Str(s) => {
            let i = position(s.chars().count(), "string")?;
            Ok(PyValue::Str(
                s.chars().nth(i).map(String::from).unwrap_or_default(),
            ))
        }
        PyValue::Bytes(b) => Ok(PyValue::Int(i64::from(b[position(b.len(), "byte")?]))),
        PyValue::Dict(pairs) => {
            check_hashable(key)?;
            pairs
                .into_iter()
                .find(|(k, _)| py_eq(k, key))
                .map(|(_, v)| v)
                .ok_or_else(|| PyError::new("KeyError", key.repr()))
        }
        other => Err(not_subscriptable(&other)),
    }
}

fn not_subscriptable(value: &PyValue) -> PyError {
    PyError::type_error(format!(
        "'{}' object is not subscriptable",
        value.type_name()
    ))
}

/// `container[lower:upper:step]`, with CPython's `PySlice_Unpack` and `PySlice_AdjustIndices`.
pub(crate) fn slice(
    container: PyValue,
    lower: PyValue,
    upper: PyValue,
    step: PyValue,
) -> Result<PyValue, PyError> {
    let len = match &container {
        PyValue::Str(s) => s.chars().count(),
        PyValue::Bytes(b) => b.len(),
        PyValue::List(v) | PyValue::Tuple(v) => v.len(),
        PyValue::Dict(_) => return Err(PyError::type_error("unhashable type: 'slice'")),
        other => return Err(not_subscriptable(other)),
    };
    let bound = |v: &PyValue| match v {
        PyValue::None => Ok(None),
        v => integer(v).map(Some).ok_or_else(|| {
            PyError::type_error(
                "slice indices must be integers or None or have an __index__ method",
            )
        }),
    };
    // Clamped like CPython's, so that `-step` and the index arithmetic cannot overflow.
    let step = bound(&step)?.unwrap_or(1).max(-i64::MAX);
    if step == 0 {
        return Err(PyError::value_error("slice step cannot be zero"));
    }
    let len = len as i64;
    let adjust = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 && v + len < 0 => {
            if step < 0 {
                -1
            } else {
                0
            }
        }
        Some(v) if v < 0 => v + len,
        Some(v) if v >= len => {
            if step < 0 {
                len - 1
            } else {
                len
            }
        }
        Some(v) => v,
    };
    let (start, stop) = if step > 0 {
        (adjust(bound(&lower)?, 0), adjust(bound(&upper)?, len))
    } else {
        (adjust(bound(&lower)?, len - 1), adjust(bound(&upper)?, -1))
    };
    let count = match step > 0 {
        true if start < stop => (stop - start - 1) / step + 1,
        false if stop < start => (start - stop - 1) / -step + 1,
        _ => 0,
    };
    let picks = (0..count).map(|k| (start + k * step) as usize);
    Ok(match container {
        PyValue::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            PyValue::Str(picks.map(|i| chars[i]).collect())
        }
        PyValue::Bytes(b) => PyValue::Bytes(picks.map(|i| b[i]).collect()),
        PyValue::List(v) => PyValue::List(picks.map(|i| v[i].clone()).collect()),
        PyValue::Tuple(v) => PyValue::Tuple(picks.map(|i| v[i].clone()).collect()),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn true_division_of_large_ints_rounds_once() {
        // Python 3.11's results.
        for (a, b, want) in [
            (9_007_199_254_740_993, 3, 3_002_399_751_580_331.0),
            ((1 << 62) + 1, (1 << 61) + 3, 2.0),
            (i64::MIN, 3, -3.0744573456182584e18),
            (1, -((1 << 62) + 1), -2.168404344971009e-19),
            (
                4_865_782_901_354_085_936,
                -7_048_155_917_072_976_836,
                -0.6903625513685845,
            ),
            (
                4_928_188_522_590_161_285,
                -1_007_428_432_199_280_040,
                -4.891849748405069,
            ),
        ] {
            assert_eq!(int_true_div(a, b), want, "{a} / {b}");
        }
    }

    #[test]
    fn int_floor_division_and_modulo_never_panic() {
        assert!(int_op(BinOp::FloorDiv, i64::MIN, -1).is_err());
        assert_eq!(int_op(BinOp::Mod, i64::MIN, -1), Ok(PyValue::Int(0)));
        assert_eq!(int_op(BinOp::Mod, -7, 3), Ok(PyValue::Int(2)));
        assert_eq!(int_op(BinOp::FloorDiv, 7, -2), Ok(PyValue::Int(-4)));
    }
}

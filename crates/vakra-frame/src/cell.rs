//! One table value, with the Python semantics the reference applies to it.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::text::Text;

/// One value of a table column or of a list result, as the Python object the reference holds.
///
/// Python's `int` is unbounded; tables only ever hold int64 values (SQLite's range) plus the one
/// value `abs(-2**63)`, so `Int` and `UInt` together cover them.
#[derive(Debug, Clone)]
pub enum Cell {
    /// `None` (SQL NULL in object columns, `retrieve_data`'s replacement for NaN).
    None,
    /// `bool`; never produced from SQL, only by Python-level operations or JSON input.
    Bool(bool),
    /// `int` within int64.
    Int(i64),
    /// `int` from 2**63 up to 2**64 - 1 (pandas' uint64 range).
    UInt(u64),
    /// `float`, NaN and infinities included.
    Float(f64),
    /// `str`.
    Str(Text),
    /// `bytes` (SQLite BLOBs).
    Bytes(Arc<[u8]>),
}

/// Structural identity (same variant and value, NaN equal to NaN, `1 != 1.0`, `0.0 != -0.0`),
/// for tests; Python's own `==` is [`Cell::py_eq`].
impl PartialEq for Cell {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Cell::None, Cell::None) => true,
            (Cell::Bool(a), Cell::Bool(b)) => a == b,
            (Cell::Int(a), Cell::Int(b)) => a == b,
            (Cell::UInt(a), Cell::UInt(b)) => a == b,
            (Cell::Float(a), Cell::Float(b)) => {
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
            }
            (Cell::Str(a), Cell::Str(b)) => a == b,
            (Cell::Bytes(a), Cell::Bytes(b)) => a == b,
            _ => false,
        }
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Str(Text::from(s))
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Str(Text::from(s))
    }
}

impl From<i64> for Cell {
    fn from(i: i64) -> Self {
        Cell::Int(i)
    }
}

impl From<f64> for Cell {
    fn from(x: f64) -> Self {
        Cell::Float(x)
    }
}

impl From<bool> for Cell {
    fn from(b: bool) -> Self {
        Cell::Bool(b)
    }
}

/// A Python number, for arithmetic and comparisons that mix ints and floats exactly as Python
/// does (ints compare with floats by exact value, not after rounding to a float).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(x) => x,
        }
    }
}

/// Exact comparison of two Python numbers; `None` when a NaN is involved.
pub(crate) fn num_cmp(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
        (Num::Int(x), Num::Float(y)) => int_float_cmp(x, y),
        (Num::Float(x), Num::Int(y)) => int_float_cmp(y, x).map(Ordering::reverse),
    }
}

/// `int <=> float` by exact value, as CPython's `float_richcompare` does.
fn int_float_cmp(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    const LIMIT: f64 = 1.0e38;
    let whole = f.trunc();
    if whole >= LIMIT {
        return Some(Ordering::Less);
    }
    if whole <= -LIMIT {
        return Some(Ordering::Greater);
    }
    let w = whole as i128;
    match i.cmp(&w) {
        Ordering::Equal => {
            let frac = f - whole;
            Some(if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            })
        }
        other => Some(other),
    }
}

/// A Python comparison operator, named as CPython names it in `TypeError` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    fn holds(self, ord: Ordering) -> bool {
        match self {
            CmpOp::Lt => ord == Ordering::Less,
            CmpOp::Le => ord != Ordering::Greater,
            CmpOp::Gt => ord == Ordering::Greater,
            CmpOp::Ge => ord != Ordering::Less,
        }
    }
}

impl Cell {
    /// The bytes this value holds outside the cell itself (long strings, BLOBs), for memory
    /// estimates.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Cell::Str(s) => s.heap_bytes(),
            Cell::Bytes(b) => b.len(),
            _ => 0,
        }
    }

    /// Python's `type(x).__name__`, which the reference shows as a peek `dtype` for tables
    /// without a dtype sidecar and which appears in Python's error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Cell::None => "NoneType",
            Cell::Bool(_) => "bool",
            Cell::Int(_) | Cell::UInt(_) => "int",
            Cell::Float(_) => "float",
            Cell::Str(_) => "str",
            Cell::Bytes(_) => "bytes",
        }
    }

    /// pandas' notion of a missing value: `None` or a float NaN.
    pub fn is_null(&self) -> bool {
        match self {
            Cell::None => true,
            Cell::Float(x) => x.is_nan(),
            _ => false,
        }
    }

    /// The text if this is a `str`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Cell::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a Python number (`bool` counts as an `int`, as in Python).
    pub(crate) fn as_num(&self) -> Option<Num> {
        match self {
            Cell::Bool(b) => Some(Num::Int(i128::from(*b))),
            Cell::Int(i) => Some(Num::Int(i128::from(*i))),
            Cell::UInt(u) => Some(Num::Int(i128::from(*u))),
            Cell::Float(x) => Some(Num::Float(*x)),
            _ => None,
        }
    }

    /// A Python int, from any integer that fits the cell variants.
    pub(crate) fn from_i128(i: i128) -> Option<Cell> {
        if let Ok(v) = i64::try_from(i) {
            Some(Cell::Int(v))
        } else {
            u64::try_from(i).ok().map(Cell::UInt)
        }
    }

    /// Python's `a == b` for the builtin types tables hold.
    pub fn py_eq(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::None, Cell::None) => true,
            (Cell::Str(a), Cell::Str(b)) => a == b,
            (Cell::Bytes(a), Cell::Bytes(b)) => a == b,
            _ => match (self.as_num(), other.as_num()) {
                (Some(a), Some(b)) => num_cmp(a, b) == Some(Ordering::Equal),
                _ => false,
            },
        }
    }

    /// Python's `a <op> b`, or the `TypeError` text Python raises for unorderable types.
    pub(crate) fn py_compare(&self, other: &Cell, op: CmpOp) -> Result<bool, String> {
        let ord = match (self, other) {
            (Cell::Str(a), Cell::Str(b)) => Some(a.cmp(b)),
            (Cell::Bytes(a), Cell::Bytes(b)) => Some(a.as_ref().cmp(b.as_ref())),
            _ => match (self.as_num(), other.as_num()) {
                (Some(a), Some(b)) => num_cmp(a, b),
                _ => {
                    return Err(format!(
                        "'{}' not supported between instances of '{}' and '{}'",
                        op.symbol(),
                        self.type_name(),
                        other.type_name()
                    ));
                }
            },
        };
        Ok(ord.is_some_and(|o| op.holds(o)))
    }

    /// Python's `str(x)`: how the reference writes scalar results.
    pub fn python_str(&self) -> String {
        match self {
            Cell::None => "None".to_owned(),
            Cell::Bool(true) => "True".to_owned(),
            Cell::Bool(false) => "False".to_owned(),
            Cell::Int(i) => i.to_string(),
            Cell::UInt(u) => u.to_string(),
            Cell::Float(x) => vakra_pytext::float_repr(*x),
            Cell::Str(s) => s.to_string(),
            Cell::Bytes(b) => vakra_pytext::bytes_repr(b),
        }
    }

    /// Python's `repr(x)`, as Python error messages quote values.
    pub fn python_repr(&self) -> String {
        match self {
            Cell::Str(s) => vakra_pytext::str_repr(s),
            other => other.python_str(),
        }
    }

    /// The cell for a JSON scalar as `json.loads` produces it; `None` for arrays and objects.
    pub fn from_json(value: &Value) -> Option<Cell> {
        Some(match value {
            Value::Null => Cell::None,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Cell::Int(i)
                } else if let Some(u) = n.as_u64() {
                    Cell::UInt(u)
                } else {
                    Cell::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => Cell::from(s.as_str()),
            Value::Array(_) | Value::Object(_) => return None,
        })
    }
}

impl fmt::Display for Cell {
    /// Python's `str(x)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.python_str())
    }
}

/// The key under which Python's `dict` files a value: equal keys are `==` and hash alike
/// (`1`, `1.0` and `True` collide), and every NaN is its own key, because each NaN in the
/// reference's lists is a distinct float object, except numpy's `nan` of pandas 3's string
/// columns, which is one object.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum HashKey {
    None,
    Integral(i128),
    Float(u64),
    Str(Text),
    Bytes(Arc<[u8]>),
    /// numpy's `nan` object, which `dict.fromkeys` finds again by identity.
    NpNan,
}

impl HashKey {
    /// `None` for a NaN other than `np.nan`, which never equals an earlier key.
    pub(crate) fn of(cell: &Cell) -> Option<HashKey> {
        Some(match cell {
            Cell::None => HashKey::None,
            Cell::Bool(b) => HashKey::Integral(i128::from(*b)),
            Cell::Int(i) => HashKey::Integral(i128::from(*i)),
            Cell::UInt(u) => HashKey::Integral(i128::from(*u)),
            Cell::Float(x) => {
                if is_np_nan(*x) {
                    return Some(HashKey::NpNan);
                }
                if x.is_nan() {
                    return None;
                }
                if x.fract() == 0.0 && x.abs() < 1.0e38 {
                    HashKey::Integral(*x as i128)
                } else {
                    HashKey::Float(x.to_bits())
                }
            }
            Cell::Str(s) => HashKey::Str(s.clone()),
            Cell::Bytes(b) => HashKey::Bytes(Arc::clone(b)),
        })
    }
}

/// `list(dict.fromkeys(values))`: the first occurrence of every distinct value, in order.
pub(crate) fn distinct(values: &[Cell]) -> Vec<Cell> {
    let mut seen = std::collections::HashSet::with_capacity(values.len().min(1 << 16));
    values
        .iter()
        .filter(|cell| match HashKey::of(cell) {
            Some(key) => seen.insert(key),
            None => true,
        })
        .cloned()
        .collect()
}

/// The bits of numpy's `np.nan`, the one object pandas 3 writes for every missing value of a
/// `str` column (`to_dict` hands out the same object each time, so `dict.fromkeys` keeps one).
/// A quiet NaN with a payload no arithmetic produces on its own.
const NP_NAN_BITS: u64 = 0x7ff8_0000_0000_0a3a;

/// The missing value of a pandas 3 `str` column.
pub(crate) fn missing_str() -> Cell {
    Cell::Float(f64::from_bits(NP_NAN_BITS))
}

/// Whether `x` is that object (rather than some other NaN).
pub(crate) fn is_np_nan(x: f64) -> bool {
    x.to_bits() == NP_NAN_BITS
}

#[cfg(test)]
mod np_nan_tests {
    use super::*;

    #[test]
    fn the_np_nan_object_is_a_nan_of_its_own() {
        let Cell::Float(x) = missing_str() else {
            unreachable!()
        };
        assert!(x.is_nan() && is_np_nan(x));
        assert!(!is_np_nan(f64::NAN));
        assert!(!is_np_nan(f64::NAN + 1.0));
    }
}

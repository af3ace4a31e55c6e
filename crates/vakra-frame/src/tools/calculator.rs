//! `Calculator` (§7.2): Python arithmetic on numbers or lists (ints stay exact, `/` is true
//! division, any divisor `<= 0` gives NaN), then pydantic's `int | float | list[int] |
//! list[float]` coercion of the result.

use serde_json::Value;
use vakra_pytext::{float_repr, float_to_json};

use crate::cell::Cell;
use crate::error::ToolError;
use crate::pystr::{PyInt, py_float, py_int};

use super::{CalculatorOperation, ToolValue};

/// One `Calculator` input: a number, or a list of numbers and `None`s.
#[derive(Debug, Clone, PartialEq)]
pub enum CalcOperand {
    /// An int or a float.
    Scalar(Cell),
    /// Ints, floats and `None`s.
    List(Vec<Cell>),
}

impl CalcOperand {
    /// The operand for a JSON argument that passed the schema (a number, or an array of
    /// numbers and nulls).
    pub fn from_json(value: &Value) -> Option<CalcOperand> {
        match value {
            Value::Array(items) => items
                .iter()
                .map(|item| match item {
                    Value::Null | Value::Number(_) => Cell::from_json(item),
                    _ => None,
                })
                .collect::<Option<Vec<Cell>>>()
                .map(CalcOperand::List),
            Value::Number(_) => Cell::from_json(value).map(CalcOperand::Scalar),
            _ => None,
        }
    }
}

/// A Python number produced by the calculator: ints of inputs up to 64 bits stay exact.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Number {
    Int { negative: bool, magnitude: u128 },
    Float(f64),
}

impl Number {
    fn of(cell: &Cell) -> Option<Number> {
        Some(match cell {
            Cell::Int(i) => Number::Int {
                negative: *i < 0,
                magnitude: u128::from(i.unsigned_abs()),
            },
            Cell::UInt(u) => Number::Int {
                negative: false,
                magnitude: u128::from(*u),
            },
            Cell::Bool(b) => Number::Int {
                negative: false,
                magnitude: u128::from(*b),
            },
            Cell::Float(x) => Number::Float(*x),
            _ => return None,
        })
    }

    fn to_f64(self) -> f64 {
        match self {
            Number::Int {
                negative,
                magnitude,
            } => {
                let x = magnitude as f64;
                if negative { -x } else { x }
            }
            Number::Float(x) => x,
        }
    }

    fn signed(self) -> Option<i128> {
        match self {
            Number::Int {
                negative,
                magnitude,
            } => i128::try_from(magnitude)
                .ok()
                .map(|m| if negative { -m } else { m }),
            Number::Float(_) => None,
        }
    }

    fn from_i128(v: i128) -> Number {
        Number::Int {
            negative: v < 0,
            magnitude: v.unsigned_abs(),
        }
    }

    fn is_positive(self) -> bool {
        match self {
            Number::Int {
                negative,
                magnitude,
            } => !negative && magnitude > 0,
            Number::Float(x) => x > 0.0,
        }
    }

    /// Python's `str()`.
    fn python_str(self) -> String {
        match self {
            Number::Int {
                negative,
                magnitude,
            } => {
                if negative && magnitude > 0 {
                    format!("-{magnitude}")
                } else {
                    magnitude.to_string()
                }
            }
            Number::Float(x) => float_repr(x),
        }
    }
}

fn apply(a: Number, b: Number, op: CalculatorOperation) -> Number {
    if op == CalculatorOperation::Divide {
        if !b.is_positive() {
            return Number::Float(f64::NAN);
        }
        return Number::Float(true_divide(a, b));
    }
    match (a, b) {
        (Number::Int { .. }, Number::Int { .. }) => {
            let (x, y) = (a.signed(), b.signed());
            match (x, y, op) {
                (Some(x), Some(y), CalculatorOperation::Add) => Number::from_i128(x + y),
                (Some(x), Some(y), CalculatorOperation::Subtract) => Number::from_i128(x - y),
                _ => multiply(a, b),
            }
        }
        _ => {
            let (x, y) = (a.to_f64(), b.to_f64());
            Number::Float(match op {
                CalculatorOperation::Add => x + y,
                CalculatorOperation::Subtract => x - y,
                _ => x * y,
            })
        }
    }
}

fn multiply(a: Number, b: Number) -> Number {
    match (a, b) {
        (
            Number::Int {
                negative: na,
                magnitude: ma,
            },
            Number::Int {
                negative: nb,
                magnitude: mb,
            },
        ) => {
            let magnitude = ma.saturating_mul(mb);
            Number::Int {
                negative: (na != nb) && magnitude > 0,
                magnitude,
            }
        }
        _ => Number::Float(a.to_f64() * b.to_f64()),
    }
}

/// Python's `/`: for two ints the correctly rounded quotient, otherwise float division.
fn true_divide(a: Number, b: Number) -> f64 {
    const EXACT: u128 = 1 << 53;
    match (a, b) {
        (
            Number::Int {
                negative: na,
                magnitude: ma,
            },
            Number::Int {
                negative: nb,
                magnitude: mb,
            },
        ) if ma > EXACT || mb > EXACT => {
            let q = divide_rounded(ma, mb);
            if na != nb { -q } else { q }
        }
        _ => a.to_f64() / b.to_f64(),
    }
}

/// `num / den` rounded to the nearest float (ties to even), for `0 < num, den < 2**64`.
fn divide_rounded(num: u128, den: u128) -> f64 {
    if num == 0 {
        return 0.0;
    }
    // Scale the numerator to 128 bits so the quotient has at least 64 significant bits.
    let shift = num.leading_zeros() as i32;
    let scaled = num << shift;
    let q = scaled / den;
    let sticky = !scaled.is_multiple_of(den);
    let extra = (128 - q.leading_zeros() as i32 - 53).max(0);
    let kept = q >> extra;
    let mut mantissa = kept;
    if extra > 0 {
        let dropped = q & ((1u128 << extra) - 1);
        let half = 1u128 << (extra - 1);
        if dropped > half || (dropped == half && (sticky || kept & 1 == 1)) {
            mantissa += 1;
        }
    }
    (mantissa as f64) * 2f64.powi(extra - shift)
}

/// `Calculator(input_1, input_2, operation)`: element-wise on lists (a one-element list or a
/// scalar broadcasts; `None` gives NaN), scalar otherwise.
pub fn calculator(
    input_1: &CalcOperand,
    input_2: &CalcOperand,
    operation: CalculatorOperation,
) -> Result<ToolValue, ToolError> {
    let scalar_pair = match (input_1, input_2) {
        (CalcOperand::Scalar(a), CalcOperand::Scalar(b)) => Some((a, b)),
        _ => None,
    };
    if let Some((a, b)) = scalar_pair {
        let (x, y) = (to_number(a)?, to_number(b)?);
        let (Some(x), Some(y)) = (x, y) else {
            return Err(unsupported(a, b));
        };
        return Ok(ToolValue::Scalar(apply(x, y, operation).python_str()));
    }
    let as_list = |operand: &CalcOperand| match operand {
        CalcOperand::Scalar(c) => vec![c.clone()],
        CalcOperand::List(items) => items.clone(),
    };
    let (mut list_1, mut list_2) = (as_list(input_1), as_list(input_2));
    if list_1.len() == 1 && list_2.len() > 1 {
        list_1 = vec![list_1[0].clone(); list_2.len()];
    } else if list_2.len() == 1 && list_1.len() > 1 {
        list_2 = vec![list_2[0].clone(); list_1.len()];
    }
    if list_1.len() != list_2.len() {
        return Err(ToolError::new(format!(
            "Incompatible list lengths: {} and {}",
            list_1.len(),
            list_2.len()
        )));
    }
    let mut results = Vec::with_capacity(list_1.len());
    let list_1 = list_1
        .iter()
        .map(to_number)
        .collect::<Result<Vec<_>, _>>()?;
    let list_2 = list_2
        .iter()
        .map(to_number)
        .collect::<Result<Vec<_>, _>>()?;
    for (a, b) in list_1.into_iter().zip(list_2) {
        results.push(match (a, b) {
            (Some(x), Some(y)) => apply(x, y, operation),
            _ => Number::Float(f64::NAN),
        });
    }
    Ok(ToolValue::Json(render(&results)))
}

/// The reference's `to_numeric`: strings become an int, else a float; `None` stays `None`.
fn to_number(cell: &Cell) -> Result<Option<Number>, ToolError> {
    match cell {
        Cell::None => Ok(None),
        Cell::Str(s) => {
            if let Ok(PyInt::Exact(i)) = py_int(s)
                && let Some(c) = Cell::from_i128(i)
            {
                return Ok(Number::of(&c));
            }
            py_float(s)
                .map(|x| Some(Number::Float(x)))
                .map_err(|_| ToolError::new(format!("Cannot convert '{s}' to numeric type")))
        }
        other => Ok(Number::of(other)),
    }
}

/// The scalar path never sees `None` once the schema has passed; Python would fail to add it.
fn unsupported(a: &Cell, b: &Cell) -> ToolError {
    ToolError::new(format!(
        "unsupported operand type(s) for +: '{}' and '{}'",
        a.type_name(),
        b.type_name()
    ))
}

/// `json.dumps` of the validated result: `list[int]` when every item is an int, else
/// `list[float]` (ints converted).
fn render(results: &[Number]) -> String {
    let all_int = results.iter().all(|n| matches!(n, Number::Int { .. }));
    let items: Vec<String> = results
        .iter()
        .map(|n| {
            if all_int {
                n.python_str()
            } else {
                float_to_json(n.to_f64(), true).unwrap_or_default()
            }
        })
        .collect();
    format!("[{}]", items.join(", "))
}

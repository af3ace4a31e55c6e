//! CPython's `float(str)`, `int(str)` and `int(float)`, with their error texts.

use std::sync::OnceLock;

use fancy_regex::Regex;
use vakra_pytext::{is_space, str_repr};

use crate::error::ToolError;

/// `s.strip()`.
pub(crate) fn py_strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Whether `c` is a Unicode decimal digit (category Nd), which `float()` and `int()` accept.
fn is_decimal(c: char) -> bool {
    static ND: OnceLock<Option<Regex>> = OnceLock::new();
    let mut buf = [0u8; 4];
    ND.get_or_init(|| Regex::new(r"\A\p{Nd}\z").ok())
        .as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut buf)).unwrap_or(false))
}

/// The value of a decimal digit: digits come in runs of ten code points starting at zero.
fn decimal_value(c: char) -> Option<u32> {
    if let Some(d) = c.to_digit(10) {
        return Some(d);
    }
    if c.is_ascii() || !is_decimal(c) {
        return None;
    }
    let code = u32::from(c);
    let mut position = 0;
    while position < 100 {
        match char::from_u32(code - position - 1) {
            Some(prev) if is_decimal(prev) => position += 1,
            _ => break,
        }
    }
    Some(position % 10)
}

/// CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII`: Unicode digits become ASCII digits,
/// whitespace a space, any other non-ASCII character makes the text invalid.
fn to_ascii_number(s: &str) -> Option<String> {
    s.chars()
        .map(|c| {
            if c.is_ascii() {
                Some(c)
            } else if is_space(c) {
                Some(' ')
            } else {
                decimal_value(c).and_then(|d| char::from_digit(d, 10))
            }
        })
        .collect()
}

/// A Python int produced by parsing or truncation: exact when it fits 128 bits, otherwise only
/// its sign matters (it compares beyond every value a table can hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PyInt {
    Exact(i128),
    Huge { negative: bool },
}

/// Removes the underscores `float()` and `int()` allow: each one between two ASCII digits.
fn without_underscores(s: &str) -> Option<String> {
    if !s.contains('_') {
        return Some(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut prev = '\0';
    for c in s.chars() {
        if c == '_' {
            if !prev.is_ascii_digit() {
                return None;
            }
        } else {
            if prev == '_' && !c.is_ascii_digit() {
                return None;
            }
            out.push(c);
        }
        prev = c;
    }
    (prev != '_').then_some(out)
}

/// `float(s)` for a `str` argument.
pub(crate) fn py_float(s: &str) -> Result<f64, ToolError> {
    let fail = || {
        ToolError::new(format!(
            "could not convert string to float: {}",
            str_repr(s)
        ))
    };
    let ascii = to_ascii_number(s).ok_or_else(fail)?;
    let stripped = py_strip(&ascii);
    if stripped.is_empty() {
        return Err(fail());
    }
    let cleaned = without_underscores(stripped).ok_or_else(fail)?;
    let body = cleaned.trim_start_matches(['+', '-']);
    if cleaned.len() - body.len() > 1 {
        return Err(fail());
    }
    let lowered = body.to_ascii_lowercase();
    let special = matches!(lowered.as_str(), "inf" | "infinity" | "nan");
    let numeric = !lowered.is_empty()
        && lowered
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+' | b'-'));
    if !special && !numeric {
        return Err(fail());
    }
    cleaned.parse::<f64>().map_err(|_| fail())
}

/// CPython refuses to convert longer digit strings (its default `sys.get_int_max_str_digits()`).
const MAX_STR_DIGITS: usize = 4300;

/// `int(s)` for a `str` argument, base 10.
pub(crate) fn py_int(s: &str) -> Result<PyInt, ToolError> {
    let fail = || {
        let repr: String = str_repr(s).chars().take(200).collect();
        ToolError::new(format!("invalid literal for int() with base 10: {repr}"))
    };
    let ascii = to_ascii_number(s).ok_or_else(fail)?;
    let stripped = py_strip(&ascii);
    let (negative, digits) = match stripped.as_bytes().first() {
        Some(b'-') => (true, &stripped[1..]),
        Some(b'+') => (false, &stripped[1..]),
        _ => (false, stripped),
    };
    if digits.is_empty() || !digits.as_bytes()[0].is_ascii_digit() {
        return Err(fail());
    }
    let cleaned = without_underscores(digits).ok_or_else(fail)?;
    if !cleaned.bytes().all(|b| b.is_ascii_digit()) {
        return Err(fail());
    }
    if cleaned.len() > MAX_STR_DIGITS {
        return Err(ToolError::new(format!(
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion: value has {} digits; use sys.set_int_max_str_digits() to increase the limit",
            cleaned.len()
        )));
    }
    let significant = cleaned.trim_start_matches('0');
    if significant.len() > 38 {
        return Ok(PyInt::Huge { negative });
    }
    let magnitude: i128 = if significant.is_empty() {
        0
    } else {
        significant.parse().map_err(|_| fail())?
    };
    Ok(PyInt::Exact(if negative { -magnitude } else { magnitude }))
}

/// `int(x)` for a float: truncation toward zero.
pub(crate) fn py_int_of_float(x: f64) -> Result<PyInt, ToolError> {
    if x.is_nan() {
        return Err(ToolError::new("cannot convert float NaN to integer"));
    }
    if x.is_infinite() {
        return Err(ToolError::new("cannot convert float infinity to integer"));
    }
    let t = x.trunc();
    if t.abs() >= 1.0e38 {
        return Ok(PyInt::Huge { negative: t < 0.0 });
    }
    Ok(PyInt::Exact(t as i128))
}

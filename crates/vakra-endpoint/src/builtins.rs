//! The builtins and `str` methods of the expression language, with CPython 3.11's results and
//! messages (argument-count errors included).

use vakra_pytext::is_space;

use crate::PyValue;
use crate::exception::PyError;
use crate::pyops::{MAX_SEQUENCE, as_index, dict_insert, float_value, integer, iterate, overflow};

/// The builtin functions expressions may call.
pub(crate) const BUILTINS: &[&str] = &[
    "len",
    "int",
    "float",
    "str",
    "bool",
    "dict",
    "tuple",
    "list",
    "enumerate",
    "range",
    "abs",
];

/// The `str` methods expressions may call.
pub(crate) const METHODS: &[&str] = &["split", "join", "strip", "lower", "upper", "replace"];

/// CPython's argument-count errors, in the wording each builtin uses.
fn check_arity(name: &str, given: usize) -> Result<(), PyError> {
    let message = match name {
        "len" | "abs" if given != 1 => {
            format!("{name}() takes exactly one argument ({given} given)")
        }
        "int" if given > 2 => format!("int() takes at most 2 arguments ({given} given)"),
        "str" if given > 3 => format!("str() takes at most 3 arguments ({given} given)"),
        "enumerate" if given == 0 => "enumerate() missing required argument 'iterable'".into(),
        "enumerate" if given > 2 => {
            format!("enumerate() takes at most 2 arguments ({given} given)")
        }
        "range" if given == 0 => "range expected at least 1 argument, got 0".into(),
        "range" if given > 3 => format!("range expected at most 3 arguments, got {given}"),
        "float" | "bool" | "dict" | "tuple" | "list" if given > 1 => {
            format!("{name} expected at most 1 argument, got {given}")
        }
        _ => return Ok(()),
    };
    Err(PyError::type_error(message))
}

/// Calls the builtin `name`. `int` with a base and `str` with an encoding are rejected when
/// expressions compile, so they never get here.
pub(crate) fn call_builtin(name: &str, args: Vec<PyValue>) -> Result<PyValue, PyError> {
    check_arity(name, args.len())?;
    let mut args = args.into_iter();
    let first = args.next();
    match name {
        "len" => len(first.unwrap_or(PyValue::None)),
        "int" => first.map_or(Ok(PyValue::Int(0)), to_int),
        "float" => first.map_or(Ok(PyValue::Float(0.0)), to_float),
        "str" => Ok(PyValue::Str(first.map(|v| v.str()).unwrap_or_default())),
        "bool" => Ok(PyValue::Bool(first.is_some_and(|v| v.truthy()))),
        "abs" => match first.unwrap_or(PyValue::None) {
            PyValue::Float(f) => Ok(PyValue::Float(f.abs())),
            v => match integer(&v) {
                Some(i) => i.checked_abs().map(PyValue::Int).ok_or_else(overflow),
                None => Err(PyError::type_error(format!(
                    "bad operand type for abs(): '{}'",
                    v.type_name()
                ))),
            },
        },
        "tuple" => Ok(PyValue::Tuple(first.map_or(Ok(Vec::new()), iterate)?)),
        "list" => Ok(PyValue::List(first.map_or(Ok(Vec::new()), iterate)?)),
        "dict" => match first {
            None => Ok(PyValue::Dict(Vec::new())),
            Some(PyValue::Dict(pairs)) => Ok(PyValue::Dict(pairs)),
            Some(source) => dict_from_pairs(source),
        },
        "enumerate" => {
            let start = args.next().as_ref().map_or(Ok(0), as_index)?;
            let items = iterate(first.unwrap_or(PyValue::None))?;
            Ok(PyValue::List(
                items
                    .into_iter()
                    .zip(start..)
                    .map(|(item, i)| PyValue::Tuple(vec![PyValue::Int(i), item]))
                    .collect(),
            ))
        }
        "range" => {
            let bounds = first
                .iter()
                .chain(args.as_slice())
                .map(as_index)
                .collect::<Result<Vec<_>, _>>()?;
            range(&bounds)
        }
        _ => Err(PyError::name_error(name)),
    }
}

fn len(value: PyValue) -> Result<PyValue, PyError> {
    let n = match &value {
        PyValue::Str(s) => s.chars().count(),
        PyValue::Bytes(b) => b.len(),
        PyValue::List(v) | PyValue::Tuple(v) => v.len(),
        PyValue::Dict(d) => d.len(),
        other => {
            return Err(PyError::type_error(format!(
                "object of type '{}' has no len()",
                other.type_name()
            )));
        }
    };
    Ok(PyValue::Int(n as i64))
}

/// `range(stop)`, `range(start, stop)` or `range(start, stop, step)`, as a list.
fn range(bounds: &[i64]) -> Result<PyValue, PyError> {
    let (start, stop, step) = match *bounds {
        [stop] => (0, stop, 1),
        [start, stop] => (start, stop, 1),
        [start, stop, step, ..] => (start, stop, step),
        [] => (0, 0, 1),
    };
    if step == 0 {
        return Err(PyError::value_error("range() arg 3 must not be zero"));
    }
    let (start, stop, step) = (i128::from(start), i128::from(stop), i128::from(step));
    let count = if step > 0 {
        (stop - start + step - 1).max(0) / step
    } else {
        (start - stop - step - 1).max(0) / -step
    };
    if count > MAX_SEQUENCE as i128 {
        return Err(PyError::new("MemoryError", "range too large"));
    }
    Ok(PyValue::List(
        (0..count)
            .map(|k| PyValue::Int((start + k * step) as i64))
            .collect(),
    ))
}

/// `dict(iterable)`: every element must be a pair.
fn dict_from_pairs(source: PyValue) -> Result<PyValue, PyError> {
    let mut out = Vec::new();
    for (i, element) in iterate(source)?.into_iter().enumerate() {
        let pair = iterate(element).map_err(|_| {
            PyError::type_error(format!(
                "cannot convert dictionary update sequence element #{i} to a sequence"
            ))
        })?;
        let [key, value]: [PyValue; 2] = pair.try_into().map_err(|pair: Vec<PyValue>| {
            PyError::value_error(format!(
                "dictionary update sequence element #{i} has length {}; 2 is required",
                pair.len()
            ))
        })?;
        dict_insert(&mut out, key, value)?;
    }
    Ok(PyValue::Dict(out))
}

/// The text of a `str` or `bytes` argument of `int()` or `float()`.
fn numeric_text(value: &PyValue) -> Option<&str> {
    match value {
        PyValue::Str(s) => Some(s),
        PyValue::Bytes(b) => Some(std::str::from_utf8(b).unwrap_or("\u{fffd}")),
        _ => None,
    }
}

/// Whether every `_` of `text` sits between two digits (PEP 515).
fn underscores_between_digits(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().all(|(i, &b)| {
        b != b'_'
            || (i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

fn to_int(value: PyValue) -> Result<PyValue, PyError> {
    if let Some(text) = numeric_text(&value) {
        // int() strips Unicode whitespace but not \x1c-\x1f, like Rust's `trim`.
        let t = text.trim();
        let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
        let valid = digits.starts_with(|c: char| c.is_ascii_digit())
            && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')
            && underscores_between_digits(digits);
        return match t.replace('_', "").parse() {
            Ok(i) if valid => Ok(PyValue::Int(i)),
            Err(_) if valid => Err(overflow()),
            _ => Err(PyError::value_error(format!(
                "invalid literal for int() with base 10: {}",
                value.repr()
            ))),
        };
    }
    match value {
        PyValue::Float(f) if f.is_nan() => {
            Err(PyError::value_error("cannot convert float NaN to integer"))
        }
        PyValue::Float(f) if f.is_infinite() => Err(PyError::new(
            "OverflowError",
            "cannot convert float infinity to integer",
        )),
        PyValue::Float(f) if f.trunc().abs() < 9.2e18 => Ok(PyValue::Int(f.trunc() as i64)),
        PyValue::Float(_) => Err(overflow()),
        other => integer(&other).map(PyValue::Int).ok_or_else(|| {
            PyError::type_error(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.type_name()
            ))
        }),
    }
}

fn to_float(value: PyValue) -> Result<PyValue, PyError> {
    if let Some(text) = numeric_text(&value) {
        let t = text.trim();
        return match t.replace('_', "").parse() {
            Ok(f) if underscores_between_digits(t) => Ok(PyValue::Float(f)),
            _ => Err(PyError::value_error(format!(
                "could not convert string to float: {}",
                value.repr()
            ))),
        };
    }
    float_value(&value).map(PyValue::Float).ok_or_else(|| {
        PyError::type_error(format!(
            "float() argument must be a string or a real number, not '{}'",
            value.type_name()
        ))
    })
}

/// Calls the `str` method `name` on `s`.
pub(crate) fn str_method(s: &str, name: &str, args: Vec<PyValue>) -> Result<PyValue, PyError> {
    let given = args.len();
    let too_many = |max: usize, plural: &str| {
        PyError::type_error(format!(
            "{name} expected at most {max} argument{plural}, got {given}"
        ))
    };
    match name {
        "lower" | "upper" if given > 0 => Err(PyError::type_error(format!(
            "str.{name}() takes no arguments ({given} given)"
        ))),
        "lower" => Ok(PyValue::Str(s.to_lowercase())),
        "upper" => Ok(PyValue::Str(s.to_uppercase())),
        "strip" if given > 1 => Err(too_many(1, "")),
        "strip" => match args.first() {
            None | Some(PyValue::None) => Ok(PyValue::Str(s.trim_matches(is_space).into())),
            Some(PyValue::Str(chars)) => {
                Ok(PyValue::Str(s.trim_matches(|c| chars.contains(c)).into()))
            }
            Some(_) => Err(PyError::type_error("strip arg must be None or str")),
        },
        "split" if given > 2 => Err(PyError::type_error(format!(
            "split() takes at most 2 arguments ({given} given)"
        ))),
        "split" => {
            let maxsplit = args.get(1).map_or(Ok(-1), as_index)?;
            let pieces = usize::try_from(maxsplit).map_or(usize::MAX, |n| n.saturating_add(1));
            let parts: Vec<&str> = match args.first() {
                None | Some(PyValue::None) => split_whitespace(s, pieces),
                Some(PyValue::Str(sep)) if sep.is_empty() => {
                    return Err(PyError::value_error("empty separator"));
                }
                Some(PyValue::Str(sep)) => s.splitn(pieces, sep.as_str()).collect(),
                Some(other) => {
                    return Err(PyError::type_error(format!(
                        "must be str or None, not {}",
                        other.type_name()
                    )));
                }
            };
            Ok(PyValue::List(
                parts.into_iter().map(|p| PyValue::Str(p.into())).collect(),
            ))
        }
        "join" if given != 1 => Err(PyError::type_error(format!(
            "str.join() takes exactly one argument ({given} given)"
        ))),
        "join" => {
            let items = iterate(args.into_iter().next().unwrap_or(PyValue::None))
                .map_err(|_| PyError::type_error("can only join an iterable"))?;
            let mut parts = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                match item {
                    PyValue::Str(part) => parts.push(part),
                    other => {
                        return Err(PyError::type_error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            other.type_name()
                        )));
                    }
                }
            }
            Ok(PyValue::Str(parts.join(s)))
        }
        "replace" if given < 2 => Err(PyError::type_error(format!(
            "replace expected at least 2 arguments, got {given}"
        ))),
        "replace" if given > 3 => Err(too_many(3, "s")),
        "replace" => {
            let text = |i: usize| {
                match &args[i] {
                    PyValue::Str(a) => Ok(a.as_str()),
                    PyValue::None => Err("None"),
                    other => Err(other.type_name()),
                }
                .map_err(|found| {
                    PyError::type_error(format!(
                        "replace() argument {} must be str, not {found}",
                        i + 1
                    ))
                })
            };
            let (old, new) = (text(0)?, text(1)?);
            let count = args.get(2).map_or(Ok(-1), as_index)?;
            Ok(PyValue::Str(match usize::try_from(count) {
                Ok(count) => s.replacen(old, new, count),
                Err(_) => s.replace(old, new),
            }))
        }
        _ => Err(PyError::new(
            "AttributeError",
            format!("'str' object has no attribute '{name}'"),
        )),
    }
}

/// `str.split()` without a separator into at most `pieces` parts: runs of Python whitespace
/// separate, the ends are stripped, and the last part keeps its trailing whitespace.
fn split_whitespace(s: &str, pieces: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = s.trim_start_matches(is_space);
    while !rest.is_empty() {
        if parts.len() + 1 == pieces {
            parts.push(rest);
            break;
        }
        let end = rest.find(is_space).unwrap_or(rest.len());
        parts.push(&rest[..end]);
        rest = rest[end..].trim_start_matches(is_space);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(items: &[&str]) -> Vec<PyValue> {
        items.iter().map(|s| PyValue::Str((*s).into())).collect()
    }

    #[test]
    fn split_without_separator_follows_cpython() {
        // Python 3.11: '  a  b  c  '.split(None, n) for n = -1, 0, 1, 2, 3
        let s = "  a  b  c  ";
        let split =
            |n: i64| str_method(s, "split", vec![PyValue::None, PyValue::Int(n)]).map(|v| v.repr());
        assert_eq!(split(-1), Ok("['a', 'b', 'c']".into()));
        assert_eq!(split(0), Ok("['a  b  c  ']".into()));
        assert_eq!(split(1), Ok("['a', 'b  c  ']".into()));
        assert_eq!(split(2), Ok("['a', 'b', 'c  ']".into()));
        assert_eq!(split(3), Ok("['a', 'b', 'c']".into()));
        assert_eq!(
            str_method("   ", "split", vec![]),
            Ok(PyValue::List(vec![]))
        );
        assert_eq!(
            str_method("a\u{85}b\u{a0}c\u{3000}", "split", vec![]),
            Ok(PyValue::List(strs(&["a", "b", "c"])))
        );
    }

    #[test]
    fn argument_errors_use_cpython_wording() {
        let message =
            |name: &str, args: Vec<PyValue>| str_method("aaa", name, args).map_err(|e| e.message);
        assert_eq!(
            message("replace", strs(&["a"])),
            Err("replace expected at least 2 arguments, got 1".into())
        );
        assert_eq!(
            message("replace", vec![PyValue::None, PyValue::Str("b".into())]),
            Err("replace() argument 1 must be str, not None".into())
        );
        assert_eq!(
            message("strip", strs(&["a", "b"])),
            Err("strip expected at most 1 argument, got 2".into())
        );
        assert_eq!(
            message("split", vec![PyValue::Str(",".into()), PyValue::Float(1.5)]),
            Err("'float' object cannot be interpreted as an integer".into())
        );
        assert_eq!(
            message("join", vec![]),
            Err("str.join() takes exactly one argument (0 given)".into())
        );
        assert_eq!(
            call_builtin("range", vec![]).map_err(|e| e.message),
            Err("range expected at least 1 argument, got 0".into())
        );
        assert_eq!(
            call_builtin("float", vec![PyValue::Int(1), PyValue::Int(2)]).map_err(|e| e.message),
            Err("float expected at most 1 argument, got 2".into())
        );
    }

    #[test]
    fn int_and_float_parse_text_like_cpython() {
        let int = |s: &str| to_int(PyValue::Str(s.into())).map(|v| v.repr());
        let float = |s: &str| to_float(PyValue::Str(s.into())).map(|v| v.repr());
        assert_eq!(int(" 0_1 "), Ok("1".into()));
        assert!(int("+_1").is_err());
        assert!(int("\x1c15").is_err(), "int() does not strip \\x1c");
        assert_eq!(float("1_0.5_0"), Ok("10.5".into()));
        assert!(float("1__0").is_err());
        assert!(float("_1").is_err());
        assert_eq!(float("-Infinity"), Ok("-inf".into()));
        assert_eq!(
            to_int(PyValue::Bytes(b" 12 ".to_vec())),
            Ok(PyValue::Int(12))
        );
        assert_eq!(
            range(&[10, 0, -3]).map(|v| v.repr()),
            Ok("[10, 7, 4, 1]".into())
        );
    }
}

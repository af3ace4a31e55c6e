//! Query-parameter parsing as FastAPI 0.109 with pydantic v2 does it, including the exact
//! validation-error entries of its 422 bodies.

use serde_json::{Value, json};
use vakra_catalog::{Param, ParamType};
use vakra_pytext::pydantic::{
    BOOL_PARSING, ErrorType, FLOAT_PARSING, INT_PARSING, INT_PARSING_SIZE, MISSING,
};

use crate::PyValue;

/// The pydantic minor version whose documentation links appear in 422 bodies.
pub use vakra_pytext::pydantic::PYDANTIC_DOCS_VERSION;

/// One entry of FastAPI's `{"detail": [...]}` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    pub kind: &'static str,
    pub param: String,
    pub message: &'static str,
    /// The raw query value, or `None` (JSON `null`) for a missing parameter.
    pub input: Option<String>,
}

impl ParamError {
    /// The entry as FastAPI serialises it: `type`, `loc`, `msg`, `input`, `url`.
    pub fn to_json(&self) -> Value {
        json!({
            "type": self.kind,
            "loc": ["query", self.param],
            "msg": self.message,
            "input": self.input,
            "url": vakra_pytext::pydantic::docs_url(self.kind),
        })
    }
}

/// FastAPI's 422 body for a list of errors.
pub fn validation_body(errors: &[ParamError]) -> Value {
    json!({"detail": errors.iter().map(ParamError::to_json).collect::<Vec<_>>()})
}

/// Why the parameters could not be turned into handler arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamsError {
    /// FastAPI rejects the request with 422.
    Invalid(Vec<ParamError>),
    /// The value validates but cannot be bound: an integer beyond SQLite's 64 bits makes
    /// Python's `sqlite3` raise `OverflowError`, a 500 in the reference.
    Overflow(String),
}

/// Parses the query pairs (in request order; the last of repeated names wins, as Starlette's
/// `QueryParams.get` does) into one value per declared parameter. Unknown names are ignored.
pub fn parse_params(
    params: &[Param],
    query: &[(String, String)],
) -> Result<Vec<PyValue>, ParamsError> {
    let mut values = Vec::with_capacity(params.len());
    let mut errors = Vec::new();
    let mut overflow = None;
    for param in params {
        let given = query
            .iter()
            .rev()
            .find(|(k, _)| *k == param.name)
            .map(|(_, v)| v);
        match given {
            None if param.required => errors.push(ParamError {
                kind: MISSING.kind,
                param: param.name.clone(),
                message: MISSING.message,
                input: None,
            }),
            None => values.push(
                param
                    .default
                    .as_ref()
                    .map_or(PyValue::None, PyValue::from_json),
            ),
            Some(raw) => match parse_value(param.ty, raw) {
                Ok(v) => values.push(v),
                Err(Rejection::Invalid(error)) => errors.push(ParamError {
                    kind: error.kind,
                    param: param.name.clone(),
                    message: error.message,
                    input: Some(raw.clone()),
                }),
                Err(Rejection::Overflow) => {
                    overflow.get_or_insert_with(|| {
                        format!(
                            "Python int too large to convert to SQLite INTEGER ({})",
                            param.name
                        )
                    });
                }
            },
        }
    }
    if !errors.is_empty() {
        return Err(ParamsError::Invalid(errors));
    }
    if let Some(message) = overflow {
        return Err(ParamsError::Overflow(message));
    }
    Ok(values)
}

enum Rejection {
    Invalid(ErrorType),
    Overflow,
}

const MAX_INT_DIGITS: usize = 4300;

fn parse_value(ty: ParamType, raw: &str) -> Result<PyValue, Rejection> {
    match ty {
        ParamType::Str => Ok(PyValue::Str(raw.to_owned())),
        ParamType::Int => parse_int(raw),
        ParamType::Float => parse_float(raw.trim())
            .map(PyValue::Float)
            .ok_or(Rejection::Invalid(FLOAT_PARSING)),
        ParamType::Bool => parse_bool(raw.trim())
            .map(PyValue::Bool)
            .ok_or(Rejection::Invalid(BOOL_PARSING)),
    }
}

/// pydantic's lax `str` → `int`: surrounding whitespace is ignored, and a fractional part made
/// only of zeros (`"12.0"`, `"12."`) is accepted.
fn parse_int(raw: &str) -> Result<PyValue, Rejection> {
    let Some(text) = without_digit_separators(raw.trim()) else {
        return Err(Rejection::Invalid(INT_PARSING));
    };
    let text = text.as_str();
    if text.len() > MAX_INT_DIGITS {
        return Err(Rejection::Invalid(INT_PARSING_SIZE));
    }
    let invalid = Rejection::Invalid(INT_PARSING);
    let whole = match text.split_once('.') {
        Some((whole, fraction)) if fraction.bytes().all(|b| b == b'0') => whole,
        Some(_) => return Err(invalid),
        None => text,
    };
    let digits = whole.strip_prefix(['+', '-']).unwrap_or(whole);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid);
    }
    whole
        .parse::<i64>()
        .map(PyValue::Int)
        .map_err(|_| Rejection::Overflow)
}

/// pydantic 2 reads `_` digit separators as Python does: each one between two digits
/// (`1_000`, `1_0.5`, `1e1_0`); the text without them, or `None` for a misplaced one.
fn without_digit_separators(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let placed = bytes.iter().enumerate().all(|(i, &b)| {
        b != b'_'
            || (i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    placed.then(|| text.replace('_', ""))
}

fn parse_float(text: &str) -> Option<f64> {
    let text = without_digit_separators(text)?;
    let text = text.as_str();
    let lower = text.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    let special = matches!(unsigned, "inf" | "infinity" | "nan");
    let plain = !unsigned.is_empty()
        && unsigned
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+' | b'-'));
    if special || plain {
        text.parse::<f64>().ok()
    } else {
        None
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "1" | "on" | "t" | "true" | "y" | "yes" => Some(true),
        "0" | "off" | "f" | "false" | "n" | "no" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, ty: ParamType, required: bool, default: Option<Value>) -> Param {
        Param {
            name: name.into(),
            ty,
            required,
            default,
            description: String::new(),
        }
    }

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn ints_follow_pydantic_lax_rules() {
        let p = [param("n", ParamType::Int, true, None)];
        for (raw, want) in [
            ("12", 12),
            (" 12 ", 12),
            ("12.0", 12),
            ("12.", 12),
            ("-3", -3),
            ("+4", 4),
        ] {
            assert_eq!(
                parse_params(&p, &q(&[("n", raw)])),
                Ok(vec![PyValue::Int(want)]),
                "{raw}"
            );
        }
        // pydantic 2 reads digit separators (`limit=1_0`).
        for (raw, want) in [("1_0", 10), ("1_000", 1000), (" 2_5 ", 25)] {
            assert_eq!(
                parse_params(&p, &q(&[("n", raw)])),
                Ok(vec![PyValue::Int(want)]),
                "{raw}"
            );
        }
        for raw in ["abc", "12.5", "1e+20", "", ".", "_1", "1_", "1__0", "0x10"] {
            let Err(ParamsError::Invalid(errors)) = parse_params(&p, &q(&[("n", raw)])) else {
                panic!("{raw} accepted");
            };
            assert_eq!(errors[0].kind, "int_parsing", "{raw}");
        }
        assert!(matches!(
            parse_params(&p, &q(&[("n", "99999999999999999999")])),
            Err(ParamsError::Overflow(_))
        ));
    }

    #[test]
    fn floats_bind_as_real_even_when_integral() {
        let p = [param("x", ParamType::Float, true, None)];
        assert_eq!(
            parse_params(&p, &q(&[("x", "12")])),
            Ok(vec![PyValue::Float(12.0)])
        );
        assert_eq!(
            parse_params(&p, &q(&[("x", "1e-5")])),
            Ok(vec![PyValue::Float(1e-5)])
        );
        assert!(parse_params(&p, &q(&[("x", "twelve")])).is_err());
        for (raw, want) in [("1_0.5", 10.5), ("1e1_0", 1e10)] {
            assert_eq!(
                parse_params(&p, &q(&[("x", raw)])),
                Ok(vec![PyValue::Float(want)]),
                "{raw}"
            );
        }
        for raw in ["1_.5", "_1.5", "1e_10"] {
            assert!(parse_params(&p, &q(&[("x", raw)])).is_err(), "{raw}");
        }
    }

    #[test]
    fn missing_required_and_defaults() {
        let p = [
            param("a", ParamType::Str, true, None),
            param("limit", ParamType::Int, false, Some(json!(5))),
            param("side", ParamType::Str, false, Some(Value::Null)),
        ];
        assert_eq!(
            parse_params(&p, &q(&[("a", "x"), ("unknown", "1")])),
            Ok(vec![
                PyValue::Str("x".into()),
                PyValue::Int(5),
                PyValue::None
            ])
        );
        let Err(ParamsError::Invalid(errors)) = parse_params(&p, &q(&[("limit", "z")])) else {
            panic!()
        };
        assert_eq!(
            validation_body(&errors),
            json!({"detail": [
                {"type": "missing", "loc": ["query", "a"], "msg": "Field required", "input": null,
                 "url": format!("https://errors.pydantic.dev/{PYDANTIC_DOCS_VERSION}/v/missing")},
                {"type": "int_parsing", "loc": ["query", "limit"],
                 "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "z",
                 "url": format!("https://errors.pydantic.dev/{PYDANTIC_DOCS_VERSION}/v/int_parsing")}
            ]})
        );
    }

    #[test]
    fn last_repeated_value_wins() {
        let p = [param("a", ParamType::Str, true, None)];
        assert_eq!(
            parse_params(&p, &q(&[("a", "1"), ("a", "2")])),
            Ok(vec![PyValue::Str("2".into())])
        );
    }
}

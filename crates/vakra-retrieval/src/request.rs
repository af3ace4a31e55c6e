//! The `/query` request body as the reference's FastAPI model `QueryRequest {question: str,
//! n_results: int = 10}` validates it (pydantic 2, lax mode), with the 422 details FastAPI
//! returns. Both the HTTP API and the MCP tools go through it, because the reference's MCP
//! wrapper forwards the tool arguments as this body.

use serde_json::{Map, Value, json};
use vakra_pytext::pydantic::{
    ErrorType, INT_FROM_FLOAT, INT_PARSING, INT_PARSING_SIZE, INT_TYPE, MISSING,
    MODEL_ATTRIBUTES_TYPE, STRING_TYPE,
};

/// Used when the body has no `n_results`.
pub(crate) const DEFAULT_N_RESULTS: i128 = 10;

/// A valid body. `n_results` is any integer pydantic accepts (Python integers are unbounded;
/// larger values saturate), not yet checked against what the search accepts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryBody {
    pub(crate) question: String,
    pub(crate) n_results: i128,
}

/// How a number beyond 64 bits was written, which serde_json forgets (it reads both as a float)
/// and Python does not: digits only are an `int` however large, which pydantic accepts and
/// Chroma then refuses (a 500); an exponent or a fraction is a `float`, which pydantic refuses
/// beyond 64 bits (a 422).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LargeNumbers {
    Integers,
    Floats,
}

/// Validates a parsed body (`None`: no body at all). `Err` holds FastAPI's `detail` list.
pub(crate) fn parse_body(
    body: Option<&Value>,
    large: LargeNumbers,
) -> Result<QueryBody, Vec<Value>> {
    let Some(body) = body else {
        return Err(vec![detail(MISSING, &["body"], &Value::Null)]);
    };
    let Value::Object(fields) = body else {
        return Err(vec![detail(MODEL_ATTRIBUTES_TYPE, &["body"], body)]);
    };
    let mut errors = Vec::new();
    let question = match fields.get("question") {
        None => {
            errors.push(detail(MISSING, &["body", "question"], body));
            None
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            errors.push(detail(STRING_TYPE, &["body", "question"], other));
            None
        }
    };
    let n_results = match fields.get("n_results") {
        None => Some(DEFAULT_N_RESULTS),
        Some(value) => match lax_int(value, large) {
            Ok(n) => Some(n),
            Err(error) => {
                errors.push(detail(error, &["body", "n_results"], value));
                None
            }
        },
    };
    match (question, n_results) {
        (Some(question), Some(n_results)) if errors.is_empty() => Ok(QueryBody {
            question,
            n_results,
        }),
        _ => Err(errors),
    }
}

/// The 422 body of a JSON syntax error, as FastAPI reports it (the position is always 0 there,
/// because it re-raises with the error's `pos` relative to an empty document).
pub(crate) fn json_error_details() -> Vec<Value> {
    vec![json!({
        "type": "json_invalid",
        "loc": ["body", 0],
        "msg": "JSON decode error",
        "input": {},
        "ctx": {"error": "Expecting value"}
    })]
}

fn detail(error: ErrorType, loc: &[&str], input: &Value) -> Value {
    json!({"type": error.kind, "loc": loc, "msg": error.message, "input": input})
}

/// `i64::MIN` and `i64::MAX + 1` as floats (both exact): pydantic refuses floats outside.
const I64_RANGE_START: f64 = -9_223_372_036_854_775_808.0;
const I64_RANGE_END: f64 = 9_223_372_036_854_775_808.0;

/// pydantic's lax `int`: integers, integral floats within 64 bits, booleans, and strings
/// holding an integer (surrounding whitespace, a sign, `_` separators and a `.0…` tail allowed).
/// Integral numbers beyond 64 bits are integers (saturated) or floats as `large` says.
fn lax_int(value: &Value, large: LargeNumbers) -> Result<i128, ErrorType> {
    match value {
        Value::Bool(b) => Ok(i128::from(*b)),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Ok(i128::from(i))
            } else if let Some(u) = n.as_u64() {
                Ok(i128::from(u))
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.fract() != 0.0 {
                    Err(INT_FROM_FLOAT)
                } else if large == LargeNumbers::Integers {
                    Ok(f as i128)
                } else if !(I64_RANGE_START..I64_RANGE_END).contains(&f) {
                    Err(INT_PARSING_SIZE)
                } else {
                    Ok(f as i128)
                }
            }
        }
        Value::String(s) => parse_int_str(s).ok_or(INT_PARSING),
        _ => Err(INT_TYPE),
    }
}

/// An integer written as Python's `int()` reads it, plus pydantic's `.0` tail; huge values
/// saturate.
fn parse_int_str(text: &str) -> Option<i128> {
    let trimmed = text.trim_matches(|c: char| c.is_whitespace());
    let (negative, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let digits = match digits.split_once('.') {
        Some((whole, zeros)) if zeros.bytes().all(|b| b == b'0') => whole,
        Some(_) => return None,
        None => digits,
    };
    let bytes = digits.as_bytes();
    let well_formed = !bytes.is_empty()
        && bytes[0] != b'_'
        && bytes[bytes.len() - 1] != b'_'
        && !digits.contains("__")
        && bytes.iter().all(|b| b.is_ascii_digit() || *b == b'_');
    if !well_formed {
        return None;
    }
    let mut value: i128 = 0;
    for b in bytes.iter().filter(|b| b.is_ascii_digit()) {
        value = value
            .saturating_mul(10)
            .saturating_add(i128::from(b - b'0'));
    }
    Some(if negative { -value } else { value })
}

/// The body the reference's MCP wrapper sends for tool arguments: the two declared properties
/// that are present, or `null` when neither is.
/// How the `n_results` of a raw body is written: [`LargeNumbers::Integers`] for digits only
/// (with a sign), else [`LargeNumbers::Floats`].
pub(crate) fn large_numbers_in(body: &[u8]) -> LargeNumbers {
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[serde(borrow, default)]
        n_results: Option<&'a serde_json::value::RawValue>,
    }
    let digits = serde_json::from_slice::<Raw<'_>>(body)
        .ok()
        .and_then(|raw| raw.n_results)
        .is_some_and(|raw| {
            let text = raw.get().trim_start_matches('-');
            !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
        });
    if digits {
        LargeNumbers::Integers
    } else {
        LargeNumbers::Floats
    }
}

pub(crate) fn body_from_arguments(arguments: &Map<String, Value>) -> Option<Value> {
    let mut body = Map::new();
    for key in ["question", "n_results"] {
        if let Some(value) = arguments.get(key) {
            body.insert(key.to_owned(), value.clone());
        }
    }
    (!body.is_empty()).then_some(Value::Object(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(value: Value) -> Result<i128, &'static str> {
        lax_int(&value, LargeNumbers::Floats).map_err(|e| e.kind)
    }

    /// Numbers beyond 64 bits: as Python reads the literal.
    #[test]
    fn large_numbers_follow_their_literal() {
        for (body, large) in [
            (
                &br#"{"n_results": 100000000000000000000}"#[..],
                LargeNumbers::Integers,
            ),
            (
                br#"{"n_results": -18446744073709551616, "question": "q"}"#,
                LargeNumbers::Integers,
            ),
            (br#"{"n_results": 1e20}"#, LargeNumbers::Floats),
            (br#"{"n_results": 1.0}"#, LargeNumbers::Floats),
            (br#"{"question": "q"}"#, LargeNumbers::Floats),
            (br#"not json"#, LargeNumbers::Floats),
        ] {
            assert_eq!(
                large_numbers_in(body),
                large,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        let big: Value = serde_json::from_str("100000000000000000000").unwrap();
        assert_eq!(
            lax_int(&big, LargeNumbers::Integers),
            Ok(100_000_000_000_000_000_000)
        );
        assert_eq!(
            lax_int(&json!(-1.8446744073709552e19), LargeNumbers::Integers),
            Ok(-18_446_744_073_709_551_616)
        );
        assert_eq!(
            lax_int(&big, LargeNumbers::Floats).map_err(|e| e.kind),
            Err("int_parsing_size")
        );
        assert_eq!(
            lax_int(&json!(2.5), LargeNumbers::Integers).map_err(|e| e.kind),
            Err("int_from_float")
        );
    }

    #[test]
    fn lax_integers_follow_pydantic() {
        assert_eq!(n(json!(3)), Ok(3));
        assert_eq!(n(json!(2.0)), Ok(2));
        assert_eq!(n(json!(1e18)), Ok(1_000_000_000_000_000_000));
        assert_eq!(n(json!(true)), Ok(1));
        assert_eq!(n(json!(false)), Ok(0));
        assert_eq!(n(json!(" 3 ")), Ok(3));
        assert_eq!(n(json!("+3")), Ok(3));
        assert_eq!(n(json!("-3")), Ok(-3));
        assert_eq!(n(json!("1_0")), Ok(10));
        assert_eq!(n(json!("3.0")), Ok(3));
        assert!(n(json!("99999999999999999999999")).is_ok_and(|v| v > 1 << 70));
        assert_eq!(n(json!(2.5)), Err("int_from_float"));
        assert_eq!(n(json!(9.3e18)), Err("int_parsing_size"));
        assert_eq!(n(json!(-9.3e18)), Err("int_parsing_size"));
        assert_eq!(n(json!("3.5")), Err("int_parsing"));
        assert_eq!(n(json!("1e3")), Err("int_parsing"));
        assert_eq!(n(json!("x")), Err("int_parsing"));
        assert_eq!(n(json!("1__0")), Err("int_parsing"));
        assert_eq!(n(json!("")), Err("int_parsing"));
        assert_eq!(n(json!(null)), Err("int_type"));
        assert_eq!(n(json!([1])), Err("int_type"));
        assert_eq!(n(json!({})), Err("int_type"));
    }

    #[test]
    fn body_errors_list_every_field_in_order() {
        let errors =
            parse_body(Some(&json!({"n_results": [1]})), LargeNumbers::Floats).unwrap_err();
        assert_eq!(
            Value::Array(errors),
            json!([
                {"type": "missing", "loc": ["body", "question"], "msg": "Field required",
                 "input": {"n_results": [1]}},
                {"type": "int_type", "loc": ["body", "n_results"],
                 "msg": "Input should be a valid integer", "input": [1]}
            ])
        );
        assert_eq!(
            parse_body(Some(&json!({"question": "q"})), LargeNumbers::Floats),
            Ok(QueryBody {
                question: "q".into(),
                n_results: 10
            })
        );
        assert_eq!(
            Value::Array(parse_body(None, LargeNumbers::Floats).unwrap_err()),
            json!([{"type": "missing", "loc": ["body"], "msg": "Field required", "input": null}])
        );
        assert_eq!(
            parse_body(Some(&json!([1])), LargeNumbers::Floats).unwrap_err()[0]["type"],
            "model_attributes_type"
        );
    }
}

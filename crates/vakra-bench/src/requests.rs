//! The request list: JSONL lines with `path` and `params`, turned into URLs the way the
//! reference's Python client builds them.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use reqwest::Url;
use serde_json::Value;

use crate::target::ensure_loopback;

/// Reads a JSONL request list and builds one URL per non-empty line against `base`.
///
/// Each line is an object with `path` (a string starting with `/`) and `params` (an object of
/// scalar values; may be absent). Other fields are ignored.
pub fn load(file: &Path, base: &Url) -> Result<Vec<Url>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("cannot read the request list {}", file.display()))?;
    let mut urls = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let url = parse_line(line, base)
            .with_context(|| format!("{} line {}", file.display(), index + 1))?;
        urls.push(url);
    }
    if urls.is_empty() {
        bail!("{} holds no requests", file.display());
    }
    Ok(urls)
}

/// Builds the URL for one JSONL line.
fn parse_line(line: &str, base: &Url) -> Result<Url> {
    let value: Value = serde_json::from_str(line).context("not valid JSON")?;
    let Some(path) = value.get("path").and_then(Value::as_str) else {
        bail!("no string field \"path\"");
    };
    let params = match value.get("params") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(params)) => params.clone(),
        Some(_) => bail!("\"params\" is not an object"),
    };
    build_url(base, path, &params)
}

/// Builds `base + path + '?' + urlencoded params` (no `?` without params), and checks that
/// the result still points at loopback.
pub fn build_url(base: &Url, path: &str, params: &serde_json::Map<String, Value>) -> Result<Url> {
    if !path.starts_with('/') {
        bail!("path {path:?} does not start with '/'");
    }
    if base.query().is_some() || base.fragment().is_some() {
        bail!("the base URL {base} must not have a query or fragment");
    }
    let mut text = format!("{}{path}", base.as_str().trim_end_matches('/'));
    for (index, (key, value)) in params.iter().enumerate() {
        let value = py_str(value).with_context(|| format!("params.{key}"))?;
        text.push(if index == 0 { '?' } else { '&' });
        quote_plus(&mut text, key);
        text.push('=');
        quote_plus(&mut text, &value);
    }
    let url = Url::parse(&text).with_context(|| format!("invalid URL {text:?}"))?;
    ensure_loopback(&url)?;
    Ok(url)
}

/// Appends `text` encoded as Python's `urllib.parse.quote_plus` does: letters, digits and
/// `_.-~` stay, a space becomes `+`, every other UTF-8 byte becomes `%XX`.
fn quote_plus(out: &mut String, text: &str) {
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
}

/// Stringifies a scalar JSON value as Python's `str()` would after `json.loads`.
fn py_str(value: &Value) -> Result<String> {
    Ok(match value {
        Value::String(text) => text.clone(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                int.to_string()
            } else if let Some(int) = number.as_u64() {
                int.to_string()
            } else {
                py_float_repr(number.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::Array(_) | Value::Object(_) => bail!("not a scalar value"),
    })
}

/// Python's `repr(float)`: the shortest round-tripping digits, in positional notation when
/// the decimal exponent is in `-4..16` (always with a fractional part), otherwise as
/// `d.ddde±XX`.
fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    // `{:e}` gives the shortest round-tripping digits, e.g. "1.2345e-7" or "0e0".
    let scientific = format!("{:e}", x.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let (first, rest) = digits.split_at(1);
    if !(-4..16).contains(&exponent) {
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!(
            "{sign}{first}{fraction}e{exp_sign}{:02}",
            exponent.unsigned_abs()
        );
    }
    if exponent < 0 {
        let zeros = "0".repeat(exponent.unsigned_abs() as usize - 1);
        return format!("{sign}0.{zeros}{digits}");
    }
    let int_len = exponent as usize + 1;
    if digits.len() <= int_len {
        let zeros = "0".repeat(int_len - digits.len());
        format!("{sign}{digits}{zeros}.0")
    } else {
        let (int, fraction) = digits.split_at(int_len);
        format!("{sign}{int}.{fraction}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> Url {
        Url::parse("http://127.0.0.1:8000").unwrap()
    }

    #[test]
    fn floats_print_like_python_repr() {
        let cases = [
            (2.0, "2.0"),
            (0.1, "0.1"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (-1.5, "-1.5"),
            (123.456, "123.456"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (12345678901234567890.0, "1.2345678901234567e+19"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            (f64::INFINITY, "inf"),
        ];
        for (value, expected) in cases {
            assert_eq!(py_float_repr(value), expected, "{value:e}");
        }
    }

    #[test]
    fn scalars_stringify_like_python_str() {
        let strs: Vec<String> = [
            json!("a b"),
            json!(3),
            json!(-7),
            json!(18446744073709551615u64),
            json!(2.0),
            json!(true),
            json!(false),
            json!(null),
        ]
        .iter()
        .map(|v| py_str(v).unwrap())
        .collect();
        assert_eq!(
            strs,
            [
                "a b",
                "3",
                "-7",
                "18446744073709551615",
                "2.0",
                "True",
                "False",
                "None"
            ]
        );
        assert!(py_str(&json!([1])).is_err());
        assert!(py_str(&json!({"a": 1})).is_err());
    }

    #[test]
    fn urls_are_form_encoded_in_order() {
        let params = json!({"county": "Los Angeles", "limit": 3, "ratio": 2.0, "q": "a&b=c/é~*", "flag": true});
        let url = build_url(&base(), "/v1/x/y", params.as_object().unwrap()).unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:8000/v1/x/y?county=Los+Angeles&limit=3&ratio=2.0&q=a%26b%3Dc%2F%C3%A9~%2A&flag=True"
        );
        let url = build_url(&base(), "/openapi.json", &serde_json::Map::new()).unwrap();
        assert_eq!(url.as_str(), "http://127.0.0.1:8000/openapi.json");
        let prefixed = Url::parse("http://localhost:9/api/").unwrap();
        let url = build_url(&prefixed, "/v1/a", &serde_json::Map::new()).unwrap();
        assert_eq!(url.as_str(), "http://localhost:9/api/v1/a");
    }

    #[test]
    fn bad_paths_and_lines_are_refused() {
        let empty = serde_json::Map::new();
        assert!(build_url(&base(), "v1/x", &empty).is_err());
        assert!(build_url(&base(), "@example.com/x", &empty).is_err());
        assert!(parse_line("{", &base()).is_err());
        assert!(parse_line(r#"{"params": {}}"#, &base()).is_err());
        assert!(parse_line(r#"{"path": "/a", "params": [1]}"#, &base()).is_err());
        assert!(parse_line(r#"{"path": "/a", "params": {"x": [1]}}"#, &base()).is_err());
        assert!(parse_line(r#"{"path": "/a"}"#, &base()).is_ok());
    }

    #[test]
    fn load_reports_line_numbers() {
        let dir = std::env::temp_dir().join(format!("vakra-load-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("requests.jsonl");
        std::fs::write(
            &file,
            "{\"path\": \"/a\", \"params\": {}}\n\n{\"path\": 1}\n",
        )
        .unwrap();
        let error = format!("{:#}", load(&file, &base()).unwrap_err());
        assert!(error.contains("line 3"), "{error}");
        std::fs::write(&file, "\n").unwrap();
        assert!(load(&file, &base()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

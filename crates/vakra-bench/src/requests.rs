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
    match value {
        Value::Array(_) | Value::Object(_) => bail!("not a scalar value"),
        scalar => Ok(vakra_pytext::py_str(scalar)),
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

//! The exact texts the reference's REST wrapper returns to agents.

use serde_json::Value;
use vakra_pytext::DumpOptions;

/// A successful call: `json.dumps(body, indent=2)` (ASCII escapes, Python float repr).
pub(crate) fn success(body: &Value) -> String {
    vakra_pytext::dumps(body, &DumpOptions::indent2()).unwrap_or_else(|e| format!("Error: {e}"))
}

/// What httpx's `raise_for_status()` says, as the wrapper reports it (never the body).
pub(crate) fn http_error(status: u16, url: &str) -> String {
    let (class, reason) = match status {
        404 => ("Client", "Not Found"),
        405 => ("Client", "Method Not Allowed"),
        422 => ("Client", "Unprocessable Entity"),
        400..=499 => ("Client", "Client Error"),
        _ => ("Server", "Internal Server Error"),
    };
    format!(
        "Error calling API: {class} error '{status} {reason}' for url '{url}'\n\
         For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/{status}"
    )
}

/// The URL the wrapper would have requested: base + path + `urllib.parse.urlencode(params)`.
pub(crate) fn request_url(base: &str, path: &str, query: &[(String, String)]) -> String {
    let mut url = format!("{base}{path}");
    for (i, (key, value)) in query.iter().enumerate() {
        url.push(if i == 0 { '?' } else { '&' });
        quote_plus(key, &mut url);
        url.push('=');
        quote_plus(value, &mut url);
    }
    url
}

/// Python's `urllib.parse.quote_plus` with no extra safe characters.
fn quote_plus(text: &str, out: &mut String) {
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_quoting_matches_urlencode() {
        let q = vec![("class_label".to_owned(), "Machine Learning é/&?".to_owned())];
        assert_eq!(
            request_url("http://localhost:8000", "/v1/citeseer/x", &q),
            "http://localhost:8000/v1/citeseer/x?class_label=Machine+Learning+%C3%A9%2F%26%3F"
        );
        assert_eq!(request_url("http://h", "/p", &[]), "http://h/p");
    }

    #[test]
    fn error_text_has_two_lines() {
        assert_eq!(
            http_error(500, "http://localhost:8000/v1/a/b?x=1"),
            "Error calling API: Server error '500 Internal Server Error' for url 'http://localhost:8000/v1/a/b?x=1'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/500"
        );
        assert!(
            http_error(422, "u").starts_with(
                "Error calling API: Client error '422 Unprocessable Entity' for url 'u'"
            )
        );
    }
}

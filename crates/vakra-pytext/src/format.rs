//! Python's `str.format`, as the reference fills its prompt templates.

/// Python's `str.format` with named fields only: `{name}` replaced, `{{`/`}}` unescaped.
pub fn python_format(template: &str, fields: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
        } else if let Some(end) = tail.find('}').filter(|_| tail.starts_with('{')) {
            let name = &tail[1..end];
            match fields.iter().find(|(n, _)| *n == name) {
                Some((_, value)) => out.push_str(value),
                None => out.push_str(&tail[..=end]),
            }
            rest = &tail[end + 1..];
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_format_fills_named_fields_only() {
        assert_eq!(
            python_format("{{\"score\": {a}}} {b} {c}", &[("a", "1"), ("b", "{x}")]),
            "{\"score\": 1} {x} {c}"
        );
    }
}

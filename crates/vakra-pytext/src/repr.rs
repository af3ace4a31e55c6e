//! CPython's `repr()` and `str()` of values produced by `json.loads`.

use serde_json::{Number, Value};

use crate::{float::float_repr, push_hex, unicode::is_printable};

/// Python `repr()` of `value` as loaded by `json.loads`, because Python
/// messages quote values this way (jsonschema's `'12' is not of type
/// 'integer'`). Characters that `str.isprintable` rejects are escaped.
pub fn py_repr(value: &Value) -> String {
    let mut out = String::new();
    push_repr(&mut out, value);
    out
}

/// Python `str()` of `value` as loaded by `json.loads`: like [`py_repr`]
/// except that a top-level string is returned as is, as when Python code
/// interpolates or urlencodes an argument.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

fn push_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => push_number(out, n),
        Value::String(s) => push_str_repr(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_str_repr(out, key);
                out.push_str(": ");
                push_repr(out, item);
            }
            out.push('}');
        }
    }
}

fn push_number(out: &mut String, n: &Number) {
    match n.as_f64() {
        Some(x) if n.is_f64() => match crate::digits::digits_of(x) {
            Some(digits) => out.push_str(&digits),
            None => out.push_str(&float_repr(x)),
        },
        _ => out.push_str(&n.to_string()),
    }
}

/// Python's `repr()` of a `str`: single quotes unless the text has a single
/// quote and no double quote.
pub fn str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_str_repr(&mut out, s);
    out
}

fn push_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    push_str_repr_body(out, s, quote);
    out.push(quote);
}

/// The inside of `repr(s)` when it is delimited by `quote` (`ast.unparse`
/// writes f-string parts this way).
pub fn push_str_repr_body(out: &mut String, s: &str, quote: char) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c => push_escape(out, c),
        }
    }
}

/// Python's `repr()` of a `bytes` value.
pub fn bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(char::from(quote));
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b if b == quote => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => push_escape(&mut out, char::from(b)),
        }
    }
    out.push(char::from(quote));
    out
}

/// Python's `ascii()` of a value whose `repr()` is `repr`: every non-ASCII
/// character escaped.
pub fn ascii(repr: &str) -> String {
    let mut out = String::with_capacity(repr.len());
    for c in repr.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            push_escape(&mut out, c);
        }
    }
    out
}

/// Appends `\x`, `\u` or `\U` and the code point in lowercase hex, the
/// narrowest form that fits, as `repr` and the `unicode_escape` codec do.
pub fn push_escape(out: &mut String, c: char) {
    let code = u32::from(c);
    let (prefix, width) = match code {
        0..=0xff => ("\\x", 2),
        0x100..=0xffff => ("\\u", 4),
        _ => ("\\U", 8),
    };
    out.push_str(prefix);
    push_hex(out, code, width);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_match_python_repr() {
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(str_repr("tab\there\n"), "'tab\\there\\n'");
        assert_eq!(
            str_repr("\u{7f}\u{a0}é\u{200b}😀"),
            "'\\x7f\\xa0é\\u200b😀'"
        );
        assert_eq!(bytes_repr(b"a'\x00\xff"), "b\"a'\\x00\\xff\"");
    }
}

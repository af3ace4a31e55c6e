//! CPython's `repr()` and `str()` of values produced by `json.loads`.

use serde_json::{Number, Value};

use crate::{float::float_repr, push_hex};

/// Python `repr()` of `value` as loaded by `json.loads`, because Python
/// messages quote values this way (jsonschema's `'12' is not of type
/// 'integer'`).
///
/// Non-printable characters are escaped as CPython does, except that code
/// points unassigned in Python's Unicode database (other than
/// noncharacters) are treated as printable.
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

/// `repr(str)`: single quotes unless the text has a single quote and no
/// double quote.
fn push_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
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
            c => {
                let code = u32::from(c);
                if code <= 0xff {
                    out.push_str("\\x");
                    push_hex(out, code, 2);
                } else if code <= 0xffff {
                    out.push_str("\\u");
                    push_hex(out, code, 4);
                } else {
                    out.push_str("\\U");
                    push_hex(out, code, 8);
                }
            }
        }
    }
    out.push(quote);
}

/// Code point ranges that are not printable for Python's `str.isprintable`
/// because their category is Cc, Cf, Zs (except the space), Zl, Zp or Co, as
/// of Unicode 14.0 (Python 3.11). Surrogates cannot occur in a Rust string.
const NON_PRINTABLE: &[(u32, u32)] = &[
    (0x0000, 0x001f),
    (0x007f, 0x00a0),
    (0x00ad, 0x00ad),
    (0x0600, 0x0605),
    (0x061c, 0x061c),
    (0x06dd, 0x06dd),
    (0x070f, 0x070f),
    (0x0890, 0x0891),
    (0x08e2, 0x08e2),
    (0x1680, 0x1680),
    (0x180e, 0x180e),
    (0x2000, 0x200f),
    (0x2028, 0x202f),
    (0x205f, 0x2064),
    (0x2066, 0x206f),
    (0x3000, 0x3000),
    (0xe000, 0xf8ff),
    (0xfeff, 0xfeff),
    (0xfff9, 0xfffb),
    (0x110bd, 0x110bd),
    (0x110cd, 0x110cd),
    (0x13430, 0x13438),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0001, 0xe0001),
    (0xe0020, 0xe007f),
    (0xf0000, 0xffffd),
    (0x100000, 0x10fffd),
];

fn is_printable(c: char) -> bool {
    let code = u32::from(c);
    let noncharacter = (0xfdd0..=0xfdef).contains(&code) || code & 0xfffe == 0xfffe;
    !noncharacter
        && NON_PRINTABLE
            .binary_search_by(|&(lo, hi)| {
                if hi < code {
                    std::cmp::Ordering::Less
                } else if lo > code {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_err()
}

//! CPython's `repr` of str, bytes and float constants, and the quote
//! selection `ast.unparse` uses inside f-strings.

use crate::printable::is_printable;

/// Quotes `ast.unparse` may choose from, in order of preference.
pub(crate) const ALL_QUOTES: [&str; 4] = ["'", "\"", "\"\"\"", "'''"];

/// Appends `\x`, `\u` or `\U` and the code point in lowercase hex, the
/// narrowest form that fits, as `repr` and the `unicode_escape` codec do.
fn push_escape(out: &mut String, c: char) {
    let code = u32::from(c);
    let (prefix, width) = match code {
        0..=0xff => ("\\x", 2),
        0x100..=0xffff => ("\\u", 4),
        _ => ("\\U", 8),
    };
    out.push_str(prefix);
    out.push_str(&format!("{code:0width$x}"));
}

/// `repr(s)`: single quotes unless the text has a `'` and no `"`.
pub(crate) fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    push_repr_body(&mut out, s, quote);
    out.push(quote);
    out
}

/// The inside of `repr(s)` when it is delimited by `quote`.
pub(crate) fn push_repr_body(out: &mut String, s: &str, quote: char) {
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
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c if !c.is_ascii() && is_printable(c) => out.push(c),
            c => push_escape(out, c),
        }
    }
}

/// `repr(b)` of a bytes value.
pub(crate) fn repr_bytes(bytes: &[u8]) -> String {
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

/// `repr(x)` of a float, with the shortest digits that round-trip:
/// positional between 1e-4 and 1e16 (`20.0`, `0.0001`), scientific
/// otherwise (`1e-05`, `1e+16`), `inf` and `nan` for non-finite values.
pub(crate) fn repr_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // `{:e}` finds how many digits are needed to round-trip, but among
    // equally short candidates it does not always pick the closest one, as
    // Python does; exact formatting at that precision does.
    let shortest = format!("{x:e}");
    let needed = shortest
        .split('e')
        .next()
        .unwrap_or("")
        .bytes()
        .filter(u8::is_ascii_digit)
        .count();
    let sci = format!("{x:.*e}", needed.saturating_sub(1));
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = sign.to_owned();
    if !(-4..16).contains(&exponent) {
        let (first, rest) = digits.split_at(digits.len().min(1));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        out.push_str(&format!("e{exp_sign}{:02}", exponent.unsigned_abs()));
    } else if exponent < 0 {
        out.push_str("0.");
        for _ in 1..exponent.unsigned_abs() {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exponent.unsigned_abs() as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            let (int_part, frac_part) = digits.split_at(int_len);
            out.push_str(int_part);
            out.push('.');
            out.push_str(frac_part);
        }
    }
    out
}

/// CPython's `_Unparser._str_literal_helper`: escapes `s` for use inside
/// one of `quote_types` (escaping `\n` and `\t` only when
/// `escape_special_whitespace`), and returns the escaped text with the
/// quotes that can still delimit it, best first.
pub(crate) fn str_literal_helper(
    s: &str,
    quote_types: &[&'static str],
    escape_special_whitespace: bool,
) -> (String, Vec<&'static str>) {
    let mut escaped = String::with_capacity(s.len());
    push_literal_escaped(&mut escaped, s, escape_special_whitespace);
    match quote_choices(&mut escaped, quote_types) {
        Some(quotes) => (escaped, quotes),
        None => repr_fallback(s, quote_types),
    }
}

/// The escaping half of `_str_literal_helper`: backslashes and
/// non-printable characters, and `\n`/`\t` only when
/// `escape_special_whitespace`.
pub(crate) fn push_literal_escaped(out: &mut String, s: &str, escape_special_whitespace: bool) {
    for c in s.chars() {
        match c {
            '\n' | '\t' if !escape_special_whitespace => out.push(c),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_printable(c) => out.push(c),
            c => push_escape(out, c),
        }
    }
}

/// The quote-choosing half of `_str_literal_helper`: the quotes among
/// `quote_types` that can delimit the already escaped text, best first
/// (escaping a final character that would merge with the closing quote),
/// or `None` when none can.
pub(crate) fn quote_choices(
    escaped: &mut String,
    quote_types: &[&'static str],
) -> Option<Vec<&'static str>> {
    let multiline = escaped.contains('\n');
    let mut possible: Vec<&'static str> = quote_types
        .iter()
        .copied()
        .filter(|q| (!multiline || q.len() == 3) && !escaped.contains(q))
        .collect();
    let first = *possible.first()?;
    if let Some(last) = escaped.chars().next_back() {
        possible.sort_by_key(|q| q.starts_with(last));
        if possible.first().unwrap_or(&first).starts_with(last) {
            escaped.pop();
            escaped.push('\\');
            escaped.push(last);
        }
    }
    Some(possible)
}

/// `_str_literal_helper`'s last resort when no quote fits: `repr(s)`
/// without its quotes, and the quote it used.
fn repr_fallback(s: &str, quote_types: &[&'static str]) -> (String, Vec<&'static str>) {
    let repr = repr_str(s);
    let first = if repr.starts_with('"') { "\"" } else { "'" };
    let quote = quote_types
        .iter()
        .copied()
        .find(|q| q.contains(first))
        .unwrap_or(first);
    let body = repr[1..repr.len() - 1].to_owned();
    (body, vec![quote])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_match_python_repr() {
        let cases = [
            (1e-5, "1e-05"),
            (20.0, "20.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.1, "0.1"),
            (1.5e-7, "1.5e-07"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.0, "0.0"),
            (-2.5, "-2.5"),
            (1e300, "1e+300"),
            (99.99880981445312, "99.99880981445312"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ];
        for (value, expected) in cases {
            assert_eq!(repr_float(value), expected);
        }
    }

    #[test]
    fn strings_match_python_repr() {
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(repr_str("tab\there\n"), "'tab\\there\\n'");
        assert_eq!(
            repr_str("\u{7f}\u{a0}é\u{200b}😀"),
            "'\\x7f\\xa0é\\u200b😀'"
        );
        assert_eq!(repr_bytes(b"a'\x00\xff"), "b\"a'\\x00\\xff\"");
    }
}

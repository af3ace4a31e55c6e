//! CPython's `repr` of str and bytes constants, and the quote selection
//! `ast.unparse` uses inside f-strings (floats are `vakra_pyjson::float_repr`).

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

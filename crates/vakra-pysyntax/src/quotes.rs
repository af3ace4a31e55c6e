//! How `ast.unparse` quotes string literals: CPython's
//! `_Unparser._str_literal_helper` and the quote kinds it may choose from
//! (`repr` itself is `vakra_pytext::str_repr`).

use vakra_pytext::{is_printable, push_escape, str_repr};

/// Quotes `ast.unparse` may choose from, in order of preference.
pub(crate) const ALL_QUOTES: [&str; 4] = ["'", "\"", "\"\"\"", "'''"];

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
    let repr = str_repr(s);
    let first = if repr.starts_with('"') { "\"" } else { "'" };
    let quote = quote_types
        .iter()
        .copied()
        .find(|q| q.contains(first))
        .unwrap_or(first);
    let body = repr[1..repr.len() - 1].to_owned();
    (body, vec![quote])
}

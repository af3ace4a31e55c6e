//! Python regular expressions for `filter_data`'s `contains`: the pattern is parsed with
//! Python 3.11's grammar (so invalid patterns fail with Python's `re.error` text and position),
//! then translated into an equivalent `fancy-regex` pattern, which runs the regular parts on
//! the linear-time `regex` engine and bounds backtracking for the rest.

mod parse;
mod tree;
mod width;

use std::fmt::Write;

use fancy_regex::{Regex, RegexBuilder};

use crate::error::ToolError;
use tree::{
    At, Category, FLAG_ASCII, FLAG_DOTALL, FLAG_IGNORECASE, FLAG_MULTILINE, MAXREPEAT, Node,
    RepeatKind, SetItem,
};

/// `re.compile(pattern, flags)` for a str pattern, ready for `search`.
pub(crate) struct PyRegex {
    regex: Regex,
}

/// The backtracking budget per search: Python has none, but a tool call must stay bounded.
const BACKTRACK_LIMIT: usize = 1_000_000;

impl PyRegex {
    /// Compiles `pattern` with `re.IGNORECASE` when `ignore_case`, failing with Python's error
    /// text for invalid patterns.
    pub(crate) fn compile(pattern: &str, ignore_case: bool) -> Result<PyRegex, ToolError> {
        let parsed = parse::parse(pattern).map_err(|e| ToolError::new(e.message))?;
        check_lookbehinds(&parsed.nodes, &parsed.group_widths)?;
        let mut flags = parsed.flags;
        if ignore_case {
            flags |= FLAG_IGNORECASE;
        }
        let ctx = Ctx::from_flags(flags);
        let mut out = String::new();
        if ctx.ignore_case {
            out.push_str("(?i)");
        }
        emit_seq(&parsed.nodes, ctx, &parsed.group_widths, &mut out);
        let regex = RegexBuilder::new(&out)
            .backtrack_limit(BACKTRACK_LIMIT)
            .build()
            .map_err(|e| {
                ToolError::new(format!("regular expression could not be compiled: {e}"))
            })?;
        Ok(PyRegex { regex })
    }

    /// `pattern.search(text) is not None`.
    pub(crate) fn search(&self, text: &str) -> Result<bool, ToolError> {
        self.regex
            .is_match(text)
            .map_err(|e| ToolError::new(format!("regular expression search failed: {e}")))
    }
}

/// The compiler's checks on lookbehinds, which have no position in their message.
fn check_lookbehinds(nodes: &[Node], groups: &[(u128, u128)]) -> Result<(), ToolError> {
    for node in nodes {
        match node {
            Node::Assert { behind, body, .. } => {
                if *behind {
                    let (lo, hi) = width::width(body, groups);
                    if lo > u128::from(u32::MAX) {
                        return Err(ToolError::new("looks too much behind"));
                    }
                    if lo != hi {
                        return Err(ToolError::new("look-behind requires fixed-width pattern"));
                    }
                }
                check_lookbehinds(body, groups)?;
            }
            Node::Branch(items) => {
                for item in items {
                    check_lookbehinds(item, groups)?;
                }
            }
            Node::Group { body, .. } | Node::Repeat { body, .. } | Node::Atomic(body) => {
                check_lookbehinds(body, groups)?;
            }
            Node::GroupRefExists { yes, no, .. } => {
                check_lookbehinds(yes, groups)?;
                if let Some(no) = no {
                    check_lookbehinds(no, groups)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The flags in force at a point of the pattern.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    ignore_case: bool,
    multiline: bool,
    dotall: bool,
    ascii: bool,
}

impl Ctx {
    fn from_flags(flags: u32) -> Self {
        Ctx {
            ignore_case: flags & FLAG_IGNORECASE != 0,
            multiline: flags & FLAG_MULTILINE != 0,
            dotall: flags & FLAG_DOTALL != 0,
            ascii: flags & FLAG_ASCII != 0,
        }
    }

    fn apply(self, add: u32, del: u32) -> Self {
        let set = |on: bool, flag: u32| (on || add & flag != 0) && del & flag == 0;
        Ctx {
            ignore_case: set(self.ignore_case, FLAG_IGNORECASE),
            multiline: set(self.multiline, FLAG_MULTILINE),
            dotall: set(self.dotall, FLAG_DOTALL),
            ascii: set(self.ascii, FLAG_ASCII),
        }
    }
}

/// A pattern that never matches (Python literals can be lone surrogates, which no text holds).
const NEVER: &str = "[^\\x{0}-\\x{10FFFF}]";

fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

fn push_char(out: &mut String, c: u32) {
    let _ = write!(out, "\\x{{{c:X}}}");
}

/// A character and, for ASCII letters, its other case: with `re.ASCII`, `re.IGNORECASE` folds
/// only ASCII letters.
fn push_ascii_cases(out: &mut String, c: u32) {
    push_char(out, c);
    if let Some(ch) = char::from_u32(c).filter(char::is_ascii_alphabetic) {
        let other = if ch.is_ascii_lowercase() {
            ch.to_ascii_uppercase()
        } else {
            ch.to_ascii_lowercase()
        };
        push_char(out, u32::from(other));
    }
}

fn emit_seq(nodes: &[Node], ctx: Ctx, groups: &[(u128, u128)], out: &mut String) {
    for node in nodes {
        emit(node, ctx, groups, out);
    }
}

fn emit(node: &Node, ctx: Ctx, groups: &[(u128, u128)], out: &mut String) {
    match node {
        Node::Literal(c) => {
            if is_surrogate(*c) {
                out.push_str(NEVER);
            } else if ctx.ascii && ctx.ignore_case {
                out.push_str("(?-i:[");
                push_ascii_cases(out, *c);
                out.push_str("])");
            } else {
                push_char(out, *c);
            }
        }
        Node::NotLiteral(c) => {
            if is_surrogate(*c) {
                out.push_str("(?s:.)");
            } else if ctx.ascii && ctx.ignore_case {
                out.push_str("(?-i:[^");
                push_ascii_cases(out, *c);
                out.push_str("])");
            } else {
                out.push_str("[^");
                push_char(out, *c);
                out.push(']');
            }
        }
        Node::Any => out.push_str(if ctx.dotall { "(?s:.)" } else { "[^\\n]" }),
        Node::In { negate, items } => emit_set(*negate, items, ctx, out),
        Node::At(at) => out.push_str(match at {
            At::Beginning if ctx.multiline => "(?m:^)",
            At::Beginning | At::BeginningString => "\\A",
            At::End if ctx.multiline => "(?m:$)",
            At::End => "(?:\\z|(?=\\n\\z))",
            At::EndString => "\\z",
            At::Boundary if ctx.ascii => {
                "(?:(?<![0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<=[0-9A-Za-z_])(?![0-9A-Za-z_]))"
            }
            At::NonBoundary if ctx.ascii => {
                "(?:(?!\\A\\z)(?:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_])))"
            }
            At::Boundary => "\\b",
            // Python's `\B` never matches inside an empty string.
            At::NonBoundary => "(?:\\B(?!\\A\\z))",
        }),
        Node::Branch(items) => {
            out.push_str("(?:");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit_seq(item, ctx, groups, out);
            }
            out.push(')');
        }
        Node::Group {
            index,
            add,
            del,
            body,
        } => {
            let inner = ctx.apply(*add, *del);
            out.push_str(if index.is_some() { "(" } else { "(?:" });
            if inner.ignore_case != ctx.ignore_case {
                out.push_str(if inner.ignore_case { "(?i:" } else { "(?-i:" });
                emit_seq(body, inner, groups, out);
                out.push(')');
            } else {
                emit_seq(body, inner, groups, out);
            }
            out.push(')');
        }
        Node::Repeat {
            kind,
            min,
            max,
            body,
        } => emit_repeat(*kind, *min, *max, body, ctx, groups, out),
        Node::GroupRef(g) => {
            let _ = write!(out, "\\k<{g}>");
        }
        Node::GroupRefExists { group, yes, no } => {
            let _ = write!(out, "(?({group})");
            emit_seq(yes, ctx, groups, out);
            out.push('|');
            if let Some(no) = no {
                emit_seq(no, ctx, groups, out);
            }
            out.push(')');
        }
        Node::Assert {
            negate,
            behind,
            body,
        } => {
            out.push_str(match (behind, negate) {
                (false, false) => "(?=",
                (false, true) => "(?!",
                (true, false) => "(?<=",
                (true, true) => "(?<!",
            });
            emit_seq(body, ctx, groups, out);
            out.push(')');
        }
        Node::Atomic(body) => {
            out.push_str("(?>");
            emit_seq(body, ctx, groups, out);
            out.push(')');
        }
    }
}

/// Counted repeats above this bound are treated as unbounded (the automaton for them would
/// not fit the engine's size limit; the difference only shows on texts with that many
/// consecutive repetitions).
const LARGE_REPEAT: u64 = 1000;

fn emit_repeat(
    kind: RepeatKind,
    min: u64,
    max: u64,
    body: &[Node],
    ctx: Ctx,
    groups: &[(u128, u128)],
    out: &mut String,
) {
    // A repeated zero-width item matches like the item itself (or nothing at all).
    if width::width(body, groups).1 == 0 {
        if min > 0 {
            out.push_str("(?:");
            emit_seq(body, ctx, groups, out);
            out.push(')');
        }
        return;
    }
    out.push_str("(?:");
    emit_seq(body, ctx, groups, out);
    out.push(')');
    let max = if max != MAXREPEAT && max > LARGE_REPEAT {
        MAXREPEAT
    } else {
        max
    };
    match (min, max) {
        (0, MAXREPEAT) => out.push('*'),
        (1, MAXREPEAT) => out.push('+'),
        (_, MAXREPEAT) => {
            let _ = write!(out, "{{{min},}}");
        }
        (0, 1) => out.push('?'),
        _ if min == max => {
            let _ = write!(out, "{{{min}}}");
        }
        _ => {
            let _ = write!(out, "{{{min},{max}}}");
        }
    }
    match kind {
        RepeatKind::Greedy => {}
        RepeatKind::Lazy => out.push('?'),
        RepeatKind::Possessive => out.push('+'),
    }
}

/// The members of a Python character class in the Rust class syntax.
fn category_members(cat: Category, ascii: bool) -> &'static str {
    match (cat, ascii) {
        (Category::Digit, false) => "\\d",
        (Category::Digit, true) => "0-9",
        (Category::NotDigit, false) => "\\D",
        (Category::NotDigit, true) => "[^0-9]",
        (Category::Word, false) => "\\p{L}\\p{N}_",
        (Category::Word, true) => "0-9A-Za-z_",
        (Category::NotWord, false) => "[^\\p{L}\\p{N}_]",
        (Category::NotWord, true) => "[^0-9A-Za-z_]",
        (Category::Space, false) => {
            "\\t\\n\\x{B}\\x{C}\\r\\x{1C}-\\x{1F} \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
        }
        (Category::Space, true) => " \\t\\n\\r\\x{B}\\x{C}",
        (Category::NotSpace, false) => {
            "[^\\t\\n\\x{B}\\x{C}\\r\\x{1C}-\\x{1F} \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}]"
        }
        (Category::NotSpace, true) => "[^ \\t\\n\\r\\x{B}\\x{C}]",
    }
}

fn emit_set(negate: bool, items: &[SetItem], ctx: Ctx, out: &mut String) {
    let mut body = String::new();
    for item in items {
        match *item {
            SetItem::Literal(c) => {
                if !is_surrogate(c) {
                    push_char(&mut body, c);
                }
            }
            SetItem::Range(lo, hi) => {
                for (a, b) in [(lo, hi.min(0xD7FF)), (lo.max(0xE000), hi)] {
                    if a <= b {
                        push_char(&mut body, a);
                        body.push('-');
                        push_char(&mut body, b);
                    }
                }
            }
            SetItem::Category(cat) => body.push_str(category_members(cat, ctx.ascii)),
        }
    }
    if body.is_empty() {
        out.push_str(if negate { "(?s:.)" } else { NEVER });
        return;
    }
    out.push('[');
    if negate {
        out.push('^');
    }
    out.push_str(&body);
    out.push(']');
}

//! The grammar of Python 3.11's `re` module (`re._parser`), with its error messages and
//! positions, producing a tree the translator turns into a Rust pattern.

use std::collections::HashMap;

use super::tree::{
    At, Category, FLAG_ASCII, FLAG_DEBUG, FLAG_DOTALL, FLAG_IGNORECASE, FLAG_LOCALE,
    FLAG_MULTILINE, FLAG_TEMPLATE, FLAG_UNICODE, FLAG_VERBOSE, MAXREPEAT, Node, RepeatKind,
    SetItem,
};
use crate::pystr::{PyInt, py_int};

const TYPE_FLAGS: u32 = FLAG_ASCII | FLAG_LOCALE | FLAG_UNICODE;
const GLOBAL_FLAGS: u32 = FLAG_DEBUG | FLAG_TEMPLATE;

const MAXGROUPS: usize = 1_073_741_823;
/// Nesting beyond this is refused: Python's own limit is its recursion depth, and the Rust
/// regex parser refuses deeper nesting anyway.
const MAX_DEPTH: usize = 200;

fn flag_of(c: char) -> Option<u32> {
    Some(match c {
        'i' => FLAG_IGNORECASE,
        'L' => FLAG_LOCALE,
        'm' => FLAG_MULTILINE,
        's' => FLAG_DOTALL,
        'x' => FLAG_VERBOSE,
        'a' => FLAG_ASCII,
        't' => FLAG_TEMPLATE,
        'u' => FLAG_UNICODE,
        _ => return None,
    })
}

/// `re.error` (or the `OverflowError` the parser raises for huge repeat counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ReError {
    pub(super) message: String,
}

/// A parsed pattern: the tree plus the flags set inline with `(?...)` at its start.
pub(super) struct Parsed {
    pub(super) nodes: Vec<Node>,
    pub(super) flags: u32,
    pub(super) group_widths: Vec<(u128, u128)>,
}

struct State {
    flags: u32,
    group_names: HashMap<String, usize>,
    /// Width of each closed group; `None` while open. Group 0 is the whole match.
    group_widths: Vec<Option<(u128, u128)>>,
    lookbehind_groups: Option<usize>,
    group_ref_pos: Vec<(usize, usize)>,
}

impl State {
    fn groups(&self) -> usize {
        self.group_widths.len()
    }

    fn check_group(&self, gid: usize) -> bool {
        gid < self.groups() && self.group_widths[gid].is_some()
    }
}

/// The tokenizer: one character, or a backslash and the character after it.
struct Source {
    chars: Vec<char>,
    index: usize,
    next: Option<Tok>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Tok {
    first: char,
    second: Option<char>,
}

impl Tok {
    fn len(self) -> usize {
        1 + usize::from(self.second.is_some())
    }

    fn is(self, c: char) -> bool {
        self.second.is_none() && self.first == c
    }

    fn push_to(self, s: &mut String) {
        s.push(self.first);
        if let Some(c) = self.second {
            s.push(c);
        }
    }
}

impl Source {
    fn new(pattern: &str) -> Result<Self, ReError> {
        let mut source = Source {
            chars: pattern.chars().collect(),
            index: 0,
            next: None,
        };
        source.advance()?;
        Ok(source)
    }

    fn advance(&mut self) -> Result<(), ReError> {
        let Some(&c) = self.chars.get(self.index) else {
            self.next = None;
            return Ok(());
        };
        let mut tok = Tok {
            first: c,
            second: None,
        };
        let mut index = self.index;
        if c == '\\' {
            index += 1;
            match self.chars.get(index) {
                Some(&d) => tok.second = Some(d),
                None => {
                    return Err(self.error_at("bad escape (end of pattern)", self.chars.len() - 1));
                }
            }
        }
        self.index = index + 1;
        self.next = Some(tok);
        Ok(())
    }

    fn matches(&mut self, c: char) -> Result<bool, ReError> {
        if self.next.is_some_and(|t| t.is(c)) {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn get(&mut self) -> Result<Option<Tok>, ReError> {
        let this = self.next;
        self.advance()?;
        Ok(this)
    }

    fn next_is(&self, c: char) -> bool {
        self.next.is_some_and(|t| t.is(c))
    }

    fn next_in(&self, set: impl Fn(char) -> bool) -> bool {
        self.next
            .is_some_and(|t| t.second.is_none() && set(t.first))
    }

    fn tell(&self) -> usize {
        self.index - self.next.map_or(0, Tok::len)
    }

    fn seek(&mut self, index: usize) -> Result<(), ReError> {
        self.index = index;
        self.advance()
    }

    fn getwhile(&mut self, n: usize, set: impl Fn(char) -> bool) -> Result<String, ReError> {
        let mut result = String::new();
        for _ in 0..n {
            match self.next {
                Some(t) if t.second.is_none() && set(t.first) => {
                    result.push(t.first);
                    self.advance()?;
                }
                _ => break,
            }
        }
        Ok(result)
    }

    fn getuntil(&mut self, terminator: char, name: &str) -> Result<String, ReError> {
        let mut result = String::new();
        loop {
            let c = self.next;
            self.advance()?;
            match c {
                None => {
                    if result.is_empty() {
                        return Err(self.error(&format!("missing {name}"), 0));
                    }
                    return Err(self.error(
                        &format!("missing {terminator}, unterminated name"),
                        result.chars().count(),
                    ));
                }
                Some(t) if t.is(terminator) => {
                    if result.is_empty() {
                        return Err(self.error(&format!("missing {name}"), 1));
                    }
                    return Ok(result);
                }
                Some(t) => t.push_to(&mut result),
            }
        }
    }

    fn error(&self, msg: &str, offset: usize) -> ReError {
        self.error_at(msg, self.tell().saturating_sub(offset))
    }

    /// `re.error(msg, pattern, pos)`: the message gains the position, and the line and column
    /// when the pattern spans several lines.
    fn error_at(&self, msg: &str, pos: usize) -> ReError {
        let mut message = format!("{msg} at position {pos}");
        if self.chars.contains(&'\n') {
            let before = &self.chars[..pos.min(self.chars.len())];
            let line = before.iter().filter(|c| **c == '\n').count() + 1;
            let column = match before.iter().rposition(|c| *c == '\n') {
                Some(nl) => pos - nl,
                None => pos + 1,
            };
            message.push_str(&format!(" (line {line}, column {column})"));
        }
        ReError { message }
    }

    fn check_group_name(&self, name: &str, offset: usize) -> Result<(), ReError> {
        if !is_identifier(name) {
            return Err(self.error(
                &format!(
                    "bad character in group name {}",
                    vakra_pytext::str_repr(name)
                ),
                name.chars().count() + offset,
            ));
        }
        Ok(())
    }
}

/// `str.isidentifier()`, approximated with Unicode alphabetic/alphanumeric classes.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_alphabetic() => chars.all(|c| c == '_' || c.is_alphanumeric()),
        _ => false,
    }
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}

fn is_octal(c: char) -> bool {
    ('0'..='7').contains(&c)
}

fn is_hex(c: char) -> bool {
    c.is_ascii_hexdigit()
}

fn category(tok: Tok) -> Option<Node> {
    let c = match tok.second? {
        'A' => return Some(Node::At(At::BeginningString)),
        'b' => return Some(Node::At(At::Boundary)),
        'B' => return Some(Node::At(At::NonBoundary)),
        'Z' => return Some(Node::At(At::EndString)),
        'd' => Category::Digit,
        'D' => Category::NotDigit,
        's' => Category::Space,
        'S' => Category::NotSpace,
        'w' => Category::Word,
        'W' => Category::NotWord,
        _ => return None,
    };
    Some(Node::In {
        negate: false,
        items: vec![SetItem::Category(c)],
    })
}

fn simple_escape(tok: Tok) -> Option<u32> {
    Some(match tok.second? {
        'a' => 7,
        'b' => 8,
        'f' => 12,
        'n' => 10,
        'r' => 13,
        't' => 9,
        'v' => 11,
        '\\' => 92,
        _ => return None,
    })
}

/// What an escape inside a class denotes.
enum ClassEscape {
    Literal(u32),
    Category(Category),
}

/// The `\x`, `\u`, `\U` and `\N{...}` escapes shared by both escape contexts; `None` when the
/// escape is not one of them.
fn code_escape(source: &mut Source, tok: Tok) -> Option<Result<u32, ReError>> {
    let c = tok.second?;
    let digits = match c {
        'x' => 2,
        'u' => 4,
        'U' => 8,
        'N' => return Some(named_escape(source)),
        _ => return None,
    };
    Some((|| {
        let hex = source.getwhile(digits, is_hex)?;
        let escape = format!("\\{c}{hex}");
        if hex.len() != digits {
            return Err(source.error(
                &format!("incomplete escape {escape}"),
                escape.chars().count(),
            ));
        }
        let value = u32::from_str_radix(&hex, 16).unwrap_or(u32::MAX);
        if value > 0x10_FFFF {
            return Err(source.error(&format!("bad escape {escape}"), escape.chars().count()));
        }
        Ok(value)
    })())
}

/// `\N{name}`: there is no Unicode name table here, so every name is reported undefined.
fn named_escape(source: &mut Source) -> Result<u32, ReError> {
    if !source.matches('{')? {
        return Err(source.error("missing {", 0));
    }
    let name = source.getuntil('}', "character name")?;
    Err(source.error(
        &format!("undefined character name {}", vakra_pytext::str_repr(&name)),
        name.chars().count() + 4,
    ))
}

fn class_escape(source: &mut Source, tok: Tok) -> Result<ClassEscape, ReError> {
    if let Some(code) = simple_escape(tok) {
        return Ok(ClassEscape::Literal(code));
    }
    if let Some(Node::In { items, .. }) = category(tok)
        && let Some(SetItem::Category(c)) = items.first()
    {
        return Ok(ClassEscape::Category(*c));
    }
    if let Some(result) = code_escape(source, tok) {
        return result.map(ClassEscape::Literal);
    }
    let c = tok.second.unwrap_or('\\');
    let mut escape = format!("\\{c}");
    if is_octal(c) {
        escape.push_str(&source.getwhile(2, is_octal)?);
        let value = u32::from_str_radix(&escape[1..], 8).unwrap_or(u32::MAX);
        if value > 0o377 {
            return Err(source.error(
                &format!("octal escape value {escape} outside of range 0-0o377"),
                escape.chars().count(),
            ));
        }
        return Ok(ClassEscape::Literal(value));
    }
    if !is_digit(c) && !c.is_ascii_alphabetic() {
        return Ok(ClassEscape::Literal(u32::from(c)));
    }
    Err(source.error(&format!("bad escape {escape}"), escape.chars().count()))
}

fn escape(source: &mut Source, tok: Tok, state: &mut State) -> Result<Node, ReError> {
    if let Some(node) = category(tok) {
        return Ok(node);
    }
    if let Some(code) = simple_escape(tok) {
        return Ok(Node::Literal(code));
    }
    if let Some(result) = code_escape(source, tok) {
        return result.map(Node::Literal);
    }
    let c = tok.second.unwrap_or('\\');
    let mut escape = format!("\\{c}");
    if c == '0' {
        escape.push_str(&source.getwhile(2, is_octal)?);
        return Ok(Node::Literal(
            u32::from_str_radix(&escape[1..], 8).unwrap_or(0),
        ));
    }
    if is_digit(c) {
        if source.next_in(is_digit) {
            if let Some(t) = source.get()? {
                escape.push(t.first);
            }
            let chars: Vec<char> = escape.chars().collect();
            if is_octal(chars[1]) && is_octal(chars[2]) && source.next_in(is_octal) {
                if let Some(t) = source.get()? {
                    escape.push(t.first);
                }
                let value = u32::from_str_radix(&escape[1..], 8).unwrap_or(u32::MAX);
                if value > 0o377 {
                    return Err(source.error(
                        &format!("octal escape value {escape} outside of range 0-0o377"),
                        escape.chars().count(),
                    ));
                }
                return Ok(Node::Literal(value));
            }
        }
        let group: usize = escape[1..].parse().unwrap_or(usize::MAX);
        if group < state.groups() {
            if !state.check_group(group) {
                return Err(source.error("cannot refer to an open group", escape.chars().count()));
            }
            check_lookbehind_group(state, group, source)?;
            return Ok(Node::GroupRef(group));
        }
        return Err(source.error(
            &format!("invalid group reference {group}"),
            escape.chars().count() - 1,
        ));
    }
    if !c.is_ascii_alphabetic() {
        return Ok(Node::Literal(u32::from(c)));
    }
    Err(source.error(&format!("bad escape {escape}"), escape.chars().count()))
}

fn check_lookbehind_group(state: &State, gid: usize, source: &Source) -> Result<(), ReError> {
    if let Some(first) = state.lookbehind_groups {
        if !state.check_group(gid) {
            return Err(source.error("cannot refer to an open group", 0));
        }
        if gid >= first {
            return Err(source.error(
                "cannot refer to group defined in the same lookbehind subpattern",
                0,
            ));
        }
    }
    Ok(())
}

/// Parses `pattern` as `re.compile` does (str pattern, no flags argument).
pub(super) fn parse(pattern: &str) -> Result<Parsed, ReError> {
    let mut source = Source::new(pattern)?;
    let mut state = State {
        flags: 0,
        group_names: HashMap::new(),
        group_widths: vec![None],
        lookbehind_groups: None,
        group_ref_pos: Vec::new(),
    };
    let nodes = parse_sub(&mut source, &mut state, false, 0)?;
    if state.flags & FLAG_LOCALE != 0 {
        return Err(ReError {
            message: "cannot use LOCALE flag with a str pattern".to_owned(),
        });
    }
    if state.flags & FLAG_ASCII != 0 && state.flags & FLAG_UNICODE != 0 {
        return Err(ReError {
            message: "ASCII and UNICODE flags are incompatible".to_owned(),
        });
    }
    if source.next.is_some() {
        return Err(source.error("unbalanced parenthesis", 0));
    }
    for &(group, pos) in &state.group_ref_pos {
        if group >= state.groups() {
            return Err(source.error_at(&format!("invalid group reference {group}"), pos));
        }
    }
    let group_widths = state
        .group_widths
        .iter()
        .map(|w| w.unwrap_or((0, 0)))
        .collect();
    Ok(Parsed {
        nodes,
        flags: state.flags,
        group_widths,
    })
}

fn parse_sub(
    source: &mut Source,
    state: &mut State,
    verbose: bool,
    nested: usize,
) -> Result<Vec<Node>, ReError> {
    if nested > MAX_DEPTH {
        return Err(ReError {
            message: "maximum recursion depth exceeded".to_owned(),
        });
    }
    let mut items = Vec::new();
    let mut verbose = verbose;
    loop {
        let first = nested == 0 && items.is_empty();
        items.push(parse_seq(source, state, verbose, nested + 1, first)?);
        if !source.matches('|')? {
            break;
        }
        if nested == 0 {
            verbose = state.flags & FLAG_VERBOSE != 0;
        }
    }
    if items.len() == 1 {
        return Ok(items.pop().unwrap_or_default());
    }
    Ok(vec![Node::Branch(items)])
}

fn parse_seq(
    source: &mut Source,
    state: &mut State,
    verbose: bool,
    nested: usize,
    first: bool,
) -> Result<Vec<Node>, ReError> {
    let mut verbose = verbose;
    let mut sub: Vec<Node> = Vec::new();
    while let Some(this) = source.next {
        if this.is('|') || this.is(')') {
            break;
        }
        source.advance()?;
        if verbose {
            if this.second.is_none()
                && matches!(this.first, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}')
            {
                continue;
            }
            if this.is('#') {
                loop {
                    match source.get()? {
                        None => break,
                        Some(t) if t.is('\n') => break,
                        Some(_) => {}
                    }
                }
                continue;
            }
        }
        if this.second.is_some() {
            sub.push(escape(source, this, state)?);
            continue;
        }
        match this.first {
            '[' => sub.push(parse_set(source)?),
            '*' | '+' | '?' | '{' => {
                if !parse_repeat(source, this.first, &mut sub)? {
                    sub.push(Node::Literal(u32::from('{')));
                }
            }
            '.' => sub.push(Node::Any),
            '(' => {
                if let Some(node) = parse_group(
                    source,
                    state,
                    verbose,
                    nested,
                    first && sub.is_empty(),
                    &mut verbose,
                )? {
                    sub.push(node);
                }
            }
            '^' => sub.push(Node::At(At::Beginning)),
            '$' => sub.push(Node::At(At::End)),
            c => sub.push(Node::Literal(u32::from(c))),
        }
    }
    // Unpack non-capturing groups without flags, as the reference's parser does.
    let mut out = Vec::with_capacity(sub.len());
    for node in sub {
        match node {
            Node::Group {
                index: None,
                add: 0,
                del: 0,
                body,
            } => out.extend(body),
            other => out.push(other),
        }
    }
    Ok(out)
}

fn parse_set(source: &mut Source) -> Result<Node, ReError> {
    let here = source.tell() - 1;
    let mut items: Vec<SetItem> = Vec::new();
    let negate = source.matches('^')?;
    loop {
        let Some(this) = source.get()? else {
            return Err(source.error("unterminated character set", source.tell() - here));
        };
        if this.is(']') && !items.is_empty() {
            break;
        }
        let code1 = if this.second.is_some() {
            class_escape(source, this)?
        } else {
            ClassEscape::Literal(u32::from(this.first))
        };
        if source.matches('-')? {
            let Some(that) = source.get()? else {
                return Err(source.error("unterminated character set", source.tell() - here));
            };
            if that.is(']') {
                items.push(set_item(code1));
                items.push(SetItem::Literal(u32::from('-')));
                break;
            }
            let code2 = if that.second.is_some() {
                class_escape(source, that)?
            } else {
                ClassEscape::Literal(u32::from(that.first))
            };
            let range_text = || {
                let mut s = String::new();
                this.push_to(&mut s);
                s.push('-');
                that.push_to(&mut s);
                s
            };
            match (code1, code2) {
                (ClassEscape::Literal(lo), ClassEscape::Literal(hi)) if hi >= lo => {
                    items.push(SetItem::Range(lo, hi));
                }
                _ => {
                    let text = range_text();
                    let len = text.chars().count();
                    return Err(source.error(&format!("bad character range {text}"), len));
                }
            }
        } else {
            items.push(set_item(code1));
        }
    }
    let mut unique: Vec<SetItem> = Vec::with_capacity(items.len());
    for item in items {
        if !unique.contains(&item) {
            unique.push(item);
        }
    }
    let items = unique;
    if items.len() == 1
        && let SetItem::Literal(c) = items[0]
    {
        return Ok(if negate {
            Node::NotLiteral(c)
        } else {
            Node::Literal(c)
        });
    }
    Ok(Node::In { negate, items })
}

fn set_item(code: ClassEscape) -> SetItem {
    match code {
        ClassEscape::Literal(c) => SetItem::Literal(c),
        ClassEscape::Category(c) => SetItem::Category(c),
    }
}

/// Applies a repeat operator to the last item; `Ok(false)` when a `{` turns out to be literal.
fn parse_repeat(source: &mut Source, this: char, sub: &mut Vec<Node>) -> Result<bool, ReError> {
    let here = source.tell();
    let (min, max) = match this {
        '?' => (0, 1),
        '*' => (0, MAXREPEAT),
        '+' => (1, MAXREPEAT),
        _ => {
            if source.next_is('}') {
                return Ok(false);
            }
            let (mut lo, mut hi) = (String::new(), String::new());
            while source.next_in(is_digit) {
                if let Some(t) = source.get()? {
                    lo.push(t.first);
                }
            }
            if source.matches(',')? {
                while source.next_in(is_digit) {
                    if let Some(t) = source.get()? {
                        hi.push(t.first);
                    }
                }
            } else {
                hi = lo.clone();
            }
            if !source.matches('}')? {
                source.seek(here)?;
                return Ok(false);
            }
            let too_large = || ReError {
                message: "the repetition number is too large".to_owned(),
            };
            let parse_count = |s: &str| -> Result<u64, ReError> {
                let v: u128 = s.parse().unwrap_or(u128::MAX);
                if v >= u128::from(MAXREPEAT) {
                    return Err(too_large());
                }
                Ok(v as u64)
            };
            let min = if lo.is_empty() { 0 } else { parse_count(&lo)? };
            let max = if hi.is_empty() {
                MAXREPEAT
            } else {
                parse_count(&hi)?
            };
            if !hi.is_empty() && max < min {
                return Err(
                    source.error("min repeat greater than max repeat", source.tell() - here)
                );
            }
            (min, max)
        }
    };
    let offset = source.tell() - here + 1;
    let last = match sub.last() {
        None | Some(Node::At(_)) => return Err(source.error("nothing to repeat", offset)),
        Some(Node::Repeat { .. }) => return Err(source.error("multiple repeat", offset)),
        Some(_) => sub.pop().unwrap_or(Node::Any),
    };
    let body = match last {
        Node::Group {
            index: None,
            add: 0,
            del: 0,
            body,
        } => body,
        other => vec![other],
    };
    let kind = if source.matches('?')? {
        RepeatKind::Lazy
    } else if source.matches('+')? {
        RepeatKind::Possessive
    } else {
        RepeatKind::Greedy
    };
    sub.push(Node::Repeat {
        kind,
        min,
        max,
        body,
    });
    Ok(true)
}

/// Parses what follows `(`; `None` for constructs that add no node (comments, global flags).
fn parse_group(
    source: &mut Source,
    state: &mut State,
    verbose: bool,
    nested: usize,
    first: bool,
    outer_verbose: &mut bool,
) -> Result<Option<Node>, ReError> {
    let start = source.tell() - 1;
    let mut capture = true;
    let mut atomic = false;
    let mut name: Option<String> = None;
    let (mut add_flags, mut del_flags) = (0, 0);
    if source.matches('?')? {
        let Some(char_tok) = source.get()? else {
            return Err(source.error("unexpected end of pattern", 0));
        };
        let ch = if char_tok.second.is_none() {
            char_tok.first
        } else {
            '\\'
        };
        match ch {
            'P' if char_tok.second.is_none() => {
                if source.matches('<')? {
                    let n = source.getuntil('>', "group name")?;
                    source.check_group_name(&n, 1)?;
                    name = Some(n);
                } else if source.matches('=')? {
                    let n = source.getuntil(')', "group name")?;
                    source.check_group_name(&n, 1)?;
                    let len = n.chars().count() + 1;
                    let Some(&gid) = state.group_names.get(&n) else {
                        return Err(source.error(
                            &format!("unknown group name {}", vakra_pytext::str_repr(&n)),
                            len,
                        ));
                    };
                    if !state.check_group(gid) {
                        return Err(source.error("cannot refer to an open group", len));
                    }
                    check_lookbehind_group(state, gid, source)?;
                    return Ok(Some(Node::GroupRef(gid)));
                } else {
                    let Some(next) = source.get()? else {
                        return Err(source.error("unexpected end of pattern", 0));
                    };
                    let mut text = String::from("?P");
                    next.push_to(&mut text);
                    return Err(source.error(&format!("unknown extension {text}"), next.len() + 2));
                }
            }
            ':' if char_tok.second.is_none() => capture = false,
            '#' if char_tok.second.is_none() => {
                loop {
                    if source.next.is_none() {
                        return Err(
                            source.error("missing ), unterminated comment", source.tell() - start)
                        );
                    }
                    if source.get()?.is_some_and(|t| t.is(')')) {
                        break;
                    }
                }
                return Ok(None);
            }
            '=' | '!' | '<' if char_tok.second.is_none() => {
                return parse_lookaround(source, state, verbose, nested, start, ch).map(Some);
            }
            '(' if char_tok.second.is_none() => {
                return parse_conditional(source, state, verbose, nested, start).map(Some);
            }
            '>' if char_tok.second.is_none() => {
                capture = false;
                atomic = true;
            }
            c if char_tok.second.is_none() && (flag_of(c).is_some() || c == '-') => {
                match parse_flags(source, state, c)? {
                    None => {
                        if !first {
                            return Err(source.error(
                                "global flags not at the start of the expression",
                                source.tell() - start,
                            ));
                        }
                        *outer_verbose = state.flags & FLAG_VERBOSE != 0;
                        return Ok(None);
                    }
                    Some((add, del)) => {
                        add_flags = add;
                        del_flags = del;
                        capture = false;
                    }
                }
            }
            _ => {
                let mut text = String::from("?");
                char_tok.push_to(&mut text);
                return Err(source.error(&format!("unknown extension {text}"), char_tok.len() + 1));
            }
        }
    }
    let index = if capture {
        Some(open_group(source, state, name.as_ref())?)
    } else {
        None
    };
    let sub_verbose = (verbose || add_flags & FLAG_VERBOSE != 0) && del_flags & FLAG_VERBOSE == 0;
    let body = parse_sub(source, state, sub_verbose, nested + 1)?;
    if !source.matches(')')? {
        return Err(source.error("missing ), unterminated subpattern", source.tell() - start));
    }
    if let Some(gid) = index {
        let width = super::width::width(&body, &state_widths(state));
        state.group_widths[gid] = Some(width);
    }
    Ok(Some(if atomic {
        Node::Atomic(body)
    } else {
        Node::Group {
            index,
            add: add_flags,
            del: del_flags,
            body,
        }
    }))
}

/// A lookahead or lookbehind assertion, after `(?=`, `(?!` or `(?<`.
fn parse_lookaround(
    source: &mut Source,
    state: &mut State,
    verbose: bool,
    nested: usize,
    start: usize,
    ch: char,
) -> Result<Node, ReError> {
    let mut kind = ch;
    let mut behind = false;
    let mut saved_lookbehind = None;
    if ch == '<' {
        let Some(next) = source.get()? else {
            return Err(source.error("unexpected end of pattern", 0));
        };
        if !(next.is('=') || next.is('!')) {
            let mut text = String::from("?<");
            next.push_to(&mut text);
            return Err(source.error(&format!("unknown extension {text}"), next.len() + 2));
        }
        kind = next.first;
        behind = true;
        saved_lookbehind = Some(state.lookbehind_groups);
        if state.lookbehind_groups.is_none() {
            state.lookbehind_groups = Some(state.groups());
        }
    }
    let body = parse_sub(source, state, verbose, nested + 1)?;
    if let Some(None) = saved_lookbehind {
        state.lookbehind_groups = None;
    }
    if !source.matches(')')? {
        return Err(source.error("missing ), unterminated subpattern", source.tell() - start));
    }
    Ok(Node::Assert {
        negate: kind == '!',
        behind,
        body,
    })
}

/// A capturing group opens: its number, its name recorded.
fn open_group(
    source: &mut Source,
    state: &mut State,
    name: Option<&String>,
) -> Result<usize, ReError> {
    let gid = state.groups();
    if gid > MAXGROUPS {
        return Err(source.error("too many groups", name.map_or(0, |n| n.chars().count() + 1)));
    }
    if let Some(n) = name {
        if let Some(&old) = state.group_names.get(n) {
            return Err(source.error(
                &format!(
                    "redefinition of group name {} as group {gid}; was group {old}",
                    vakra_pytext::str_repr(n)
                ),
                n.chars().count() + 1,
            ));
        }
        state.group_names.insert(n.clone(), gid);
    }
    state.group_widths.push(None);
    Ok(gid)
}

fn state_widths(state: &State) -> Vec<(u128, u128)> {
    state
        .group_widths
        .iter()
        .map(|w| w.unwrap_or((0, 0)))
        .collect()
}

fn parse_conditional(
    source: &mut Source,
    state: &mut State,
    verbose: bool,
    nested: usize,
    start: usize,
) -> Result<Node, ReError> {
    let condname = source.getuntil(')', "group name")?;
    let len = condname.chars().count() + 1;
    let group = if is_identifier(&condname) {
        source.check_group_name(&condname, 1)?;
        match state.group_names.get(&condname) {
            Some(&g) => g,
            None => {
                return Err(source.error(
                    &format!("unknown group name {}", vakra_pytext::str_repr(&condname)),
                    len,
                ));
            }
        }
    } else {
        let bad = || {
            source.error(
                &format!(
                    "bad character in group name {}",
                    vakra_pytext::str_repr(&condname)
                ),
                len,
            )
        };
        let group = match py_int(&condname) {
            Ok(PyInt::Exact(g)) if g >= 0 => g,
            Ok(PyInt::Huge { negative: false }) => i128::MAX,
            _ => return Err(bad()),
        };
        if group == 0 {
            return Err(source.error("bad group number", len));
        }
        if group >= MAXGROUPS as i128 {
            return Err(source.error(&format!("invalid group reference {group}"), len));
        }
        let group = group as usize;
        if !state.group_ref_pos.iter().any(|(g, _)| *g == group) {
            state.group_ref_pos.push((group, source.tell() - len));
        }
        group
    };
    check_lookbehind_group(state, group, source)?;
    let yes = parse_seq(source, state, verbose, nested + 1, false)?;
    let no = if source.matches('|')? {
        let no = parse_seq(source, state, verbose, nested + 1, false)?;
        if source.next_is('|') {
            return Err(source.error("conditional backref with more than two branches", 0));
        }
        Some(no)
    } else {
        None
    };
    if !source.matches(')')? {
        return Err(source.error("missing ), unterminated subpattern", source.tell() - start));
    }
    Ok(Node::GroupRefExists { group, yes, no })
}

/// `_parse_flags`: `None` for global flags `(?aiLmsux)`, else the flags a scoped group turns
/// on and off.
fn parse_flags(
    source: &mut Source,
    state: &mut State,
    first: char,
) -> Result<Option<(u32, u32)>, ReError> {
    let (mut add, mut del) = (0, 0);
    let mut ch = Some(first);
    if first != '-' {
        loop {
            let c = ch.unwrap_or(' ');
            let flag = flag_of(c).unwrap_or(0);
            if c == 'L' {
                return Err(source.error(
                    "bad inline flags: cannot use 'L' flag with a str pattern",
                    0,
                ));
            }
            add |= flag;
            if flag & TYPE_FLAGS != 0 && add & TYPE_FLAGS != flag {
                return Err(source.error(
                    "bad inline flags: flags 'a', 'u' and 'L' are incompatible",
                    0,
                ));
            }
            let next = source.get()?;
            let Some(t) = next else {
                return Err(source.error("missing -, : or )", 0));
            };
            if t.second.is_none() && matches!(t.first, ')' | '-' | ':') {
                ch = Some(t.first);
                break;
            }
            if t.second.is_some() || flag_of(t.first).is_none() {
                let msg = if t.second.is_none() && t.first.is_alphabetic() {
                    "unknown flag"
                } else {
                    "missing -, : or )"
                };
                return Err(source.error(msg, t.len()));
            }
            ch = Some(t.first);
        }
    }
    if ch == Some(')') {
        state.flags |= add;
        return Ok(None);
    }
    if add & GLOBAL_FLAGS != 0 {
        return Err(source.error("bad inline flags: cannot turn on global flag", 1));
    }
    if ch == Some('-') {
        let Some(t) = source.get()? else {
            return Err(source.error("missing flag", 0));
        };
        if t.second.is_some() || flag_of(t.first).is_none() {
            let msg = if t.second.is_none() && t.first.is_alphabetic() {
                "unknown flag"
            } else {
                "missing flag"
            };
            return Err(source.error(msg, t.len()));
        }
        let mut c = t.first;
        loop {
            let flag = flag_of(c).unwrap_or(0);
            if flag & TYPE_FLAGS != 0 {
                return Err(source.error(
                    "bad inline flags: cannot turn off flags 'a', 'u' and 'L'",
                    0,
                ));
            }
            del |= flag;
            let Some(t) = source.get()? else {
                return Err(source.error("missing :", 0));
            };
            if t.is(':') {
                break;
            }
            if t.second.is_some() || flag_of(t.first).is_none() {
                let msg = if t.second.is_none() && t.first.is_alphabetic() {
                    "unknown flag"
                } else {
                    "missing :"
                };
                return Err(source.error(msg, t.len()));
            }
            c = t.first;
        }
    }
    if del & GLOBAL_FLAGS != 0 {
        return Err(source.error("bad inline flags: cannot turn off global flag", 1));
    }
    if add & del != 0 {
        return Err(source.error("bad inline flags: flag turned on and off", 1));
    }
    Ok(Some((add, del)))
}

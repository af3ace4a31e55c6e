//! The tree a parsed pattern becomes, with `re`'s flag bits and limits: what the parser
//! builds, the width pass measures and the translator writes out.

pub(super) const FLAG_TEMPLATE: u32 = 1;
pub(super) const FLAG_IGNORECASE: u32 = 2;
pub(super) const FLAG_LOCALE: u32 = 4;
pub(super) const FLAG_MULTILINE: u32 = 8;
pub(super) const FLAG_DOTALL: u32 = 16;
pub(super) const FLAG_UNICODE: u32 = 32;
pub(super) const FLAG_VERBOSE: u32 = 64;
pub(super) const FLAG_DEBUG: u32 = 128;
pub(super) const FLAG_ASCII: u32 = 256;

pub(super) const MAXREPEAT: u64 = 4_294_967_295;
/// Python's widths saturate at 2**64.
pub(super) const MAXWIDTH: u128 = 1 << 64;

/// A character class (`\d`, `\w`, `\s` and their negations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Category {
    Digit,
    NotDigit,
    Space,
    NotSpace,
    Word,
    NotWord,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum SetItem {
    Literal(u32),
    Range(u32, u32),
    Category(Category),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum At {
    Beginning,
    BeginningString,
    Boundary,
    NonBoundary,
    End,
    EndString,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RepeatKind {
    Greedy,
    Lazy,
    Possessive,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Node {
    Literal(u32),
    NotLiteral(u32),
    Any,
    In {
        negate: bool,
        items: Vec<SetItem>,
    },
    At(At),
    Branch(Vec<Vec<Node>>),
    Group {
        index: Option<usize>,
        add: u32,
        del: u32,
        body: Vec<Node>,
    },
    Repeat {
        kind: RepeatKind,
        min: u64,
        max: u64,
        body: Vec<Node>,
    },
    GroupRef(usize),
    GroupRefExists {
        group: usize,
        yes: Vec<Node>,
        no: Option<Vec<Node>>,
    },
    Assert {
        negate: bool,
        behind: bool,
        body: Vec<Node>,
    },
    Atomic(Vec<Node>),
}

//! Tokenizer following Python's lexical rules.
//!
//! It produces the same token stream as CPython's tokenizer for the
//! supported subset: INDENT/DEDENT from the leading whitespace of logical
//! lines (tabs advance to the next multiple of 8, and must agree with a tab
//! size of 1), NEWLINE only outside brackets, comments and blank lines
//! dropped, backslash continuation joining lines. String and number literals
//! are decoded here (see `strings` and `number`).

use crate::ast::{Constant, Conversion, Pos, Span};
use crate::error::ParseError;

/// Deepest bracket nesting accepted, as CPython's tokenizer.
const MAX_BRACKETS: usize = 200;
/// Deepest indentation accepted, as CPython's tokenizer.
const MAX_INDENTS: usize = 100;

/// Declares an enum of fixed-text tokens with its text and a lookup by
/// text.
macro_rules! fixed_tokens {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum $name {
            $($variant,)+
        }

        impl $name {
            /// The token as written in source.
            pub(crate) fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The token written exactly as `text`, if any.
            fn from_text(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

fixed_tokens! {
    /// Operators and delimiters.
    Op {
        DoubleStarEqual = "**=",
        DoubleSlashEqual = "//=",
        RightShiftEqual = ">>=",
        LeftShiftEqual = "<<=",
        Ellipsis = "...",
        Arrow = "->",
        ColonEqual = ":=",
        DoubleStar = "**",
        DoubleSlash = "//",
        RightShift = ">>",
        LeftShift = "<<",
        LessEqual = "<=",
        GreaterEqual = ">=",
        EqEqual = "==",
        NotEqual = "!=",
        PlusEqual = "+=",
        MinusEqual = "-=",
        StarEqual = "*=",
        SlashEqual = "/=",
        PercentEqual = "%=",
        AmperEqual = "&=",
        VBarEqual = "|=",
        CircumflexEqual = "^=",
        AtEqual = "@=",
        Plus = "+",
        Minus = "-",
        Star = "*",
        Slash = "/",
        Percent = "%",
        At = "@",
        Amper = "&",
        VBar = "|",
        Circumflex = "^",
        Tilde = "~",
        Less = "<",
        Greater = ">",
        LPar = "(",
        RPar = ")",
        LSqb = "[",
        RSqb = "]",
        LBrace = "{",
        RBrace = "}",
        Comma = ",",
        Colon = ":",
        Semi = ";",
        Dot = ".",
        Equal = "=",
    }
}

fixed_tokens! {
    /// Python's hard keywords.
    Kw {
        False = "False",
        None = "None",
        True = "True",
        And = "and",
        As = "as",
        Assert = "assert",
        Async = "async",
        Await = "await",
        Break = "break",
        Class = "class",
        Continue = "continue",
        Def = "def",
        Del = "del",
        Elif = "elif",
        Else = "else",
        Except = "except",
        Finally = "finally",
        For = "for",
        From = "from",
        Global = "global",
        If = "if",
        Import = "import",
        In = "in",
        Is = "is",
        Lambda = "lambda",
        Nonlocal = "nonlocal",
        Not = "not",
        Or = "or",
        Pass = "pass",
        Raise = "raise",
        Return = "return",
        Try = "try",
        While = "while",
        With = "with",
        Yield = "yield",
    }
}

/// A decoded string literal token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StrLit {
    /// A plain (possibly raw) string.
    Str(String),
    /// A bytes literal.
    Bytes(Vec<u8>),
    /// An f-string, split into literal text and replacement fields.
    FString(Vec<FPiece>),
}

/// A piece of an f-string as scanned, before its fields are parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FPiece {
    /// Decoded literal text.
    Literal(String),
    /// A replacement field.
    Field(Field),
}

/// A replacement field located in the source; the parser parses the
/// expression text `start.offset..end` with a sub-tokenizer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    /// Position of the first character of the expression text.
    pub(crate) start: Pos,
    /// Byte offset just after the expression text.
    pub(crate) end: usize,
    /// For `{expr=}`, the literal text `expr=` (with its whitespace).
    pub(crate) debug_text: Option<String>,
    /// The explicit or implied conversion.
    pub(crate) conversion: Option<Conversion>,
    /// The scanned format spec after `:`.
    pub(crate) spec: Option<Vec<FPiece>>,
}

/// The kinds of token.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok<'a> {
    /// An identifier that is not a keyword.
    Name(&'a str),
    /// A keyword.
    Kw(Kw),
    /// A numeric literal.
    Number(Constant),
    /// A string, bytes or f-string literal.
    Str(StrLit),
    /// An operator or delimiter.
    Op(Op),
    /// End of a logical line.
    Newline,
    /// Deeper indentation than the previous logical line.
    Indent,
    /// Return to an enclosing indentation level.
    Dedent,
    /// End of input.
    End,
}

impl Tok<'_> {
    /// Describes the token for error messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Name(name) => format!("name '{name}'"),
            Tok::Kw(kw) => format!("'{}'", kw.as_str()),
            Tok::Number(_) => "number".to_owned(),
            Tok::Str(_) => "string literal".to_owned(),
            Tok::Op(op) => format!("'{}'", op.as_str()),
            Tok::Newline => "newline".to_owned(),
            Tok::Indent => "indent".to_owned(),
            Tok::Dedent => "dedent".to_owned(),
            Tok::End => "end of input".to_owned(),
        }
    }
}

/// A token and its source range.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token<'a> {
    /// What was read.
    pub(crate) kind: Tok<'a>,
    /// Where it was read.
    pub(crate) span: Span,
}

/// Indentation of one level, in columns with tab size 8 and tab size 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Indent {
    col: u32,
    alt_col: u32,
}

/// Streams tokens from a source text (or from the expression part of an
/// f-string field within it).
#[derive(Debug, Clone)]
pub(crate) struct Tokenizer<'a> {
    pub(crate) src: &'a str,
    /// Byte offset where input ends (the field end for f-string fields).
    end: usize,
    pos: usize,
    line: u32,
    col: u32,
    /// The next character starts a logical line.
    at_line_start: bool,
    /// A token has been produced since the last NEWLINE.
    line_open: bool,
    /// Reading an f-string field: newlines are plain whitespace.
    in_field: bool,
    indents: Vec<Indent>,
    pending_dedents: usize,
    brackets: Vec<(char, Pos)>,
}

impl<'a> Tokenizer<'a> {
    /// Tokenizes a whole module.
    pub(crate) fn new(src: &'a str) -> Self {
        let mut tokenizer = Tokenizer {
            src,
            end: src.len(),
            pos: 0,
            line: 1,
            col: 1,
            at_line_start: true,
            line_open: false,
            in_field: false,
            indents: Vec::new(),
            pending_dedents: 0,
            brackets: Vec::new(),
        };
        if src.starts_with('\u{feff}') {
            tokenizer.pos = '\u{feff}'.len_utf8();
        }
        tokenizer
    }

    /// Tokenizes the expression text of an f-string field, which behaves as
    /// if it were inside parentheses.
    pub(crate) fn for_field(src: &'a str, start: Pos, end: usize) -> Self {
        Tokenizer {
            src,
            end,
            pos: start.offset,
            line: start.line,
            col: start.col,
            at_line_start: false,
            line_open: false,
            in_field: true,
            indents: Vec::new(),
            pending_dedents: 0,
            brackets: Vec::new(),
        }
    }

    /// The current position.
    pub(crate) fn here(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
            offset: self.pos,
        }
    }

    /// The unread input.
    pub(crate) fn rest(&self) -> &'a str {
        self.src.get(self.pos..self.end).unwrap_or("")
    }

    /// The current line.
    pub(crate) fn line(&self) -> u32 {
        self.line
    }

    /// The next character, if any.
    pub(crate) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The byte `n` places ahead, if still inside the input.
    pub(crate) fn byte(&self, n: usize) -> Option<u8> {
        let at = self.pos + n;
        if at < self.end {
            self.src.as_bytes().get(at).copied()
        } else {
            None
        }
    }

    /// Consumes one character, keeping line and column up to date; `\r\n`
    /// and a lone `\r` count as one line break, as in Python.
    pub(crate) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        match c {
            '\n' => self.new_line(),
            '\r' if self.byte(0) != Some(b'\n') => self.new_line(),
            _ => self.col = self.col.saturating_add(1),
        }
        Some(c)
    }

    fn new_line(&mut self) {
        self.line = self.line.saturating_add(1);
        self.col = 1;
    }

    /// Moves the column right by `chars` characters (saturating: columns
    /// past `u32::MAX` are not representable).
    fn advance_col(&mut self, chars: usize) {
        let chars = u32::try_from(chars).unwrap_or(u32::MAX);
        self.col = self.col.saturating_add(chars);
    }

    /// Consumes a line break (`\n`, `\r\n` or `\r`) at the current position.
    pub(crate) fn bump_newline(&mut self) {
        if self.bump() == Some('\r') && self.byte(0) == Some(b'\n') {
            self.bump();
        }
    }

    /// An error at `pos`.
    pub(crate) fn error(&self, pos: Pos, message: impl Into<String>) -> ParseError {
        ParseError::new(pos, message)
    }

    /// Produces the next token; after the end it keeps returning `End`.
    pub(crate) fn next_token(&mut self) -> Result<Token<'a>, ParseError> {
        loop {
            if self.pending_dedents > 0 {
                self.pending_dedents -= 1;
                return Ok(self.token_here(Tok::Dedent));
            }
            if self.at_line_start {
                self.at_line_start = false;
                if let Some(token) = self.indentation()? {
                    return Ok(token);
                }
                continue;
            }
            self.skip_blanks();
            let Some(c) = self.peek() else {
                return self.end_of_input();
            };
            match c {
                '#' => self.skip_comment(),
                '\\' => self.continuation()?,
                '\n' | '\r' => {
                    let start = self.here();
                    self.bump_newline();
                    if self.brackets.is_empty() && !self.in_field {
                        self.at_line_start = true;
                        if self.line_open {
                            self.line_open = false;
                            return Ok(self.token_from(start, Tok::Newline));
                        }
                    }
                }
                _ => {
                    self.line_open = true;
                    return self.lex(c);
                }
            }
        }
    }

    fn token_here(&self, kind: Tok<'a>) -> Token<'a> {
        let pos = self.here();
        Token {
            kind,
            span: Span {
                start: pos,
                end: pos,
            },
        }
    }

    fn token_from(&self, start: Pos, kind: Tok<'a>) -> Token<'a> {
        Token {
            kind,
            span: Span {
                start,
                end: self.here(),
            },
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.byte(0), Some(b' ' | b'\t' | b'\x0c')) {
            self.bump();
        }
    }

    fn skip_comment(&mut self) {
        self.skip_within_line(|b| b != b'\n' && b != b'\r');
    }

    /// Consumes the longest run of bytes accepted by `accept` (which must
    /// reject line breaks and, to stop on a character boundary, either
    /// accept or reject all bytes of each character) and returns it.
    pub(crate) fn skip_within_line(&mut self, accept: impl Fn(u8) -> bool) -> &'a str {
        let rest = self.rest();
        let len = rest.bytes().position(|b| !accept(b)).unwrap_or(rest.len());
        let run = rest.get(..len).unwrap_or("");
        self.pos += run.len();
        self.advance_col(run.chars().count());
        run
    }

    fn continuation(&mut self) -> Result<(), ParseError> {
        let at = self.here();
        self.bump();
        match self.peek() {
            Some('\n' | '\r') => {
                self.bump_newline();
                Ok(())
            }
            None => Err(self.error(at, "unexpected end of input after line continuation")),
            Some(_) => {
                Err(self.error(at, "unexpected character after line continuation character"))
            }
        }
    }

    /// Reads the leading whitespace of a logical line, skipping blank and
    /// comment-only lines, and returns an INDENT or DEDENT if the level
    /// changed.
    fn indentation(&mut self) -> Result<Option<Token<'a>>, ParseError> {
        let (col, alt_col) = loop {
            let (mut col, mut alt_col) = (0u32, 0u32);
            loop {
                match self.byte(0) {
                    Some(b' ') => {
                        col += 1;
                        alt_col += 1;
                    }
                    Some(b'\t') => {
                        col = (col / 8 + 1) * 8;
                        alt_col += 1;
                    }
                    Some(b'\x0c') => {
                        col = 0;
                        alt_col = 0;
                    }
                    _ => break,
                }
                self.bump();
            }
            match self.byte(0) {
                None => return Ok(None),
                Some(b'#') => {
                    self.skip_comment();
                    if self.byte(0).is_none() {
                        return Ok(None);
                    }
                    self.bump_newline();
                }
                Some(b'\n' | b'\r') => self.bump_newline(),
                Some(_) => break (col, alt_col),
            }
        };
        let top = self
            .indents
            .last()
            .copied()
            .unwrap_or(Indent { col: 0, alt_col: 0 });
        let pos = self.here();
        let inconsistent = "inconsistent use of tabs and spaces in indentation";
        if col == top.col {
            if alt_col != top.alt_col {
                return Err(self.error(pos, inconsistent));
            }
            return Ok(None);
        }
        if col > top.col {
            if alt_col <= top.alt_col {
                return Err(self.error(pos, inconsistent));
            }
            if self.indents.len() >= MAX_INDENTS {
                return Err(self.error(pos, "too many levels of indentation"));
            }
            self.indents.push(Indent { col, alt_col });
            return Ok(Some(self.token_here(Tok::Indent)));
        }
        let mut dedents = 0;
        while self.indents.last().is_some_and(|level| col < level.col) {
            self.indents.pop();
            dedents += 1;
        }
        let level = self
            .indents
            .last()
            .copied()
            .unwrap_or(Indent { col: 0, alt_col: 0 });
        if col != level.col {
            return Err(self.error(pos, "unindent does not match any outer indentation level"));
        }
        if alt_col != level.alt_col {
            return Err(self.error(pos, inconsistent));
        }
        self.pending_dedents = dedents - 1;
        Ok(Some(self.token_here(Tok::Dedent)))
    }

    fn end_of_input(&mut self) -> Result<Token<'a>, ParseError> {
        if let Some(&(open, pos)) = self.brackets.last() {
            return Err(self.error(pos, format!("'{open}' was never closed")));
        }
        if self.in_field {
            return Ok(self.token_here(Tok::End));
        }
        if self.line_open {
            self.line_open = false;
            return Ok(self.token_here(Tok::Newline));
        }
        if !self.indents.is_empty() {
            self.pending_dedents = self.indents.len() - 1;
            self.indents.clear();
            return Ok(self.token_here(Tok::Dedent));
        }
        Ok(self.token_here(Tok::End))
    }

    /// Reads one token starting with `c`.
    fn lex(&mut self, c: char) -> Result<Token<'a>, ParseError> {
        let start = self.here();
        if is_ident_start(c) {
            self.skip_within_line(|b| b.is_ascii_alphanumeric() || b == b'_');
            while self.peek().is_some_and(is_ident_continue) {
                self.bump();
                self.skip_within_line(|b| b.is_ascii_alphanumeric() || b == b'_');
            }
            let word = &self.src[start.offset..self.pos];
            if matches!(self.byte(0), Some(b'\'' | b'"')) && is_string_prefix(word) {
                let literal = self.string(start, word)?;
                return Ok(self.token_from(start, Tok::Str(literal)));
            }
            let kind = Kw::from_text(word).map_or(Tok::Name(word), Tok::Kw);
            return Ok(self.token_from(start, kind));
        }
        if c.is_ascii_digit() || (c == '.' && self.byte(1).is_some_and(|b| b.is_ascii_digit())) {
            let number = self.number(start)?;
            return Ok(self.token_from(start, Tok::Number(number)));
        }
        if c == '\'' || c == '"' {
            let literal = self.string(start, "")?;
            return Ok(self.token_from(start, Tok::Str(literal)));
        }
        let rest = self.rest();
        let longest = (1..=3)
            .rev()
            .find_map(|len| rest.get(..len).and_then(Op::from_text).map(|op| (len, op)));
        let Some((len, op)) = longest else {
            let message = if c == '!' {
                "invalid syntax: '!' is only valid in '!='".to_owned()
            } else {
                format!("invalid character '{c}' (U+{:04X})", u32::from(c))
            };
            return Err(self.error(start, message));
        };
        self.pos += len;
        self.advance_col(len);
        self.track_bracket(op, start)?;
        Ok(self.token_from(start, Tok::Op(op)))
    }

    fn track_bracket(&mut self, op: Op, start: Pos) -> Result<(), ParseError> {
        let (open, close) = match op {
            Op::LPar | Op::LSqb | Op::LBrace => {
                if self.brackets.len() >= MAX_BRACKETS {
                    return Err(self.error(start, "too many nested parentheses"));
                }
                let open = op.as_str().chars().next().unwrap_or('(');
                self.brackets.push((open, start));
                return Ok(());
            }
            Op::RPar => ('(', ')'),
            Op::RSqb => ('[', ']'),
            Op::RBrace => ('{', '}'),
            _ => return Ok(()),
        };
        match self.brackets.pop() {
            Some((found, _)) if found == open => Ok(()),
            Some((found, at)) => Err(self.error(
                start,
                format!(
                    "closing parenthesis '{close}' does not match opening parenthesis '{found}' on line {}",
                    at.line
                ),
            )),
            None => Err(self.error(start, format!("unmatched '{close}'"))),
        }
    }
}

/// Whether `c` may start an identifier (an approximation of Unicode
/// XID_Start that accepts every letter; identifiers are not NFKC-normalized
/// as CPython does).
pub(crate) fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Whether `c` may continue an identifier.
pub(crate) fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Whether `word` is a string prefix Python accepts (`r`, `u`, `b`, `br`,
/// `rb`, `f`, `fr`, `rf`, in any case).
pub(crate) fn is_string_prefix(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "" | "r" | "u" | "b" | "br" | "rb" | "f" | "fr" | "rf"
    )
}

//! String, bytes and f-string literals.
//!
//! Escapes are decoded as Python does (`\N{...}` is rejected). An f-string
//! is split into literal text and replacement fields; a field's expression
//! is only located here (PEP 701 style: nested strings may reuse the outer
//! quote) and parsed later by the parser.

use crate::ast::{Conversion, Pos};
use crate::error::ParseError;
use crate::parser::MAX_DEPTH;
use crate::token::{FPiece, Field, StrLit, Tokenizer, is_string_prefix};

/// How a literal body is delimited and decoded.
#[derive(Debug, Clone, Copy)]
struct Quoting {
    /// Where the literal (with its prefix) starts, for error messages.
    start: Pos,
    quote: u8,
    triple: bool,
    raw: bool,
}

impl Tokenizer<'_> {
    /// Reads a string literal whose `prefix` (already consumed) starts at
    /// `start`; the opening quote is next.
    pub(crate) fn string(&mut self, start: Pos, prefix: &str) -> Result<StrLit, ParseError> {
        let prefix = prefix.to_ascii_lowercase();
        let quoting = self.open_quote(start, prefix.contains('r'));
        if prefix.contains('f') {
            return self.fstring_parts(quoting, false, 0).map(StrLit::FString);
        }
        let bytes = prefix.contains('b');
        let text = self.plain_body(quoting, bytes)?;
        Ok(if bytes {
            StrLit::Bytes(text.chars().filter_map(|c| u8::try_from(c).ok()).collect())
        } else {
            StrLit::Str(text)
        })
    }

    fn open_quote(&mut self, start: Pos, raw: bool) -> Quoting {
        let quote = self.byte(0).unwrap_or(b'"');
        let triple = self.byte(1) == Some(quote) && self.byte(2) == Some(quote);
        for _ in 0..if triple { 3 } else { 1 } {
            self.bump();
        }
        Quoting {
            start,
            quote,
            triple,
            raw,
        }
    }

    fn at_close_quote(&self, q: Quoting) -> bool {
        self.byte(0) == Some(q.quote)
            && (!q.triple || (self.byte(1) == Some(q.quote) && self.byte(2) == Some(q.quote)))
    }

    /// Consumes the closing quote if it is next.
    fn close_quote(&mut self, q: Quoting) -> bool {
        if !self.at_close_quote(q) {
            return false;
        }
        for _ in 0..if q.triple { 3 } else { 1 } {
            self.bump();
        }
        true
    }

    fn unterminated(&self, q: Quoting) -> ParseError {
        let kind = if q.triple {
            "triple-quoted string literal"
        } else {
            "string literal"
        };
        self.error(
            q.start,
            format!("unterminated {kind} (detected at line {})", self.line()),
        )
    }

    /// Reads the body of a plain string or bytes literal; bytes are decoded
    /// as chars below U+0100.
    fn plain_body(&mut self, q: Quoting, bytes: bool) -> Result<String, ParseError> {
        let mut out = String::new();
        loop {
            let run = self.skip_within_line(|b| {
                !matches!(b, b'\\' | b'\n' | b'\r') && b != q.quote && (!bytes || b.is_ascii())
            });
            out.push_str(run);
            if self.close_quote(q) {
                return Ok(out);
            }
            let Some(c) = self.peek() else {
                return Err(self.unterminated(q));
            };
            match c {
                '\n' | '\r' => self.literal_newline(q, &mut out)?,
                '\\' => self.backslash(q, bytes, &mut out)?,
                _ => {
                    if bytes && !c.is_ascii() {
                        return Err(self.error(
                            self.here(),
                            "bytes can only contain ASCII literal characters",
                        ));
                    }
                    self.bump();
                    out.push(c);
                }
            }
        }
    }

    /// A line break inside a literal: kept (as `\n`) in triple-quoted
    /// literals, an error otherwise.
    fn literal_newline(&mut self, q: Quoting, out: &mut String) -> Result<(), ParseError> {
        if !q.triple {
            return Err(self.unterminated(q));
        }
        self.bump_newline();
        out.push('\n');
        Ok(())
    }

    /// Handles a backslash: decoded as an escape sequence, or kept verbatim
    /// in raw literals (where it still protects a quote or line break).
    fn backslash(&mut self, q: Quoting, bytes: bool, out: &mut String) -> Result<(), ParseError> {
        let at = self.here();
        self.bump();
        let Some(c) = self.peek() else {
            return Err(self.unterminated(q));
        };
        if q.raw {
            out.push('\\');
            match c {
                '\n' | '\r' => {
                    self.bump_newline();
                    out.push('\n');
                }
                '\\' | '\'' | '"' => {
                    self.bump();
                    out.push(c);
                }
                _ => {}
            }
            return Ok(());
        }
        let simple = match c {
            '\n' | '\r' => {
                self.bump_newline();
                return Ok(());
            }
            '\\' | '\'' | '"' => Some(c),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            _ => None,
        };
        if let Some(decoded) = simple {
            self.bump();
            out.push(decoded);
            return Ok(());
        }
        match c {
            '0'..='7' => {
                let mut value = 0u32;
                for _ in 0..3 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(digit) => {
                            value = value * 8 + digit;
                            self.bump();
                        }
                        None => break,
                    }
                }
                if bytes {
                    value &= 0xff;
                }
                out.extend(char::from_u32(value));
            }
            'x' => {
                self.bump();
                let value = self.hex_digits(2, at, "truncated \\xXX escape")?;
                out.extend(char::from_u32(value));
            }
            'u' | 'U' if !bytes => {
                self.bump();
                let (count, message) = if c == 'u' {
                    (4, "truncated \\uXXXX escape")
                } else {
                    (8, "truncated \\UXXXXXXXX escape")
                };
                let value = self.hex_digits(count, at, message)?;
                match char::from_u32(value) {
                    Some(decoded) => out.push(decoded),
                    None if value > 0x10ffff => {
                        return Err(self.error(at, "illegal Unicode character"));
                    }
                    None => {
                        return Err(self.error(at, "surrogate code points are not supported"));
                    }
                }
            }
            'N' if !bytes => {
                return Err(self.error(at, "\\N{...} escapes are not supported"));
            }
            _ => out.push('\\'),
        }
        Ok(())
    }

    fn hex_digits(&mut self, count: usize, at: Pos, message: &str) -> Result<u32, ParseError> {
        let mut value = 0u32;
        for _ in 0..count {
            let Some(digit) = self.peek().and_then(|d| d.to_digit(16)) else {
                return Err(self.error(at, message));
            };
            value = value * 16 + digit;
            self.bump();
        }
        Ok(value)
    }

    /// Scans f-string text up to its closing quote or, for a format spec
    /// (`in_spec`), up to the `}` ending the field, which is left unread.
    fn fstring_parts(
        &mut self,
        q: Quoting,
        in_spec: bool,
        nesting: u32,
    ) -> Result<Vec<FPiece>, ParseError> {
        if nesting > MAX_DEPTH {
            return Err(self.error(q.start, "f-string nested too deeply"));
        }
        let mut parts = Vec::new();
        let mut text = String::new();
        loop {
            if self.at_close_quote(q) {
                if in_spec {
                    return Err(self.error(self.here(), "f-string: expecting '}'"));
                }
                self.close_quote(q);
                flush(&mut parts, &mut text);
                return Ok(parts);
            }
            let Some(c) = self.peek() else {
                return Err(self.unterminated(q));
            };
            match c {
                '\n' | '\r' => self.literal_newline(q, &mut text)?,
                '\\' => self.backslash(q, false, &mut text)?,
                '{' if !in_spec && self.byte(1) == Some(b'{') => {
                    self.bump();
                    self.bump();
                    text.push('{');
                }
                '{' => {
                    self.bump();
                    flush(&mut parts, &mut text);
                    let field = self.fstring_field(q, nesting)?;
                    parts.push(FPiece::Field(field));
                }
                '}' if in_spec => {
                    flush(&mut parts, &mut text);
                    return Ok(parts);
                }
                '}' if self.byte(1) == Some(b'}') => {
                    self.bump();
                    self.bump();
                    text.push('}');
                }
                '}' => {
                    return Err(self.error(self.here(), "f-string: single '}' is not allowed"));
                }
                _ => {
                    self.bump();
                    text.push(c);
                }
            }
        }
    }

    /// Scans a replacement field after its `{`, through its closing `}`.
    fn fstring_field(&mut self, q: Quoting, nesting: u32) -> Result<Field, ParseError> {
        let start = self.here();
        let mut depth = 0u32;
        let mut debug_text = None;
        let end = loop {
            let Some(c) = self.peek() else {
                return Err(self.unterminated(q));
            };
            match c {
                '\'' | '"' => self.skip_nested_string(start, nesting)?,
                '\n' | '\r' => {
                    if !q.triple {
                        return Err(self.unterminated(q));
                    }
                    self.bump_newline();
                }
                '\\' => {
                    return Err(self.error(
                        self.here(),
                        "f-string expression part cannot include a backslash",
                    ));
                }
                '#' => {
                    return Err(
                        self.error(self.here(), "f-string expression part cannot include '#'")
                    );
                }
                '(' | '[' | '{' => {
                    depth += 1;
                    self.bump();
                }
                ')' | ']' => {
                    if depth == 0 {
                        return Err(self.error(self.here(), format!("f-string: unmatched '{c}'")));
                    }
                    depth -= 1;
                    self.bump();
                }
                '}' if depth > 0 => {
                    depth -= 1;
                    self.bump();
                }
                '}' => break self.here().offset,
                '!' if self.byte(1) == Some(b'=') => {
                    self.bump();
                    self.bump();
                }
                '!' | ':' if depth == 0 => break self.here().offset,
                '=' if depth == 0 => {
                    let before = &self.src[start.offset..self.here().offset];
                    if self.byte(1) == Some(b'=') {
                        self.bump();
                        self.bump();
                    } else if matches!(before.chars().next_back(), Some('=' | '!' | '<' | '>')) {
                        self.bump();
                    } else {
                        let end = self.here().offset;
                        self.bump();
                        while matches!(self.byte(0), Some(b' ' | b'\t' | b'\x0c')) {
                            self.bump();
                        }
                        debug_text = Some(self.src[start.offset..self.here().offset].to_owned());
                        break end;
                    }
                }
                _ => {
                    self.bump();
                }
            }
        };
        if self.src[start.offset..end].trim().is_empty() {
            return Err(self.error(start, "f-string: empty expression not allowed"));
        }
        let mut conversion = None;
        if self.byte(0) == Some(b'!') {
            self.bump();
            conversion = Some(match self.peek() {
                Some('s') => Conversion::Str,
                Some('r') => Conversion::Repr,
                Some('a') => Conversion::Ascii,
                _ => {
                    return Err(self.error(
                        self.here(),
                        "f-string: invalid conversion character: expected 's', 'r', or 'a'",
                    ));
                }
            });
            self.bump();
        }
        let mut spec = None;
        if self.byte(0) == Some(b':') {
            self.bump();
            spec = Some(self.fstring_parts(q, true, nesting + 1)?);
        }
        if self.byte(0) != Some(b'}') {
            return Err(self.error(self.here(), "f-string: expecting '}'"));
        }
        self.bump();
        if debug_text.is_some() && conversion.is_none() && spec.is_none() {
            conversion = Some(Conversion::Repr);
        }
        Ok(Field {
            start,
            end,
            debug_text,
            conversion,
            spec,
        })
    }

    /// Skips a string literal inside a field expression; its prefix is the
    /// word just before the quote.
    fn skip_nested_string(&mut self, field_start: Pos, nesting: u32) -> Result<(), ParseError> {
        let before = &self.src[field_start.offset..self.here().offset];
        let word_len = before
            .bytes()
            .rev()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let word = &before[before.len() - word_len..];
        let prefix = if is_string_prefix(word) {
            word.to_ascii_lowercase()
        } else {
            String::new()
        };
        let start = self.here();
        let inner = self.open_quote(start, prefix.contains('r'));
        if prefix.contains('f') {
            return self.fstring_parts(inner, false, nesting + 1).map(drop);
        }
        loop {
            if self.close_quote(inner) {
                return Ok(());
            }
            match self.peek() {
                None => return Err(self.unterminated(inner)),
                Some('\n' | '\r') => {
                    if !inner.triple {
                        return Err(self.unterminated(inner));
                    }
                    self.bump_newline();
                }
                Some('\\') => {
                    self.bump();
                    match self.peek() {
                        Some('\n' | '\r') => self.bump_newline(),
                        Some(_) => {
                            self.bump();
                        }
                        None => {}
                    }
                }
                Some(_) => {
                    self.bump();
                }
            }
        }
    }
}

/// Moves pending literal text into `parts`.
fn flush(parts: &mut Vec<FPiece>, text: &mut String) {
    if !text.is_empty() {
        parts.push(FPiece::Literal(std::mem::take(text)));
    }
}

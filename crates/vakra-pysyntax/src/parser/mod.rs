//! Recursive-descent parser over the token stream.
//!
//! The grammar follows CPython's PEG grammar for the supported subset, in
//! LL(1) form: an expression is parsed first and reinterpreted when an
//! `=`, `:=` or `:` shows it was a target, keyword or annotation.
//!
//! Three limits keep hostile input from exhausting the stack, both here
//! and later when trees are printed, compared or dropped (all recursive):
//! the tokenizer allows 200 nested brackets, the parser's other recursion
//! (expressions inside brackets, unary operators, conditional expressions,
//! lambdas, blocks, `elif` chains) is capped at [`MAX_DEPTH`] levels, and
//! the left-leaning chains built by loops (`a + b + ...`, `a.b.c(...)[...]`)
//! are capped at [`MAX_HEIGHT`] nodes of tree height.

mod brackets;
mod expr;
mod literal;
mod stmt;

use crate::ast::{Expr, ExprKind, Module, Pos, Span};
use crate::error::ParseError;
use crate::token::{Kw, Op, Tok, Token, Tokenizer};

/// Deepest recursion of the parser (nested brackets, blocks, unary
/// operators...), in line with CPython's limit of 200 nested parentheses.
pub(crate) const MAX_DEPTH: u32 = 200;
/// Tallest expression tree the operator and postfix loops may build.
const MAX_HEIGHT: usize = 1000;

type PResult<T> = Result<T, ParseError>;

/// Parser state: the tokenizer, the current token and the nesting depth.
#[derive(Debug, Clone)]
pub(crate) struct Parser<'a> {
    src: &'a str,
    lexer: Tokenizer<'a>,
    tok: Token<'a>,
    /// End of the last non-layout token, where a finished node ends.
    prev_end: Pos,
    depth: u32,
}

/// Parses a whole module.
pub(crate) fn parse_module(src: &str) -> PResult<Module> {
    let mut parser = Parser::new(Tokenizer::new(src), 0)?;
    let body = parser.file()?;
    Ok(Module { body })
}

/// Parses one expression (or bare tuple), like Python's `eval` mode but
/// tolerating leading indentation.
pub(crate) fn parse_expression(src: &str) -> PResult<Expr> {
    let mut parser = Parser::new(Tokenizer::new(src), 0)?;
    if parser.at(&Tok::Indent) {
        parser.advance()?;
    }
    let value = parser.star_expressions()?;
    while matches!(parser.tok.kind, Tok::Newline | Tok::Dedent) {
        parser.advance()?;
    }
    if !parser.at(&Tok::End) {
        return Err(parser.expected("end of input"));
    }
    Ok(value)
}

impl<'a> Parser<'a> {
    fn new(mut lexer: Tokenizer<'a>, depth: u32) -> PResult<Self> {
        let tok = lexer.next_token()?;
        Ok(Parser {
            src: lexer.src,
            prev_end: tok.span.start,
            lexer,
            tok,
            depth,
        })
    }

    /// Moves to the next token.
    fn advance(&mut self) -> PResult<()> {
        self.take().map(drop)
    }

    /// Moves to the next token and returns the one just passed.
    fn take(&mut self) -> PResult<Token<'a>> {
        let next = self.lexer.next_token()?;
        let old = std::mem::replace(&mut self.tok, next);
        if !matches!(
            old.kind,
            Tok::Newline | Tok::Indent | Tok::Dedent | Tok::End
        ) {
            self.prev_end = old.span.end;
        }
        Ok(old)
    }

    fn at(&self, kind: &Tok<'_>) -> bool {
        self.tok.kind == *kind
    }

    fn at_op(&self, op: Op) -> bool {
        matches!(self.tok.kind, Tok::Op(found) if found == op)
    }

    fn at_kw(&self, kw: Kw) -> bool {
        matches!(self.tok.kind, Tok::Kw(found) if found == kw)
    }

    fn eat_op(&mut self, op: Op) -> PResult<bool> {
        let found = self.at_op(op);
        if found {
            self.advance()?;
        }
        Ok(found)
    }

    fn eat_kw(&mut self, kw: Kw) -> PResult<bool> {
        let found = self.at_kw(kw);
        if found {
            self.advance()?;
        }
        Ok(found)
    }

    fn expect_op(&mut self, op: Op) -> PResult<()> {
        if self.eat_op(op)? {
            Ok(())
        } else {
            Err(self.expected(&format!("'{}'", op.as_str())))
        }
    }

    fn expect_kw(&mut self, kw: Kw) -> PResult<()> {
        if self.eat_kw(kw)? {
            Ok(())
        } else {
            Err(self.expected(&format!("'{}'", kw.as_str())))
        }
    }

    /// An error at the current token: "expected X but found Y".
    fn expected(&self, what: &str) -> ParseError {
        ParseError::new(
            self.start(),
            format!("expected {what} but found {}", self.tok.kind.describe()),
        )
    }

    fn name(&mut self) -> PResult<String> {
        match self.tok.kind {
            Tok::Name(name) => {
                self.advance()?;
                Ok(name.to_owned())
            }
            _ => Err(self.expected("a name")),
        }
    }

    fn start(&self) -> Pos {
        self.tok.span.start
    }

    fn span_from(&self, start: Pos) -> Span {
        Span {
            start,
            end: self.prev_end,
        }
    }

    /// Finishes an expression node that began at `start`.
    fn node(&self, kind: ExprKind, start: Pos) -> Expr {
        Expr {
            kind,
            span: self.span_from(start),
        }
    }

    /// Runs `f` one recursion level deeper, failing past [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let result = f(self);
        self.leave();
        result
    }

    /// Goes one recursion level deeper, failing past [`MAX_DEPTH`]; pairs
    /// with [`Parser::leave`].
    fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError::new(
                self.start(),
                format!("too deeply nested (more than {MAX_DEPTH} levels)"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The height of a node wrapping a subtree of height `inner` together
    /// with `others`, failing past [`MAX_HEIGHT`].
    fn taller<'e>(
        &self,
        inner: usize,
        others: impl IntoIterator<Item = &'e Expr>,
        at: Pos,
    ) -> PResult<usize> {
        let height = 1 + others.into_iter().map(Expr::height).fold(inner, usize::max);
        if height > MAX_HEIGHT {
            return Err(ParseError::new(
                at,
                format!("expression too deeply nested (more than {MAX_HEIGHT} levels)"),
            ));
        }
        Ok(height)
    }
}

//! A parser for the subset of Python 3 used by the reference server.
//!
//! The reference benchmark's endpoints are FastAPI router modules, and the
//! catalog describes response shapes with Python expressions. Both are read
//! here as data and never executed: [`parse_module`] turns a router module
//! into a syntax tree mirroring CPython's `ast` module (see [`ast`]), and
//! [`parse_expression`] parses a single expression the way `eval` would.
//! Expressions print back as canonical Python source through their
//! [`Display`](std::fmt::Display) implementation, which reproduces CPython
//! 3.11's `ast.unparse` (quotes, escapes, float digits, minimal
//! parentheses), so `parse_expression(&e.to_string())` gives back a tree
//! equal to `e`. The `repr` of strings, bytes and floats and the printable
//! table come from `vakra_pytext`; only `ast.unparse`'s own quote choice is
//! here.
//!
//! The tokenizer and parser are hand written and follow CPython's lexical
//! rules and grammar (with PEP 701 f-strings) for everything but `match`
//! statements, `except*`, imaginary literals, `\N{...}` escapes and lone
//! surrogates, which are reported as errors. Two known differences from
//! CPython's output remain: the `u` of `u'...'` is not kept, and non-ASCII
//! identifiers are not NFKC-normalized. Errors never panic: they carry a
//! line, a column and a message, and pathological nesting is refused before
//! it can exhaust the stack (input at the limits needs under 1 MiB of stack
//! in optimized builds).

pub mod ast;
mod error;
mod number;
mod parser;
mod quotes;
mod strings;
mod token;
mod unparse;

pub use ast::{Expr, Module};
pub use error::ParseError;

/// Parses a whole Python source file into its statements.
///
/// Comments and blank lines are dropped; a leading UTF-8 byte order mark is
/// ignored.
pub fn parse_module(source: &str) -> Result<Module, ParseError> {
    parser::parse_module(source)
}

/// Parses a single expression (a bare tuple such as `a, b` included), as
/// Python's `eval` mode does; whitespace, comments and newlines around it
/// are allowed.
pub fn parse_expression(source: &str) -> Result<Expr, ParseError> {
    parser::parse_expression(source)
}

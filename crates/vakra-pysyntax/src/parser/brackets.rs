//! Bracketed constructs: tuples, lists, sets, dicts, comprehensions, call
//! arguments and subscripts, plus assignment-target checks.
//!
//! As in `expr`, each opener parses its first item and leaves the rest to a
//! helper, so that nested brackets cost little stack per level.

use super::{PResult, Parser};
use crate::ast::{Comprehension, Expr, ExprKind, Keyword, Pos};
use crate::error::ParseError;
use crate::token::{Kw, Op, Tok};

impl Parser<'_> {
    /// `(...)`: a tuple, a generator expression, a yield or a grouping.
    pub(super) fn parenthesized(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        if self.at_op(Op::RPar) || self.at_kw(Kw::Yield) {
            return self.empty_or_yield(start);
        }
        let first = self.star_named_expression()?;
        self.parenthesized_rest(first, start)
    }

    #[inline(never)]
    fn empty_or_yield(&mut self, start: Pos) -> PResult<Expr> {
        if self.eat_op(Op::RPar)? {
            return Ok(self.node(ExprKind::Tuple(Vec::new()), start));
        }
        let value = self.yield_expr()?;
        self.expect_op(Op::RPar)?;
        Ok(value)
    }

    fn parenthesized_rest(&mut self, first: Expr, start: Pos) -> PResult<Expr> {
        if self.at_comprehension() {
            return self.generator(first, start);
        }
        if self.at_op(Op::Comma) {
            return self.sequence(first, start, Op::RPar, ExprKind::Tuple);
        }
        self.grouping(first)
    }

    #[inline(never)]
    fn grouping(&mut self, inner: Expr) -> PResult<Expr> {
        self.expect_op(Op::RPar)?;
        if matches!(inner.kind, ExprKind::Starred(_)) {
            return Err(ParseError::new(
                inner.span.start,
                "cannot use starred expression here",
            ));
        }
        Ok(inner)
    }

    #[inline(never)]
    fn generator(&mut self, first: Expr, start: Pos) -> PResult<Expr> {
        let elt = comprehension_element(first)?;
        let generators = self.comprehension_clauses()?;
        self.expect_op(Op::RPar)?;
        Ok(self.node(ExprKind::GeneratorExp { elt, generators }, start))
    }

    /// The rest of a display of items after `first`, through `close`.
    fn sequence(
        &mut self,
        first: Expr,
        start: Pos,
        close: Op,
        kind: fn(Vec<Expr>) -> ExprKind,
    ) -> PResult<Expr> {
        let elts = self.rest_of_sequence(first, close)?;
        Ok(self.node(kind(elts), start))
    }

    /// `[...]`: a list or list comprehension.
    pub(super) fn list_display(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        if self.at_op(Op::RSqb) {
            return self.empty_display(start, ExprKind::List(Vec::new()));
        }
        let first = self.star_named_expression()?;
        if self.at_comprehension() {
            return self.list_comprehension(first, start);
        }
        self.sequence(first, start, Op::RSqb, ExprKind::List)
    }

    /// A display closed right after its opener.
    #[inline(never)]
    fn empty_display(&mut self, start: Pos, kind: ExprKind) -> PResult<Expr> {
        self.advance()?;
        Ok(self.node(kind, start))
    }

    #[inline(never)]
    fn list_comprehension(&mut self, first: Expr, start: Pos) -> PResult<Expr> {
        let elt = comprehension_element(first)?;
        let generators = self.comprehension_clauses()?;
        self.expect_op(Op::RSqb)?;
        Ok(self.node(ExprKind::ListComp { elt, generators }, start))
    }

    /// `{...}`: a dict, set, or their comprehensions.
    pub(super) fn brace_display(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        if self.at_op(Op::RBrace) {
            return self.empty_display(start, ExprKind::Dict(Vec::new()));
        }
        if self.at_op(Op::DoubleStar) {
            return self.dict_from_spread(start);
        }
        let first = self.star_named_expression()?;
        if self.at_op(Op::Colon) {
            return self.dict_value(first, start);
        }
        if self.at_comprehension() {
            return self.set_comprehension(first, start);
        }
        self.sequence(first, start, Op::RBrace, ExprKind::Set)
    }

    #[inline(never)]
    fn dict_from_spread(&mut self, start: Pos) -> PResult<Expr> {
        let spread = self.dict_spread()?;
        self.dict_rest(start, spread)
    }

    /// The `: value` after the first key of a dict display.
    fn dict_value(&mut self, key: Expr, start: Pos) -> PResult<Expr> {
        self.advance()?;
        if matches!(key.kind, ExprKind::Starred(_)) {
            return Err(ParseError::new(
                key.span.start,
                "cannot use a starred expression in a dictionary key",
            ));
        }
        let value = self.expression()?;
        if self.at_comprehension() {
            return self.dict_comprehension(key, value, start);
        }
        self.dict_rest(start, (Some(key), value))
    }

    #[inline(never)]
    fn dict_comprehension(&mut self, key: Expr, value: Expr, start: Pos) -> PResult<Expr> {
        let generators = self.comprehension_clauses()?;
        self.expect_op(Op::RBrace)?;
        let kind = ExprKind::DictComp {
            key: Box::new(key),
            value: Box::new(value),
            generators,
        };
        Ok(self.node(kind, start))
    }

    #[inline(never)]
    fn set_comprehension(&mut self, first: Expr, start: Pos) -> PResult<Expr> {
        let elt = comprehension_element(first)?;
        let generators = self.comprehension_clauses()?;
        self.expect_op(Op::RBrace)?;
        Ok(self.node(ExprKind::SetComp { elt, generators }, start))
    }

    /// The remaining `, item` of a display after its first item, through
    /// the closing bracket.
    fn rest_of_sequence(&mut self, first: Expr, close: Op) -> PResult<Vec<Expr>> {
        let mut elts = vec![first];
        while self.eat_op(Op::Comma)? {
            if self.at_op(close) {
                break;
            }
            elts.push(self.star_named_expression()?);
        }
        self.expect_op(close)?;
        Ok(elts)
    }

    fn dict_rest(&mut self, start: Pos, first: (Option<Expr>, Expr)) -> PResult<Expr> {
        let mut items = vec![first];
        while self.eat_op(Op::Comma)? && !self.at_op(Op::RBrace) {
            let item = if self.at_op(Op::DoubleStar) {
                self.dict_spread()?
            } else {
                self.dict_item()?
            };
            items.push(item);
        }
        self.expect_op(Op::RBrace)?;
        Ok(self.node(ExprKind::Dict(items), start))
    }

    fn dict_item(&mut self) -> PResult<(Option<Expr>, Expr)> {
        let key = self.expression()?;
        self.expect_op(Op::Colon)?;
        Ok((Some(key), self.expression()?))
    }

    fn dict_spread(&mut self) -> PResult<(Option<Expr>, Expr)> {
        self.advance()?;
        Ok((None, self.bitwise_or()?))
    }

    fn at_comprehension(&self) -> bool {
        self.at_kw(Kw::For) || self.at_kw(Kw::Async)
    }

    /// One or more `[async] for targets in disjunction (if disjunction)*`.
    fn comprehension_clauses(&mut self) -> PResult<Vec<Comprehension>> {
        let mut generators = Vec::new();
        while self.at_comprehension() {
            generators.push(self.comprehension_clause()?);
        }
        Ok(generators)
    }

    fn comprehension_clause(&mut self) -> PResult<Comprehension> {
        let is_async = self.eat_kw(Kw::Async)?;
        self.expect_kw(Kw::For)?;
        let target = self.star_targets()?;
        self.expect_kw(Kw::In)?;
        let iter = self.disjunction()?;
        let mut ifs = Vec::new();
        while self.eat_kw(Kw::If)? {
            ifs.push(self.disjunction()?);
        }
        Ok(Comprehension {
            target,
            iter,
            ifs,
            is_async,
        })
    }

    /// Assignment targets of `for` loops and comprehensions: `bitwise_or`
    /// items (so `in` is not taken as a comparison), possibly a bare tuple.
    pub(super) fn star_targets(&mut self) -> PResult<Expr> {
        let target = self.expr_list(Self::star_target)?;
        check_target(&target)?;
        Ok(target)
    }

    pub(super) fn star_target(&mut self) -> PResult<Expr> {
        if self.at_op(Op::Star) {
            return self.starred();
        }
        self.bitwise_or()
    }

    /// The arguments of a call (or class bases), up to the closing `)`.
    pub(super) fn call_arguments(&mut self) -> PResult<(Vec<Expr>, Vec<Keyword>)> {
        let mut args = Vec::new();
        let mut keywords = Vec::new();
        while !self.at_op(Op::RPar) {
            self.call_argument(&mut args, &mut keywords)?;
            if !self.eat_op(Op::Comma)? {
                break;
            }
        }
        Ok((args, keywords))
    }

    /// One argument: `*args`, `**kwargs`, `name=value`, a positional value
    /// or a bare generator expression.
    fn call_argument(&mut self, args: &mut Vec<Expr>, keywords: &mut Vec<Keyword>) -> PResult<()> {
        let start = self.start();
        if self.at_op(Op::Star) || self.at_op(Op::DoubleStar) {
            return self.unpacked_argument(args, keywords, start);
        }
        let value = self.named_expression()?;
        if self.at_op(Op::Equal) {
            return self.keyword_argument(value, keywords, start);
        }
        self.positional_argument(value, args, keywords, start)
    }

    #[inline(never)]
    fn unpacked_argument(
        &mut self,
        args: &mut Vec<Expr>,
        keywords: &mut Vec<Keyword>,
        start: Pos,
    ) -> PResult<()> {
        let double = self.at_op(Op::DoubleStar);
        self.advance()?;
        let value = self.expression()?;
        if double {
            let span = self.span_from(start);
            keywords.push(Keyword {
                arg: None,
                value,
                span,
            });
            return Ok(());
        }
        if keywords.iter().any(|k| k.arg.is_none()) {
            return Err(ParseError::new(
                start,
                "iterable argument unpacking follows keyword argument unpacking",
            ));
        }
        args.push(self.node(ExprKind::Starred(Box::new(value)), start));
        Ok(())
    }

    /// `name=value`, where `target` was parsed as the name.
    fn keyword_argument(
        &mut self,
        target: Expr,
        keywords: &mut Vec<Keyword>,
        start: Pos,
    ) -> PResult<()> {
        let ExprKind::Name(arg) = target.kind else {
            return Err(ParseError::new(
                target.span.start,
                "expression cannot contain assignment, perhaps you meant \"==\"?",
            ));
        };
        self.advance()?;
        let value = self.expression()?;
        let span = self.span_from(start);
        keywords.push(Keyword {
            arg: Some(arg),
            value,
            span,
        });
        Ok(())
    }

    /// A positional argument, or the generator expression `value for ...`.
    #[inline(never)]
    fn positional_argument(
        &mut self,
        value: Expr,
        args: &mut Vec<Expr>,
        keywords: &[Keyword],
        start: Pos,
    ) -> PResult<()> {
        if self.at_comprehension() {
            let elt = comprehension_element(value)?;
            let generators = self.comprehension_clauses()?;
            if !args.is_empty() || !keywords.is_empty() || !self.at_op(Op::RPar) {
                return Err(ParseError::new(
                    start,
                    "generator expression must be parenthesized",
                ));
            }
            args.push(self.node(ExprKind::GeneratorExp { elt, generators }, start));
        } else if !keywords.is_empty() {
            let message = if keywords.iter().any(|k| k.arg.is_none()) {
                "positional argument follows keyword argument unpacking"
            } else {
                "positional argument follows keyword argument"
            };
            return Err(ParseError::new(start, message));
        } else {
            args.push(value);
        }
        Ok(())
    }

    /// A subscript index: one slice or expression, or a tuple of them (a
    /// lone starred item is a tuple too).
    pub(super) fn slices(&mut self) -> PResult<Expr> {
        let start = self.start();
        let first = self.slice()?;
        if self.at_op(Op::Comma) || matches!(first.kind, ExprKind::Starred(_)) {
            return self.slice_tuple(first, start);
        }
        Ok(first)
    }

    #[inline(never)]
    fn slice_tuple(&mut self, first: Expr, start: Pos) -> PResult<Expr> {
        let mut elts = vec![first];
        while self.eat_op(Op::Comma)? {
            if self.at_op(Op::RSqb) {
                break;
            }
            elts.push(self.slice()?);
        }
        Ok(self.node(ExprKind::Tuple(elts), start))
    }

    /// `[lower]:[upper][:[step]]`, or a plain (possibly starred) index.
    fn slice(&mut self) -> PResult<Expr> {
        let start = self.start();
        if self.at_op(Op::Colon) {
            return self.slice_rest(None, start);
        }
        let value = self.star_named_expression()?;
        if self.at_op(Op::Colon) {
            return self.slice_rest(Some(value), start);
        }
        Ok(value)
    }

    #[inline(never)]
    fn slice_rest(&mut self, lower: Option<Expr>, start: Pos) -> PResult<Expr> {
        self.advance()?;
        let upper = self.slice_bound()?;
        let step = if self.eat_op(Op::Colon)? {
            self.slice_bound()?
        } else {
            None
        };
        let lower = lower.map(Box::new);
        Ok(self.node(ExprKind::Slice { lower, upper, step }, start))
    }

    fn slice_bound(&mut self) -> PResult<Option<Box<Expr>>> {
        if matches!(self.tok.kind, Tok::Op(Op::Colon | Op::Comma | Op::RSqb)) {
            return Ok(None);
        }
        Ok(Some(Box::new(self.expression()?)))
    }
}

/// The element of a comprehension, which may not be starred.
fn comprehension_element(elt: Expr) -> PResult<Box<Expr>> {
    if matches!(elt.kind, ExprKind::Starred(_)) {
        return Err(ParseError::new(
            elt.span.start,
            "iterable unpacking cannot be used in comprehension",
        ));
    }
    Ok(Box::new(elt))
}

/// Checks that `expr` can be assigned to (names, attributes, subscripts,
/// and tuples, lists or starred forms of them).
pub(super) fn check_target(expr: &Expr) -> PResult<()> {
    let what = match &expr.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
            return Ok(());
        }
        ExprKind::Tuple(elts) | ExprKind::List(elts) => {
            return elts.iter().try_for_each(check_target);
        }
        ExprKind::Starred(inner) => return check_target(inner),
        ExprKind::Call { .. } => "function call",
        ExprKind::Constant(_) | ExprKind::JoinedStr(_) => "literal",
        _ => "expression",
    };
    Err(ParseError::new(
        expr.span.start,
        format!("cannot assign to {what}"),
    ))
}

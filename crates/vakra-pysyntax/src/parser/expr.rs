//! Expressions, from tuples down to atoms, plus parameter lists.

use super::{PResult, Parser};
use crate::ast::{
    Arguments, BinOp, BoolOp, CmpOp, Comprehension, Constant, Expr, ExprKind, Keyword, Param,
    UnaryOp,
};
use crate::error::ParseError;
use crate::token::{Kw, Op, Tok};

impl Parser<'_> {
    /// `star_expressions`: an expression or a bare tuple, as in expression
    /// statements, `return` and assignment values.
    pub(super) fn star_expressions(&mut self) -> PResult<Expr> {
        self.expr_list(Self::star_expression)
    }

    /// `item (',' item)* [',']`, a tuple when there is a comma.
    pub(super) fn expr_list(&mut self, item: fn(&mut Self) -> PResult<Expr>) -> PResult<Expr> {
        let start = self.start();
        let first = item(self)?;
        if !self.at_op(Op::Comma) {
            return Ok(first);
        }
        let mut elts = vec![first];
        while self.eat_op(Op::Comma)? {
            if !self.starts_expression() {
                break;
            }
            elts.push(item(self)?);
        }
        Ok(self.node(ExprKind::Tuple(elts), start))
    }

    /// Whether the current token can begin an expression, which decides
    /// whether an optional expression or another tuple item follows.
    pub(super) fn starts_expression(&self) -> bool {
        match self.tok.kind {
            Tok::Name(_) | Tok::Number(_) | Tok::Str(_) => true,
            Tok::Kw(kw) => matches!(
                kw,
                Kw::None | Kw::True | Kw::False | Kw::Not | Kw::Lambda | Kw::Await
            ),
            Tok::Op(op) => matches!(
                op,
                Op::LPar
                    | Op::LSqb
                    | Op::LBrace
                    | Op::Minus
                    | Op::Plus
                    | Op::Tilde
                    | Op::Star
                    | Op::Ellipsis
            ),
            _ => false,
        }
    }

    /// `'*' bitwise_or | expression`.
    fn star_expression(&mut self) -> PResult<Expr> {
        if self.at_op(Op::Star) {
            return self.starred();
        }
        self.expression()
    }

    /// `'*' bitwise_or | named_expression`, the items of displays.
    pub(super) fn star_named_expression(&mut self) -> PResult<Expr> {
        if self.at_op(Op::Star) {
            return self.starred();
        }
        self.named_expression()
    }

    fn starred(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        let value = self.bitwise_or()?;
        Ok(self.node(ExprKind::Starred(Box::new(value)), start))
    }

    /// `expression [':=' expression]`.
    pub(super) fn named_expression(&mut self) -> PResult<Expr> {
        let start = self.start();
        let target = self.expression()?;
        if !self.at_op(Op::ColonEqual) {
            return Ok(target);
        }
        if !matches!(target.kind, ExprKind::Name(_)) {
            return Err(ParseError::new(
                target.span.start,
                "cannot use assignment expressions with this target",
            ));
        }
        self.advance()?;
        let value = self.expression()?;
        Ok(self.node(
            ExprKind::NamedExpr {
                target: Box::new(target),
                value: Box::new(value),
            },
            start,
        ))
    }

    /// `expression`: a lambda, or a disjunction with an optional
    /// `if ... else ...`.
    pub(super) fn expression(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            if p.at_kw(Kw::Lambda) {
                return p.lambda();
            }
            let start = p.start();
            let body = p.disjunction()?;
            if !p.eat_kw(Kw::If)? {
                return Ok(body);
            }
            let test = p.disjunction()?;
            p.expect_kw(Kw::Else)?;
            let orelse = p.expression()?;
            Ok(p.node(
                ExprKind::IfExp {
                    test: Box::new(test),
                    body: Box::new(body),
                    orelse: Box::new(orelse),
                },
                start,
            ))
        })
    }

    /// `conjunction ('or' conjunction)*`.
    pub(super) fn disjunction(&mut self) -> PResult<Expr> {
        self.bool_chain(Kw::Or, BoolOp::Or, Self::conjunction)
    }

    fn conjunction(&mut self) -> PResult<Expr> {
        self.bool_chain(Kw::And, BoolOp::And, Self::inversion)
    }

    fn bool_chain(
        &mut self,
        kw: Kw,
        op: BoolOp,
        operand: fn(&mut Self) -> PResult<Expr>,
    ) -> PResult<Expr> {
        let start = self.start();
        let first = operand(self)?;
        if !self.at_kw(kw) {
            return Ok(first);
        }
        let mut values = vec![first];
        while self.eat_kw(kw)? {
            values.push(operand(self)?);
        }
        Ok(self.node(ExprKind::BoolOp { op, values }, start))
    }

    fn inversion(&mut self) -> PResult<Expr> {
        if !self.at_kw(Kw::Not) {
            return self.comparison();
        }
        let start = self.start();
        self.advance()?;
        let operand = self.nested(Self::inversion)?;
        Ok(self.node(
            ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand: Box::new(operand),
            },
            start,
        ))
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let start = self.start();
        let left = self.bitwise_or()?;
        let mut ops = Vec::new();
        let mut comparators = Vec::new();
        while let Some(op) = self.comparison_op()? {
            ops.push(op);
            comparators.push(self.bitwise_or()?);
        }
        if ops.is_empty() {
            return Ok(left);
        }
        Ok(self.node(
            ExprKind::Compare {
                left: Box::new(left),
                ops,
                comparators,
            },
            start,
        ))
    }

    /// Consumes a comparison operator if one is next.
    fn comparison_op(&mut self) -> PResult<Option<CmpOp>> {
        let op = match self.tok.kind {
            Tok::Op(Op::EqEqual) => CmpOp::Eq,
            Tok::Op(Op::NotEqual) => CmpOp::NotEq,
            Tok::Op(Op::Less) => CmpOp::Lt,
            Tok::Op(Op::LessEqual) => CmpOp::LtE,
            Tok::Op(Op::Greater) => CmpOp::Gt,
            Tok::Op(Op::GreaterEqual) => CmpOp::GtE,
            Tok::Kw(Kw::In) => CmpOp::In,
            Tok::Kw(Kw::Is) => {
                self.advance()?;
                let negated = self.eat_kw(Kw::Not)?;
                return Ok(Some(if negated { CmpOp::IsNot } else { CmpOp::Is }));
            }
            Tok::Kw(Kw::Not) => {
                self.advance()?;
                self.expect_kw(Kw::In)?;
                return Ok(Some(CmpOp::NotIn));
            }
            _ => return Ok(None),
        };
        self.advance()?;
        Ok(Some(op))
    }

    /// `bitwise_or`: the binary operators from `|` to `*`/`/`.
    pub(super) fn bitwise_or(&mut self) -> PResult<Expr> {
        self.binary(1)
    }

    /// Precedence climbing over the left-associative binary operators
    /// binding at least as tightly as `min`.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let start = self.start();
        let mut left = self.factor()?;
        let mut height = None;
        while let Some((op, prec)) = binary_op(&self.tok.kind).filter(|&(_, p)| p >= min) {
            let at = self.start();
            self.advance()?;
            let right = self.binary(prec + 1)?;
            let inner = height.unwrap_or_else(|| left.height());
            height = Some(self.taller(inner, [&right], at)?);
            left = self.node(
                ExprKind::BinOp {
                    left: Box::new(left),
                    op,
                    right: Box::new(right),
                },
                start,
            );
        }
        Ok(left)
    }

    /// `('+' | '-' | '~') factor | power`.
    fn factor(&mut self) -> PResult<Expr> {
        let op = match self.tok.kind {
            Tok::Op(Op::Minus) => UnaryOp::USub,
            Tok::Op(Op::Plus) => UnaryOp::UAdd,
            Tok::Op(Op::Tilde) => UnaryOp::Invert,
            _ => return self.power(),
        };
        let start = self.start();
        self.advance()?;
        let operand = self.nested(Self::factor)?;
        Ok(self.node(
            ExprKind::UnaryOp {
                op,
                operand: Box::new(operand),
            },
            start,
        ))
    }

    /// `await_primary ['**' factor]`.
    fn power(&mut self) -> PResult<Expr> {
        let start = self.start();
        let base = self.await_primary()?;
        if !self.eat_op(Op::DoubleStar)? {
            return Ok(base);
        }
        let exponent = self.nested(Self::factor)?;
        Ok(self.node(
            ExprKind::BinOp {
                left: Box::new(base),
                op: BinOp::Pow,
                right: Box::new(exponent),
            },
            start,
        ))
    }

    fn await_primary(&mut self) -> PResult<Expr> {
        if !self.at_kw(Kw::Await) {
            return self.primary();
        }
        let start = self.start();
        self.advance()?;
        let value = self.primary()?;
        Ok(self.node(ExprKind::Await(Box::new(value)), start))
    }

    /// An atom followed by any number of `.name`, `(...)` and `[...]`.
    fn primary(&mut self) -> PResult<Expr> {
        let start = self.start();
        let mut value = self.atom()?;
        let mut height = None;
        loop {
            let at = self.start();
            let inner = match height {
                Some(h) => h,
                None if matches!(self.tok.kind, Tok::Op(Op::Dot | Op::LPar | Op::LSqb)) => {
                    value.height()
                }
                None => return Ok(value),
            };
            let kind = match self.tok.kind {
                Tok::Op(Op::Dot) => {
                    self.advance()?;
                    let attr = self.name()?;
                    height = Some(self.taller(inner, [], at)?);
                    ExprKind::Attribute {
                        value: Box::new(value),
                        attr,
                    }
                }
                Tok::Op(Op::LPar) => {
                    self.advance()?;
                    let (args, keywords) = self.call_arguments()?;
                    self.expect_op(Op::RPar)?;
                    let others = args.iter().chain(keywords.iter().map(|k| &k.value));
                    height = Some(self.taller(inner, others, at)?);
                    ExprKind::Call {
                        func: Box::new(value),
                        args,
                        keywords,
                    }
                }
                Tok::Op(Op::LSqb) => {
                    self.advance()?;
                    let index = self.slices()?;
                    self.expect_op(Op::RSqb)?;
                    height = Some(self.taller(inner, [&index], at)?);
                    ExprKind::Subscript {
                        value: Box::new(value),
                        index: Box::new(index),
                    }
                }
                _ => return Ok(value),
            };
            value = self.node(kind, start);
        }
    }

    fn atom(&mut self) -> PResult<Expr> {
        let start = self.start();
        let kind = match &self.tok.kind {
            Tok::Name(name) => ExprKind::Name((*name).to_owned()),
            Tok::Number(value) => ExprKind::Constant(value.clone()),
            Tok::Kw(Kw::None) => ExprKind::Constant(Constant::None),
            Tok::Kw(Kw::True) => ExprKind::Constant(Constant::Bool(true)),
            Tok::Kw(Kw::False) => ExprKind::Constant(Constant::Bool(false)),
            Tok::Op(Op::Ellipsis) => ExprKind::Constant(Constant::Ellipsis),
            Tok::Str(_) => return self.strings(),
            Tok::Op(Op::LPar) => return self.parenthesized(),
            Tok::Op(Op::LSqb) => return self.list_display(),
            Tok::Op(Op::LBrace) => return self.brace_display(),
            _ => return Err(self.expected("an expression")),
        };
        self.advance()?;
        Ok(self.node(kind, start))
    }

    /// `(...)`: a tuple, a generator expression, a yield or a grouping.
    fn parenthesized(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        if self.eat_op(Op::RPar)? {
            return Ok(self.node(ExprKind::Tuple(Vec::new()), start));
        }
        if self.at_kw(Kw::Yield) {
            let value = self.yield_expr()?;
            self.expect_op(Op::RPar)?;
            return Ok(value);
        }
        let first = self.star_named_expression()?;
        if self.at_comprehension() {
            let elt = comprehension_element(first)?;
            let generators = self.comprehension_clauses()?;
            self.expect_op(Op::RPar)?;
            return Ok(self.node(ExprKind::GeneratorExp { elt, generators }, start));
        }
        if self.at_op(Op::Comma) {
            let elts = self.rest_of_sequence(first, Op::RPar)?;
            return Ok(self.node(ExprKind::Tuple(elts), start));
        }
        self.expect_op(Op::RPar)?;
        if matches!(first.kind, ExprKind::Starred(_)) {
            return Err(ParseError::new(
                first.span.start,
                "cannot use starred expression here",
            ));
        }
        Ok(first)
    }

    /// `[...]`: a list or list comprehension.
    fn list_display(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        if self.eat_op(Op::RSqb)? {
            return Ok(self.node(ExprKind::List(Vec::new()), start));
        }
        let first = self.star_named_expression()?;
        if self.at_comprehension() {
            let elt = comprehension_element(first)?;
            let generators = self.comprehension_clauses()?;
            self.expect_op(Op::RSqb)?;
            return Ok(self.node(ExprKind::ListComp { elt, generators }, start));
        }
        let elts = self.rest_of_sequence(first, Op::RSqb)?;
        Ok(self.node(ExprKind::List(elts), start))
    }

    /// `{...}`: a dict, set, or their comprehensions.
    fn brace_display(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        if self.eat_op(Op::RBrace)? {
            return Ok(self.node(ExprKind::Dict(Vec::new()), start));
        }
        if self.at_op(Op::DoubleStar) {
            let first = self.dict_spread()?;
            return self.dict_rest(start, first);
        }
        let first = self.star_named_expression()?;
        if self.eat_op(Op::Colon)? {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return Err(ParseError::new(
                    first.span.start,
                    "cannot use a starred expression in a dictionary key",
                ));
            }
            let value = self.expression()?;
            if self.at_comprehension() {
                let generators = self.comprehension_clauses()?;
                self.expect_op(Op::RBrace)?;
                return Ok(self.node(
                    ExprKind::DictComp {
                        key: Box::new(first),
                        value: Box::new(value),
                        generators,
                    },
                    start,
                ));
            }
            return self.dict_rest(start, (Some(first), value));
        }
        if self.at_comprehension() {
            let elt = comprehension_element(first)?;
            let generators = self.comprehension_clauses()?;
            self.expect_op(Op::RBrace)?;
            return Ok(self.node(ExprKind::SetComp { elt, generators }, start));
        }
        let elts = self.rest_of_sequence(first, Op::RBrace)?;
        Ok(self.node(ExprKind::Set(elts), start))
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

    fn dict_rest(&mut self, start: crate::ast::Pos, first: (Option<Expr>, Expr)) -> PResult<Expr> {
        let mut items = vec![first];
        while self.eat_op(Op::Comma)? {
            if self.at_op(Op::RBrace) {
                break;
            }
            if self.at_op(Op::DoubleStar) {
                items.push(self.dict_spread()?);
                continue;
            }
            let key = self.expression()?;
            self.expect_op(Op::Colon)?;
            let value = self.expression()?;
            items.push((Some(key), value));
        }
        self.expect_op(Op::RBrace)?;
        Ok(self.node(ExprKind::Dict(items), start))
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
            let is_async = self.eat_kw(Kw::Async)?;
            self.expect_kw(Kw::For)?;
            let target = self.star_targets()?;
            self.expect_kw(Kw::In)?;
            let iter = self.disjunction()?;
            let mut ifs = Vec::new();
            while self.eat_kw(Kw::If)? {
                ifs.push(self.disjunction()?);
            }
            generators.push(Comprehension {
                target,
                iter,
                ifs,
                is_async,
            });
        }
        Ok(generators)
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
        let mut keywords: Vec<Keyword> = Vec::new();
        while !self.at_op(Op::RPar) {
            let start = self.start();
            if self.eat_op(Op::DoubleStar)? {
                let value = self.expression()?;
                let span = self.span_from(start);
                keywords.push(Keyword {
                    arg: None,
                    value,
                    span,
                });
            } else if self.eat_op(Op::Star)? {
                let value = self.expression()?;
                if keywords.iter().any(|k| k.arg.is_none()) {
                    return Err(ParseError::new(
                        start,
                        "iterable argument unpacking follows keyword argument unpacking",
                    ));
                }
                args.push(self.node(ExprKind::Starred(Box::new(value)), start));
            } else {
                let value = self.named_expression()?;
                if self.at_op(Op::Equal) {
                    let ExprKind::Name(arg) = value.kind else {
                        return Err(ParseError::new(
                            value.span.start,
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
                } else if self.at_comprehension() {
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
            }
            if !self.eat_op(Op::Comma)? {
                break;
            }
        }
        Ok((args, keywords))
    }

    /// A subscript index: one slice or expression, or a tuple of them.
    fn slices(&mut self) -> PResult<Expr> {
        let start = self.start();
        let first = self.slice()?;
        if !self.at_op(Op::Comma) {
            if matches!(first.kind, ExprKind::Starred(_)) {
                return Ok(self.node(ExprKind::Tuple(vec![first]), start));
            }
            return Ok(first);
        }
        let mut elts = vec![first];
        while self.eat_op(Op::Comma)? {
            if self.at_op(Op::RSqb) {
                break;
            }
            elts.push(self.slice()?);
        }
        Ok(self.node(ExprKind::Tuple(elts), start))
    }

    fn slice(&mut self) -> PResult<Expr> {
        let start = self.start();
        let lower = if self.at_op(Op::Colon) {
            None
        } else {
            let value = self.star_named_expression()?;
            if !self.at_op(Op::Colon) {
                return Ok(value);
            }
            Some(Box::new(value))
        };
        self.advance()?;
        let upper = self.slice_bound()?;
        let step = if self.eat_op(Op::Colon)? {
            self.slice_bound()?
        } else {
            None
        };
        Ok(self.node(ExprKind::Slice { lower, upper, step }, start))
    }

    fn slice_bound(&mut self) -> PResult<Option<Box<Expr>>> {
        if matches!(self.tok.kind, Tok::Op(Op::Colon | Op::Comma | Op::RSqb)) {
            return Ok(None);
        }
        Ok(Some(Box::new(self.expression()?)))
    }

    fn lambda(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        let params = self.parameters(Op::Colon, false)?;
        self.expect_op(Op::Colon)?;
        let body = self.expression()?;
        Ok(self.node(
            ExprKind::Lambda {
                params: Box::new(params),
                body: Box::new(body),
            },
            start,
        ))
    }

    /// `yield [star_expressions]` or `yield from expression`.
    pub(super) fn yield_expr(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        let kind = if self.eat_kw(Kw::From)? {
            ExprKind::YieldFrom(Box::new(self.expression()?))
        } else if self.starts_expression() {
            ExprKind::Yield(Some(Box::new(self.star_expressions()?)))
        } else {
            ExprKind::Yield(None)
        };
        Ok(self.node(kind, start))
    }

    /// A parameter list up to (not including) `close`; annotations are only
    /// allowed in `def`.
    pub(super) fn parameters(&mut self, close: Op, annotated: bool) -> PResult<Arguments> {
        let mut params = Arguments::default();
        let mut bare_star = None;
        let mut seen_default = false;
        while !self.at_op(close) {
            let at = self.start();
            if self.eat_op(Op::Slash)? {
                if bare_star.is_some()
                    || params.vararg.is_some()
                    || !params.posonly.is_empty()
                    || params.args.is_empty()
                {
                    return Err(ParseError::new(at, "invalid '/' in parameter list"));
                }
                params.posonly = std::mem::take(&mut params.args);
            } else if self.eat_op(Op::DoubleStar)? {
                params.kwarg = Some(self.param(annotated, ParamKind::KwArgs)?);
                self.eat_op(Op::Comma)?;
                if !self.at_op(close) {
                    return Err(ParseError::new(
                        self.start(),
                        "parameters cannot follow '**' parameter",
                    ));
                }
                break;
            } else if self.eat_op(Op::Star)? {
                if bare_star.is_some() || params.vararg.is_some() {
                    return Err(ParseError::new(at, "'*' may appear only once"));
                }
                if self.at_op(Op::Comma) || self.at_op(close) {
                    bare_star = Some(at);
                } else {
                    params.vararg = Some(self.param(annotated, ParamKind::VarArgs)?);
                }
            } else {
                let param = self.param(annotated, ParamKind::Plain)?;
                if bare_star.is_some() || params.vararg.is_some() {
                    params.kwonly.push(param);
                } else if param.default.is_some() {
                    seen_default = true;
                    params.args.push(param);
                } else if seen_default {
                    return Err(ParseError::new(
                        param.span.start,
                        "non-default argument follows default argument",
                    ));
                } else {
                    params.args.push(param);
                }
            }
            if !self.eat_op(Op::Comma)? {
                break;
            }
        }
        if let Some(at) = bare_star.filter(|_| params.kwonly.is_empty()) {
            return Err(ParseError::new(at, "named arguments must follow bare *"));
        }
        Ok(params)
    }

    fn param(&mut self, annotated: bool, kind: ParamKind) -> PResult<Param> {
        let start = self.start();
        let name = self.name()?;
        let annotation = if !annotated || !self.eat_op(Op::Colon)? {
            None
        } else if kind == ParamKind::VarArgs {
            Some(self.star_expression()?)
        } else {
            Some(self.expression()?)
        };
        let default = if kind == ParamKind::Plain && self.eat_op(Op::Equal)? {
            Some(self.expression()?)
        } else {
            None
        };
        Ok(Param {
            name,
            annotation,
            default,
            span: self.span_from(start),
        })
    }
}

/// The three shapes of parameter: only plain ones take defaults, and only
/// `*args` may have a starred annotation (`*args: *Ts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParamKind {
    Plain,
    VarArgs,
    KwArgs,
}

/// The binary operator a token denotes and its precedence (higher binds
/// tighter), for the operators handled by precedence climbing.
fn binary_op(tok: &Tok<'_>) -> Option<(BinOp, u8)> {
    let Tok::Op(op) = tok else {
        return None;
    };
    Some(match op {
        Op::VBar => (BinOp::BitOr, 1),
        Op::Circumflex => (BinOp::BitXor, 2),
        Op::Amper => (BinOp::BitAnd, 3),
        Op::LeftShift => (BinOp::LShift, 4),
        Op::RightShift => (BinOp::RShift, 4),
        Op::Plus => (BinOp::Add, 5),
        Op::Minus => (BinOp::Sub, 5),
        Op::Star => (BinOp::Mult, 6),
        Op::Slash => (BinOp::Div, 6),
        Op::DoubleSlash => (BinOp::FloorDiv, 6),
        Op::Percent => (BinOp::Mod, 6),
        Op::At => (BinOp::MatMult, 6),
        _ => return None,
    })
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

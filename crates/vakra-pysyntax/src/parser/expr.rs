//! Expressions from tuples down to atoms, plus parameter lists.
//!
//! The functions that recursion passes through for every nesting level
//! (`expression`, `operators`, `prefixed`, `primary`, `atom` and the
//! bracket displays) only parse their first operand and hand the rest to
//! helpers, so each level costs little stack even in unoptimized builds.

use super::{PResult, Parser};
use crate::ast::{
    Arguments, BinOp, BoolOp, CmpOp, Constant, Expr, ExprKind, Keyword, Param, Pos, UnaryOp,
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

    /// `'*' bitwise_or`.
    pub(super) fn starred(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        let value = self.bitwise_or()?;
        Ok(self.node(ExprKind::Starred(Box::new(value)), start))
    }

    /// `expression [':=' expression]`.
    pub(super) fn named_expression(&mut self) -> PResult<Expr> {
        self.expression_at_depth(true)
    }

    /// `expression`: a lambda, or a disjunction with an optional
    /// `if ... else ...`.
    pub(super) fn expression(&mut self) -> PResult<Expr> {
        self.expression_at_depth(false)
    }

    /// An expression (a named one when `named`) one recursion level deeper;
    /// every nesting of brackets passes through here.
    fn expression_at_depth(&mut self, named: bool) -> PResult<Expr> {
        self.enter()?;
        let result = self.conditional(named);
        self.leave();
        result
    }

    fn conditional(&mut self, named: bool) -> PResult<Expr> {
        if self.at_kw(Kw::Lambda) {
            return self.lambda();
        }
        let start = self.start();
        let body = self.operators(Level::Or)?;
        match self.tok.kind {
            Tok::Kw(Kw::If) => self.if_else(body, start),
            Tok::Op(Op::ColonEqual) if named => self.walrus(body, start),
            _ => Ok(body),
        }
    }

    /// The `:= value` after the target of a named expression.
    #[inline(never)]
    fn walrus(&mut self, target: Expr, start: Pos) -> PResult<Expr> {
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

    /// The `if test else orelse` after the body of a conditional.
    #[inline(never)]
    fn if_else(&mut self, body: Expr, start: Pos) -> PResult<Expr> {
        self.advance()?;
        let test = Box::new(self.operators(Level::Or)?);
        self.expect_kw(Kw::Else)?;
        let orelse = self.expression()?;
        let kind = ExprKind::IfExp {
            test,
            body: Box::new(body),
            orelse: Box::new(orelse),
        };
        Ok(self.node(kind, start))
    }

    /// `disjunction`: everything from `or` down, but no conditional.
    pub(super) fn disjunction(&mut self) -> PResult<Expr> {
        self.operators(Level::Or)
    }

    /// `bitwise_or`: the binary operators from `|` down.
    pub(super) fn bitwise_or(&mut self) -> PResult<Expr> {
        self.operators(Level::BitOr)
    }

    /// Precedence climbing over the boolean, comparison, binary and unary
    /// operators binding at least as tightly as `min`. One function for all
    /// levels keeps the recursion shallow.
    fn operators(&mut self, min: Level) -> PResult<Expr> {
        let start = self.start();
        let left = self.prefixed(min)?;
        if self.at_infix(min) {
            return self.infix_operators(left, min, start);
        }
        Ok(left)
    }

    fn at_infix(&self, min: Level) -> bool {
        infix(&self.tok.kind).is_some_and(|(level, _)| level >= min)
    }

    /// The infix operators after the first operand `left`.
    #[inline(never)]
    fn infix_operators(&mut self, mut left: Expr, min: Level, start: Pos) -> PResult<Expr> {
        let mut height = None;
        while let Some((level, infix)) = infix(&self.tok.kind).filter(|(level, _)| *level >= min) {
            left = self.infix_operator(left, level, infix, start, &mut height)?;
        }
        Ok(left)
    }

    /// One infix operator and its right operand(s). `height` tracks the
    /// height of a chain of left-associative binary operators.
    fn infix_operator(
        &mut self,
        left: Expr,
        level: Level,
        infix: Infix,
        start: Pos,
        height: &mut Option<usize>,
    ) -> PResult<Expr> {
        match infix {
            Infix::Binary(op) => self.binary(left, op, level, start, height),
            Infix::Bool(kw, op) => {
                *height = None;
                self.bool_chain(left, kw, op, level, start)
            }
            Infix::Compare => {
                *height = None;
                self.compare_chain(left, start)
            }
            Infix::Power => {
                *height = None;
                self.power(left, start)
            }
        }
    }

    fn binary(
        &mut self,
        left: Expr,
        op: BinOp,
        level: Level,
        start: Pos,
        height: &mut Option<usize>,
    ) -> PResult<Expr> {
        let at = self.start();
        self.advance()?;
        let right = self.operators(level.next())?;
        let inner = height.unwrap_or_else(|| left.height());
        *height = Some(self.taller(inner, [&right], at)?);
        let kind = ExprKind::BinOp {
            left: Box::new(left),
            op,
            right: Box::new(right),
        };
        Ok(self.node(kind, start))
    }

    fn bool_chain(
        &mut self,
        left: Expr,
        kw: Kw,
        op: BoolOp,
        level: Level,
        start: Pos,
    ) -> PResult<Expr> {
        let mut values = vec![left];
        while self.eat_kw(kw)? {
            values.push(self.operators(level.next())?);
        }
        Ok(self.node(ExprKind::BoolOp { op, values }, start))
    }

    fn compare_chain(&mut self, left: Expr, start: Pos) -> PResult<Expr> {
        let mut ops = Vec::new();
        let mut comparators = Vec::new();
        while let Some(op) = self.comparison_op()? {
            ops.push(op);
            comparators.push(self.operators(Level::BitOr)?);
        }
        let kind = ExprKind::Compare {
            left: Box::new(left),
            ops,
            comparators,
        };
        Ok(self.node(kind, start))
    }

    fn power(&mut self, base: Expr, start: Pos) -> PResult<Expr> {
        self.advance()?;
        let exponent = self.nested(|p| p.operators(Level::Factor))?;
        let kind = ExprKind::BinOp {
            left: Box::new(base),
            op: BinOp::Pow,
            right: Box::new(exponent),
        };
        Ok(self.node(kind, start))
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

    /// A unary operator and its operand (`not` only when `min` allows it),
    /// or an `await`/primary expression.
    fn prefixed(&mut self, min: Level) -> PResult<Expr> {
        let op = match self.tok.kind {
            Tok::Kw(Kw::Not) if min <= Level::Not => UnaryOp::Not,
            Tok::Op(Op::Minus) => UnaryOp::USub,
            Tok::Op(Op::Plus) => UnaryOp::UAdd,
            Tok::Op(Op::Tilde) => UnaryOp::Invert,
            Tok::Kw(Kw::Await) => return self.await_expr(),
            _ => return self.primary(),
        };
        self.unary(op)
    }

    #[inline(never)]
    fn unary(&mut self, op: UnaryOp) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        let level = if op == UnaryOp::Not {
            Level::Not
        } else {
            Level::Factor
        };
        let operand = self.nested(|p| p.operators(level))?;
        Ok(self.node(
            ExprKind::UnaryOp {
                op,
                operand: Box::new(operand),
            },
            start,
        ))
    }

    #[inline(never)]
    fn await_expr(&mut self) -> PResult<Expr> {
        let start = self.start();
        self.advance()?;
        let value = self.primary()?;
        Ok(self.node(ExprKind::Await(Box::new(value)), start))
    }

    /// An atom followed by any number of `.name`, `(...)` and `[...]`.
    fn primary(&mut self) -> PResult<Expr> {
        let start = self.start();
        let value = self.atom()?;
        if matches!(self.tok.kind, Tok::Op(Op::Dot | Op::LPar | Op::LSqb)) {
            return self.postfix(value, start);
        }
        Ok(value)
    }

    /// The trailers after an atom, checking the height of the chain.
    #[inline(never)]
    fn postfix(&mut self, mut value: Expr, start: Pos) -> PResult<Expr> {
        let mut height = value.height();
        while matches!(self.tok.kind, Tok::Op(Op::Dot | Op::LPar | Op::LSqb)) {
            value = self.trailer(value, start, &mut height)?;
        }
        Ok(value)
    }

    fn trailer(&mut self, value: Expr, start: Pos, height: &mut usize) -> PResult<Expr> {
        match self.tok.kind {
            Tok::Op(Op::LPar) => self.call(value, start, height),
            Tok::Op(Op::LSqb) => self.subscript(value, start, height),
            _ => self.attribute(value, start, height),
        }
    }

    fn call(&mut self, func: Expr, start: Pos, height: &mut usize) -> PResult<Expr> {
        let at = self.start();
        self.advance()?;
        let arguments = self.call_arguments()?;
        self.finish_call(func, arguments, start, at, height)
    }

    #[inline(never)]
    fn finish_call(
        &mut self,
        func: Expr,
        (args, keywords): (Vec<Expr>, Vec<Keyword>),
        start: Pos,
        at: Pos,
        height: &mut usize,
    ) -> PResult<Expr> {
        self.expect_op(Op::RPar)?;
        let others = args.iter().chain(keywords.iter().map(|k| &k.value));
        *height = self.taller(*height, others, at)?;
        let kind = ExprKind::Call {
            func: Box::new(func),
            args,
            keywords,
        };
        Ok(self.node(kind, start))
    }

    fn subscript(&mut self, value: Expr, start: Pos, height: &mut usize) -> PResult<Expr> {
        let at = self.start();
        self.advance()?;
        let index = self.slices()?;
        self.finish_subscript(value, index, start, at, height)
    }

    #[inline(never)]
    fn finish_subscript(
        &mut self,
        value: Expr,
        index: Expr,
        start: Pos,
        at: Pos,
        height: &mut usize,
    ) -> PResult<Expr> {
        self.expect_op(Op::RSqb)?;
        *height = self.taller(*height, [&index], at)?;
        let kind = ExprKind::Subscript {
            value: Box::new(value),
            index: Box::new(index),
        };
        Ok(self.node(kind, start))
    }

    #[inline(never)]
    fn attribute(&mut self, value: Expr, start: Pos, height: &mut usize) -> PResult<Expr> {
        let at = self.start();
        self.advance()?;
        let attr = self.name()?;
        *height = self.taller(*height, [], at)?;
        let kind = ExprKind::Attribute {
            value: Box::new(value),
            attr,
        };
        Ok(self.node(kind, start))
    }

    fn atom(&mut self) -> PResult<Expr> {
        match self.tok.kind {
            Tok::Str(_) => self.strings(),
            Tok::Op(Op::LPar) => self.parenthesized(),
            Tok::Op(Op::LSqb) => self.list_display(),
            Tok::Op(Op::LBrace) => self.brace_display(),
            _ => self.simple_atom(),
        }
    }

    /// A name, number, `None`, `True`, `False` or `...`.
    #[inline(never)]
    fn simple_atom(&mut self) -> PResult<Expr> {
        let start = self.start();
        let kind = match &self.tok.kind {
            Tok::Name(name) => ExprKind::Name((*name).to_owned()),
            Tok::Number(value) => ExprKind::Constant(value.clone()),
            Tok::Kw(Kw::None) => ExprKind::Constant(Constant::None),
            Tok::Kw(Kw::True) => ExprKind::Constant(Constant::Bool(true)),
            Tok::Kw(Kw::False) => ExprKind::Constant(Constant::Bool(false)),
            Tok::Op(Op::Ellipsis) => ExprKind::Constant(Constant::Ellipsis),
            _ => return Err(self.expected("an expression")),
        };
        self.advance()?;
        Ok(self.node(kind, start))
    }

    #[inline(never)]
    fn lambda(&mut self) -> PResult<Expr> {
        let start = self.start();
        let params = self.lambda_params()?;
        let body = self.expression()?;
        let kind = ExprKind::Lambda {
            params,
            body: Box::new(body),
        };
        Ok(self.node(kind, start))
    }

    /// `lambda` and its parameters through the `:`.
    #[inline(never)]
    fn lambda_params(&mut self) -> PResult<Box<Arguments>> {
        self.advance()?;
        let params = self.parameters(Op::Colon, false)?;
        self.expect_op(Op::Colon)?;
        Ok(Box::new(params))
    }

    /// `yield [star_expressions]` or `yield from expression`.
    #[inline(never)]
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

/// Operator precedence levels, loosest first, as in Python's grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Or,
    And,
    Not,
    Cmp,
    BitOr,
    BitXor,
    BitAnd,
    Shift,
    Arith,
    Term,
    Factor,
    Power,
}

impl Level {
    /// The next tighter level, for the operands of left-associative
    /// operators.
    fn next(self) -> Level {
        match self {
            Level::Or => Level::And,
            Level::And => Level::Not,
            Level::Not => Level::Cmp,
            Level::Cmp => Level::BitOr,
            Level::BitOr => Level::BitXor,
            Level::BitXor => Level::BitAnd,
            Level::BitAnd => Level::Shift,
            Level::Shift => Level::Arith,
            Level::Arith => Level::Term,
            Level::Term => Level::Factor,
            Level::Factor | Level::Power => Level::Power,
        }
    }
}

/// The kinds of infix operator, by how their operands are gathered.
#[derive(Debug, Clone, Copy)]
enum Infix {
    /// `and`/`or`: flattened into one `BoolOp`.
    Bool(Kw, BoolOp),
    /// A comparison: chained into one `Compare`.
    Compare,
    /// `**`: right-associative, with a unary right operand.
    Power,
    /// The left-associative binary operators.
    Binary(BinOp),
}

/// The infix operator starting at `tok` and its level, if it is one (`not`
/// in infix position can only begin `not in`).
fn infix(tok: &Tok<'_>) -> Option<(Level, Infix)> {
    let found = match tok {
        Tok::Kw(Kw::Or) => (Level::Or, Infix::Bool(Kw::Or, BoolOp::Or)),
        Tok::Kw(Kw::And) => (Level::And, Infix::Bool(Kw::And, BoolOp::And)),
        Tok::Kw(Kw::In | Kw::Not | Kw::Is)
        | Tok::Op(
            Op::EqEqual | Op::NotEqual | Op::Less | Op::LessEqual | Op::Greater | Op::GreaterEqual,
        ) => (Level::Cmp, Infix::Compare),
        Tok::Op(Op::DoubleStar) => (Level::Power, Infix::Power),
        Tok::Op(op) => {
            let (level, op) = match op {
                Op::VBar => (Level::BitOr, BinOp::BitOr),
                Op::Circumflex => (Level::BitXor, BinOp::BitXor),
                Op::Amper => (Level::BitAnd, BinOp::BitAnd),
                Op::LeftShift => (Level::Shift, BinOp::LShift),
                Op::RightShift => (Level::Shift, BinOp::RShift),
                Op::Plus => (Level::Arith, BinOp::Add),
                Op::Minus => (Level::Arith, BinOp::Sub),
                Op::Star => (Level::Term, BinOp::Mult),
                Op::Slash => (Level::Term, BinOp::Div),
                Op::DoubleSlash => (Level::Term, BinOp::FloorDiv),
                Op::Percent => (Level::Term, BinOp::Mod),
                Op::At => (Level::Term, BinOp::MatMult),
                _ => return None,
            };
            (level, Infix::Binary(op))
        }
        _ => return None,
    };
    Some(found)
}

//! Statements and blocks.

use super::brackets::check_target;
use super::{PResult, Parser};
use crate::ast::{
    Alias, BinOp, ExceptHandler, Expr, ExprKind, FunctionDef, Pos, Stmt, StmtKind, WithItem,
};
use crate::error::ParseError;
use crate::token::{Kw, Op, Tok};

impl Parser<'_> {
    /// All statements up to the end of input.
    pub(super) fn file(&mut self) -> PResult<Vec<Stmt>> {
        let mut body = Vec::new();
        while !self.at(&Tok::End) {
            self.statement(&mut body)?;
        }
        Ok(body)
    }

    /// One compound statement, or one line of simple statements.
    fn statement(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        let start = self.start();
        let stmt = match self.tok.kind {
            Tok::Kw(Kw::If) => self.if_statement(),
            Tok::Kw(Kw::While) => self.while_statement(),
            Tok::Kw(Kw::For) => self.for_statement(start, false),
            Tok::Kw(Kw::Try) => self.try_statement(),
            Tok::Kw(Kw::With) => self.with_statement(start, false),
            Tok::Kw(Kw::Def) => self.function_def(start, Vec::new(), false),
            Tok::Kw(Kw::Class) => self.class_def(start, Vec::new()),
            Tok::Kw(Kw::Async) => self.async_statement(Vec::new()),
            Tok::Op(Op::At) => self.decorated(),
            Tok::Indent => Err(ParseError::new(start, "unexpected indent")),
            _ => return self.simple_statements(out),
        }?;
        out.push(stmt);
        Ok(())
    }

    /// `small_stmt (';' small_stmt)* [';'] NEWLINE`.
    fn simple_statements(&mut self, out: &mut Vec<Stmt>) -> PResult<()> {
        loop {
            out.push(self.small_statement()?);
            if !self.eat_op(Op::Semi)? || self.at(&Tok::Newline) {
                break;
            }
        }
        if !self.at(&Tok::Newline) {
            if let Some(Stmt {
                kind: StmtKind::Expr(expr),
                span,
            }) = out.last()
                && matches!(&expr.kind, ExprKind::Name(name) if name == "match")
            {
                return Err(ParseError::new(
                    span.start,
                    "'match' statements are not supported",
                ));
            }
            return Err(self.expected("newline"));
        }
        self.advance()?;
        Ok(())
    }

    fn small_statement(&mut self) -> PResult<Stmt> {
        let start = self.start();
        let kind = match self.tok.kind {
            Tok::Kw(Kw::Pass) => {
                self.advance()?;
                StmtKind::Pass
            }
            Tok::Kw(Kw::Break) => {
                self.advance()?;
                StmtKind::Break
            }
            Tok::Kw(Kw::Continue) => {
                self.advance()?;
                StmtKind::Continue
            }
            Tok::Kw(Kw::Return) => {
                self.advance()?;
                let value = if self.starts_expression() {
                    Some(self.star_expressions()?)
                } else {
                    None
                };
                StmtKind::Return(value)
            }
            Tok::Kw(Kw::Raise) => {
                self.advance()?;
                let exc = if self.starts_expression() {
                    Some(self.expression()?)
                } else {
                    None
                };
                let cause = if exc.is_some() && self.eat_kw(Kw::From)? {
                    Some(self.expression()?)
                } else {
                    None
                };
                StmtKind::Raise { exc, cause }
            }
            Tok::Kw(Kw::Global) => {
                self.advance()?;
                StmtKind::Global(self.names()?)
            }
            Tok::Kw(Kw::Nonlocal) => {
                self.advance()?;
                StmtKind::Nonlocal(self.names()?)
            }
            Tok::Kw(Kw::Del) => {
                self.advance()?;
                StmtKind::Delete(self.del_targets()?)
            }
            Tok::Kw(Kw::Assert) => {
                self.advance()?;
                let test = self.expression()?;
                let msg = if self.eat_op(Op::Comma)? {
                    Some(self.expression()?)
                } else {
                    None
                };
                StmtKind::Assert { test, msg }
            }
            Tok::Kw(Kw::Import) => self.import()?,
            Tok::Kw(Kw::From) => self.import_from()?,
            _ => return self.expression_statement(),
        };
        Ok(Stmt {
            kind,
            span: self.span_from(start),
        })
    }

    /// An expression statement, assignment, augmented or annotated
    /// assignment.
    fn expression_statement(&mut self) -> PResult<Stmt> {
        let start = self.start();
        let first = self.assigned_value()?;
        let kind = if self.at_op(Op::Colon) {
            if !matches!(
                first.kind,
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. }
            ) {
                return Err(ParseError::new(
                    first.span.start,
                    "only a single name, attribute or subscript can be annotated",
                ));
            }
            self.advance()?;
            let annotation = self.expression()?;
            let value = if self.eat_op(Op::Equal)? {
                Some(self.assigned_value()?)
            } else {
                None
            };
            StmtKind::AnnAssign {
                target: first,
                annotation,
                value,
            }
        } else if let Some(op) = augmented_op(&self.tok.kind) {
            if !matches!(
                first.kind,
                ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. }
            ) {
                return Err(ParseError::new(
                    first.span.start,
                    "illegal expression for augmented assignment",
                ));
            }
            self.advance()?;
            let value = self.assigned_value()?;
            StmtKind::AugAssign {
                target: first,
                op,
                value,
            }
        } else if self.at_op(Op::Equal) {
            let mut targets = vec![first];
            let value = loop {
                self.advance()?;
                let value = self.assigned_value()?;
                if !self.at_op(Op::Equal) {
                    break value;
                }
                targets.push(value);
            };
            targets.iter().try_for_each(check_target)?;
            StmtKind::Assign { targets, value }
        } else {
            StmtKind::Expr(first)
        };
        Ok(Stmt {
            kind,
            span: self.span_from(start),
        })
    }

    fn assigned_value(&mut self) -> PResult<Expr> {
        if self.at_kw(Kw::Yield) {
            self.yield_expr()
        } else {
            self.star_expressions()
        }
    }

    fn names(&mut self) -> PResult<Vec<String>> {
        let mut names = vec![self.name()?];
        while self.eat_op(Op::Comma)? {
            names.push(self.name()?);
        }
        Ok(names)
    }

    fn del_targets(&mut self) -> PResult<Vec<Expr>> {
        let mut targets = Vec::new();
        loop {
            let target = self.bitwise_or()?;
            check_target(&target)?;
            targets.push(target);
            if !self.eat_op(Op::Comma)? || !self.starts_expression() {
                return Ok(targets);
            }
        }
    }

    fn dotted_name(&mut self) -> PResult<String> {
        let mut name = self.name()?;
        while self.eat_op(Op::Dot)? {
            name.push('.');
            name.push_str(&self.name()?);
        }
        Ok(name)
    }

    fn alias(&mut self, dotted: bool) -> PResult<Alias> {
        let start = self.start();
        let name = if dotted {
            self.dotted_name()?
        } else {
            self.name()?
        };
        let asname = if self.eat_kw(Kw::As)? {
            Some(self.name()?)
        } else {
            None
        };
        Ok(Alias {
            name,
            asname,
            span: self.span_from(start),
        })
    }

    /// `import dotted [as name], ...`.
    fn import(&mut self) -> PResult<StmtKind> {
        self.advance()?;
        let mut names = vec![self.alias(true)?];
        while self.eat_op(Op::Comma)? {
            names.push(self.alias(true)?);
        }
        Ok(StmtKind::Import(names))
    }

    /// `from [.]*[module] import names | (names) | *`.
    fn import_from(&mut self) -> PResult<StmtKind> {
        self.advance()?;
        let mut level = 0;
        loop {
            if self.eat_op(Op::Dot)? {
                level += 1;
            } else if self.eat_op(Op::Ellipsis)? {
                level += 3;
            } else {
                break;
            }
        }
        let module = if level > 0 && self.at_kw(Kw::Import) {
            None
        } else {
            Some(self.dotted_name()?)
        };
        self.expect_kw(Kw::Import)?;
        let start = self.start();
        if self.eat_op(Op::Star)? {
            let names = vec![Alias {
                name: "*".to_owned(),
                asname: None,
                span: self.span_from(start),
            }];
            return Ok(StmtKind::ImportFrom {
                module,
                names,
                level,
            });
        }
        let parenthesized = self.eat_op(Op::LPar)?;
        let mut names = vec![self.alias(false)?];
        while self.eat_op(Op::Comma)? {
            if parenthesized && self.at_op(Op::RPar) {
                break;
            }
            names.push(self.alias(false)?);
        }
        if parenthesized {
            self.expect_op(Op::RPar)?;
        }
        Ok(StmtKind::ImportFrom {
            module,
            names,
            level,
        })
    }

    /// The `:` and block of a compound statement whose header (described by
    /// `what`) started at `header`.
    fn block(&mut self, what: &str, header: Pos) -> PResult<Vec<Stmt>> {
        self.expect_op(Op::Colon)?;
        let mut body = Vec::new();
        if !self.at(&Tok::Newline) {
            self.simple_statements(&mut body)?;
            return Ok(body);
        }
        self.advance()?;
        if !self.at(&Tok::Indent) {
            return Err(ParseError::new(
                self.start(),
                format!(
                    "expected an indented block after {what} on line {}",
                    header.line
                ),
            ));
        }
        self.advance()?;
        self.nested(|p| {
            while !matches!(p.tok.kind, Tok::Dedent | Tok::End) {
                p.statement(&mut body)?;
            }
            Ok(())
        })?;
        if self.at(&Tok::Dedent) {
            self.advance()?;
        }
        Ok(body)
    }

    /// An optional `else:` block.
    fn else_block(&mut self) -> PResult<Vec<Stmt>> {
        if !self.at_kw(Kw::Else) {
            return Ok(Vec::new());
        }
        let start = self.start();
        self.advance()?;
        self.block("'else' statement", start)
    }

    /// `if` (or, recursively, `elif`) with its branches.
    fn if_statement(&mut self) -> PResult<Stmt> {
        let start = self.start();
        let what = if self.at_kw(Kw::Elif) {
            "'elif' statement"
        } else {
            "'if' statement"
        };
        self.advance()?;
        let test = self.named_expression()?;
        let body = self.block(what, start)?;
        let orelse = if self.at_kw(Kw::Elif) {
            vec![self.nested(Self::if_statement)?]
        } else {
            self.else_block()?
        };
        Ok(Stmt {
            kind: StmtKind::If { test, body, orelse },
            span: self.span_from(start),
        })
    }

    fn while_statement(&mut self) -> PResult<Stmt> {
        let start = self.start();
        self.advance()?;
        let test = self.named_expression()?;
        let body = self.block("'while' statement", start)?;
        let orelse = self.else_block()?;
        Ok(Stmt {
            kind: StmtKind::While { test, body, orelse },
            span: self.span_from(start),
        })
    }

    fn for_statement(&mut self, start: Pos, is_async: bool) -> PResult<Stmt> {
        self.expect_kw(Kw::For)?;
        let target = self.star_targets()?;
        self.expect_kw(Kw::In)?;
        let iter = self.star_expressions()?;
        let body = self.block("'for' statement", start)?;
        let orelse = self.else_block()?;
        Ok(Stmt {
            kind: StmtKind::For {
                target,
                iter,
                body,
                orelse,
                is_async,
            },
            span: self.span_from(start),
        })
    }

    fn try_statement(&mut self) -> PResult<Stmt> {
        let start = self.start();
        self.advance()?;
        let body = self.block("'try' statement", start)?;
        let mut handlers = Vec::new();
        while self.at_kw(Kw::Except) {
            let handler_start = self.start();
            self.advance()?;
            if self.at_op(Op::Star) {
                return Err(ParseError::new(self.start(), "'except*' is not supported"));
            }
            let typ = if self.at_op(Op::Colon) {
                None
            } else {
                Some(self.expression()?)
            };
            let name = if typ.is_some() && self.eat_kw(Kw::As)? {
                Some(self.name()?)
            } else {
                None
            };
            let body = self.block("'except' statement", handler_start)?;
            handlers.push(ExceptHandler {
                typ,
                name,
                body,
                span: self.span_from(handler_start),
            });
        }
        let orelse = if handlers.is_empty() {
            Vec::new()
        } else {
            self.else_block()?
        };
        let finalbody = if self.at_kw(Kw::Finally) {
            let finally_start = self.start();
            self.advance()?;
            self.block("'finally' statement", finally_start)?
        } else {
            Vec::new()
        };
        if handlers.is_empty() && finalbody.is_empty() {
            return Err(self.expected("'except' or 'finally'"));
        }
        Ok(Stmt {
            kind: StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            },
            span: self.span_from(start),
        })
    }

    fn with_statement(&mut self, start: Pos, is_async: bool) -> PResult<Stmt> {
        self.expect_kw(Kw::With)?;
        let items = match self.parenthesized_with_items()? {
            Some(items) => items,
            None => self.with_items(None)?,
        };
        let body = self.block("'with' statement", start)?;
        Ok(Stmt {
            kind: StmtKind::With {
                items,
                body,
                is_async,
            },
            span: self.span_from(start),
        })
    }

    /// Tries the form `with (a as b, c):`, rewinding when the parentheses
    /// turn out to belong to an expression instead.
    fn parenthesized_with_items(&mut self) -> PResult<Option<Vec<WithItem>>> {
        if !self.at_op(Op::LPar) {
            return Ok(None);
        }
        let saved = self.clone();
        let attempt = self.advance().and_then(|_| {
            let items = self.with_items(Some(Op::RPar))?;
            self.expect_op(Op::RPar)?;
            Ok(items)
        });
        match attempt {
            Ok(items) if self.at_op(Op::Colon) => Ok(Some(items)),
            _ => {
                *self = saved;
                Ok(None)
            }
        }
    }

    /// `item (',' item)*`, allowing a trailing comma before `close`.
    fn with_items(&mut self, close: Option<Op>) -> PResult<Vec<WithItem>> {
        let mut items = Vec::new();
        loop {
            let context_expr = self.expression()?;
            let optional_vars = if self.eat_kw(Kw::As)? {
                let target = self.star_target()?;
                check_target(&target)?;
                Some(target)
            } else {
                None
            };
            items.push(WithItem {
                context_expr,
                optional_vars,
            });
            if !self.eat_op(Op::Comma)? || close.is_some_and(|op| self.at_op(op)) {
                return Ok(items);
            }
        }
    }

    /// `@decorator NEWLINE ...` followed by a function or class.
    fn decorated(&mut self) -> PResult<Stmt> {
        let mut decorators = Vec::new();
        while self.eat_op(Op::At)? {
            decorators.push(self.named_expression()?);
            if !self.at(&Tok::Newline) {
                return Err(self.expected("newline after decorator"));
            }
            self.advance()?;
        }
        let start = self.start();
        match self.tok.kind {
            Tok::Kw(Kw::Def) => self.function_def(start, decorators, false),
            Tok::Kw(Kw::Class) => self.class_def(start, decorators),
            Tok::Kw(Kw::Async) => self.async_statement(decorators),
            _ => Err(self.expected("'def' or 'class' after decorators")),
        }
    }

    /// `async def`, `async for` or `async with`.
    fn async_statement(&mut self, decorators: Vec<Expr>) -> PResult<Stmt> {
        let start = self.start();
        self.advance()?;
        match self.tok.kind {
            Tok::Kw(Kw::Def) => self.function_def(start, decorators, true),
            Tok::Kw(Kw::For) if decorators.is_empty() => self.for_statement(start, true),
            Tok::Kw(Kw::With) if decorators.is_empty() => self.with_statement(start, true),
            _ => Err(self.expected("'def', 'for' or 'with' after 'async'")),
        }
    }

    fn function_def(&mut self, start: Pos, decorators: Vec<Expr>, is_async: bool) -> PResult<Stmt> {
        self.expect_kw(Kw::Def)?;
        let name = self.name()?;
        self.expect_op(Op::LPar)?;
        let params = self.parameters(Op::RPar, true)?;
        self.expect_op(Op::RPar)?;
        let returns = if self.eat_op(Op::Arrow)? {
            Some(self.expression()?)
        } else {
            None
        };
        let body = self.block("function definition", start)?;
        Ok(Stmt {
            kind: StmtKind::FunctionDef(Box::new(FunctionDef {
                name,
                params,
                body,
                decorators,
                returns,
                is_async,
            })),
            span: self.span_from(start),
        })
    }

    fn class_def(&mut self, start: Pos, decorators: Vec<Expr>) -> PResult<Stmt> {
        self.expect_kw(Kw::Class)?;
        let name = self.name()?;
        let (bases, keywords) = if self.eat_op(Op::LPar)? {
            let arguments = self.call_arguments()?;
            self.expect_op(Op::RPar)?;
            arguments
        } else {
            (Vec::new(), Vec::new())
        };
        let body = self.block("class definition", start)?;
        Ok(Stmt {
            kind: StmtKind::ClassDef {
                name,
                bases,
                keywords,
                body,
                decorators,
            },
            span: self.span_from(start),
        })
    }
}

/// The operator of an augmented assignment token such as `+=`.
fn augmented_op(tok: &Tok<'_>) -> Option<BinOp> {
    let Tok::Op(op) = tok else {
        return None;
    };
    Some(match op {
        Op::PlusEqual => BinOp::Add,
        Op::MinusEqual => BinOp::Sub,
        Op::StarEqual => BinOp::Mult,
        Op::SlashEqual => BinOp::Div,
        Op::DoubleSlashEqual => BinOp::FloorDiv,
        Op::PercentEqual => BinOp::Mod,
        Op::DoubleStarEqual => BinOp::Pow,
        Op::AtEqual => BinOp::MatMult,
        Op::LeftShiftEqual => BinOp::LShift,
        Op::RightShiftEqual => BinOp::RShift,
        Op::AmperEqual => BinOp::BitAnd,
        Op::VBarEqual => BinOp::BitOr,
        Op::CircumflexEqual => BinOp::BitXor,
        _ => return None,
    })
}

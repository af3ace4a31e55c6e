//! Printing expressions back as source, exactly as CPython 3.11's
//! `ast.unparse` does, so printed catalog expressions match the reference.
//!
//! The only departures are for trees CPython could not have produced or
//! cannot print validly: `u'...'` strings lose their `u` (the tree does not
//! record it), and f-strings whose fields need backslashes or run out of
//! quote kinds (nested more than four deep) are written in Python 3.12's
//! syntax where CPython 3.11 raises an error or emits invalid escapes.

use std::fmt;

use crate::ast::{
    Arguments, BinOp, BoolOp, Comprehension, Constant, Expr, ExprKind, FStringPart, FormattedValue,
    Keyword, Param, UnaryOp,
};
use crate::quotes::{ALL_QUOTES, push_literal_escaped, quote_choices, str_literal_helper};
use vakra_pytext::{bytes_repr, push_str_repr_body, str_repr};

/// Operator precedence levels of `ast._Precedence`, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    NamedExpr,
    Tuple,
    Yield,
    Test,
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
    Await,
    Atom,
}

impl Prec {
    /// The next tighter level (`Atom` stays `Atom`).
    fn next(self) -> Prec {
        match self {
            Prec::NamedExpr => Prec::Tuple,
            Prec::Tuple => Prec::Yield,
            Prec::Yield => Prec::Test,
            Prec::Test => Prec::Or,
            Prec::Or => Prec::And,
            Prec::And => Prec::Not,
            Prec::Not => Prec::Cmp,
            Prec::Cmp => Prec::BitOr,
            Prec::BitOr => Prec::BitXor,
            Prec::BitXor => Prec::BitAnd,
            Prec::BitAnd => Prec::Shift,
            Prec::Shift => Prec::Arith,
            Prec::Arith => Prec::Term,
            Prec::Term => Prec::Factor,
            Prec::Factor => Prec::Power,
            Prec::Power => Prec::Await,
            Prec::Await | Prec::Atom => Prec::Atom,
        }
    }
}

fn binop_prec(op: BinOp) -> Prec {
    match op {
        BinOp::Add | BinOp::Sub => Prec::Arith,
        BinOp::Mult | BinOp::MatMult | BinOp::Div | BinOp::Mod | BinOp::FloorDiv => Prec::Term,
        BinOp::LShift | BinOp::RShift => Prec::Shift,
        BinOp::BitOr => Prec::BitOr,
        BinOp::BitXor => Prec::BitXor,
        BinOp::BitAnd => Prec::BitAnd,
        BinOp::Pow => Prec::Power,
    }
}

/// Written in place of infinite floats, as `ast.unparse` does.
const INFINITY: &str = "1e309";

impl fmt::Display for Expr {
    /// Formats the expression as `ast.unparse` would.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut unparser = Unparser::default();
        unparser.expr(self, Prec::Test);
        f.write_str(&unparser.out)
    }
}

/// Output buffer plus the `_avoid_backslashes` mode used inside f-string
/// replacement fields.
#[derive(Default)]
struct Unparser {
    out: String,
    avoid_backslashes: bool,
}

impl Unparser {
    /// Writes `e` in a context of precedence `prec`, parenthesizing it when
    /// it binds more loosely.
    fn expr(&mut self, e: &Expr, prec: Prec) {
        match &e.kind {
            ExprKind::Name(name) => self.out.push_str(name),
            ExprKind::Constant(value) => self.constant(value),
            ExprKind::JoinedStr(parts) => self.joined_str(parts),
            ExprKind::List(_) | ExprKind::Tuple(_) | ExprKind::Set(_) | ExprKind::Dict(_) => {
                self.display(e, prec)
            }
            ExprKind::Starred(value) => {
                self.out.push('*');
                self.expr(value, Prec::BitOr);
            }
            ExprKind::Attribute { value, attr } => {
                self.expr(value, Prec::Atom);
                if matches!(
                    value.kind,
                    ExprKind::Constant(Constant::Int(_) | Constant::BigInt(_) | Constant::Bool(_))
                ) {
                    self.out.push(' ');
                }
                self.out.push('.');
                self.out.push_str(attr);
            }
            ExprKind::Subscript { value, index } => {
                self.expr(value, Prec::Atom);
                self.out.push('[');
                match &index.kind {
                    ExprKind::Tuple(elts) if !elts.is_empty() => self.items_view(elts),
                    _ => self.expr(index, Prec::Test),
                }
                self.out.push(']');
            }
            ExprKind::Slice { lower, upper, step } => {
                if let Some(lower) = lower {
                    self.expr(lower, Prec::Test);
                }
                self.out.push(':');
                if let Some(upper) = upper {
                    self.expr(upper, Prec::Test);
                }
                if let Some(step) = step {
                    self.out.push(':');
                    self.expr(step, Prec::Test);
                }
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.call(func, args, keywords),
            ExprKind::BinOp { .. }
            | ExprKind::UnaryOp { .. }
            | ExprKind::BoolOp { .. }
            | ExprKind::Compare { .. } => self.operation(e, prec),
            ExprKind::IfExp { test, body, orelse } => self.parens_if(prec > Prec::Test, |u| {
                u.expr(body, Prec::Test.next());
                u.out.push_str(" if ");
                u.expr(test, Prec::Test.next());
                u.out.push_str(" else ");
                u.expr(orelse, Prec::Test);
            }),
            ExprKind::ListComp { elt, generators } => self.comprehension('[', elt, generators, ']'),
            ExprKind::SetComp { elt, generators } => self.comprehension('{', elt, generators, '}'),
            ExprKind::GeneratorExp { elt, generators } => {
                self.comprehension('(', elt, generators, ')');
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                self.out.push('{');
                self.expr(key, Prec::Test);
                self.out.push_str(": ");
                self.expr(value, Prec::Test);
                self.generators(generators);
                self.out.push('}');
            }
            ExprKind::Lambda { params, body } => self.parens_if(prec > Prec::Test, |u| {
                u.out.push_str("lambda");
                let mut buffer = Unparser {
                    out: String::new(),
                    avoid_backslashes: u.avoid_backslashes,
                };
                buffer.arguments(params);
                if !buffer.out.is_empty() {
                    u.out.push(' ');
                    u.out.push_str(&buffer.out);
                }
                u.out.push_str(": ");
                u.expr(body, Prec::Test);
            }),
            ExprKind::Await(value) => self.parens_if(prec > Prec::Await, |u| {
                u.out.push_str("await ");
                u.expr(value, Prec::Atom);
            }),
            ExprKind::Yield(value) => self.parens_if(prec > Prec::Yield, |u| {
                u.out.push_str("yield");
                if let Some(value) = value {
                    u.out.push(' ');
                    u.expr(value, Prec::Atom);
                }
            }),
            ExprKind::YieldFrom(value) => self.parens_if(prec > Prec::Yield, |u| {
                u.out.push_str("yield from ");
                u.expr(value, Prec::Atom);
            }),
            ExprKind::NamedExpr { target, value } => {
                self.parens_if(prec > Prec::NamedExpr, |u| {
                    u.expr(target, Prec::Atom);
                    u.out.push_str(" := ");
                    u.expr(value, Prec::Atom);
                });
            }
        }
    }

    /// A list, tuple, set or dict display.
    fn display(&mut self, e: &Expr, prec: Prec) {
        match &e.kind {
            ExprKind::List(elts) => {
                self.out.push('[');
                self.comma_separated(elts, Prec::Test);
                self.out.push(']');
            }
            ExprKind::Tuple(elts) => {
                let parens = elts.is_empty() || prec > Prec::Tuple;
                self.parens_if(parens, |u| u.items_view(elts));
            }
            ExprKind::Set(elts) => {
                if elts.is_empty() {
                    self.out.push_str("{*()}");
                } else {
                    self.out.push('{');
                    self.comma_separated(elts, Prec::Test);
                    self.out.push('}');
                }
            }
            ExprKind::Dict(items) => {
                self.out.push('{');
                for (i, (key, value)) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match key {
                        Some(key) => {
                            self.expr(key, Prec::Test);
                            self.out.push_str(": ");
                            self.expr(value, Prec::Test);
                        }
                        None => {
                            self.out.push_str("**");
                            self.expr(value, Prec::BitOr);
                        }
                    }
                }
                self.out.push('}');
            }
            _ => {}
        }
    }

    /// An arithmetic, unary, boolean or comparison operation.
    fn operation(&mut self, e: &Expr, prec: Prec) {
        match &e.kind {
            ExprKind::BinOp { left, op, right } => {
                let op_prec = binop_prec(*op);
                let (left_prec, right_prec) = if *op == BinOp::Pow {
                    (op_prec.next(), op_prec)
                } else {
                    (op_prec, op_prec.next())
                };
                self.parens_if(prec > op_prec, |u| {
                    u.expr(left, left_prec);
                    u.out.push(' ');
                    u.out.push_str(op.symbol());
                    u.out.push(' ');
                    u.expr(right, right_prec);
                });
            }
            ExprKind::UnaryOp { op, operand } => {
                let op_prec = if *op == UnaryOp::Not {
                    Prec::Not
                } else {
                    Prec::Factor
                };
                self.parens_if(prec > op_prec, |u| {
                    u.out.push_str(op.symbol());
                    if *op == UnaryOp::Not {
                        u.out.push(' ');
                    }
                    u.expr(operand, op_prec);
                });
            }
            ExprKind::BoolOp { op, values } => {
                let mut op_prec = if *op == BoolOp::And {
                    Prec::And
                } else {
                    Prec::Or
                };
                self.parens_if(prec > op_prec, |u| {
                    for (i, value) in values.iter().enumerate() {
                        if i > 0 {
                            u.out.push(' ');
                            u.out.push_str(op.symbol());
                            u.out.push(' ');
                        }
                        op_prec = op_prec.next();
                        u.expr(value, op_prec);
                    }
                });
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => self.parens_if(prec > Prec::Cmp, |u| {
                u.expr(left, Prec::Cmp.next());
                for (op, comparator) in ops.iter().zip(comparators) {
                    u.out.push(' ');
                    u.out.push_str(op.symbol());
                    u.out.push(' ');
                    u.expr(comparator, Prec::Cmp.next());
                }
            }),
            _ => {}
        }
    }

    fn parens_if(&mut self, parens: bool, body: impl FnOnce(&mut Self)) {
        if parens {
            self.out.push('(');
        }
        body(self);
        if parens {
            self.out.push(')');
        }
    }

    fn comma_separated(&mut self, elts: &[Expr], prec: Prec) {
        for (i, elt) in elts.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(elt, prec);
        }
    }

    /// Tuple items: a single item keeps its trailing comma.
    fn items_view(&mut self, elts: &[Expr]) {
        self.comma_separated(elts, Prec::Test);
        if elts.len() == 1 {
            self.out.push(',');
        }
    }

    fn constant(&mut self, value: &Constant) {
        match value {
            Constant::None => self.out.push_str("None"),
            Constant::Bool(true) => self.out.push_str("True"),
            Constant::Bool(false) => self.out.push_str("False"),
            Constant::Int(value) => self.out.push_str(&value.to_string()),
            Constant::BigInt(digits) => self.out.push_str(digits),
            Constant::Float(value) => {
                let repr = vakra_pytext::float_repr(*value)
                    .replace("inf", INFINITY)
                    .replace("nan", &format!("({INFINITY}-{INFINITY})"));
                self.out.push_str(&repr);
            }
            Constant::Str(text) if self.avoid_backslashes => {
                let (body, quotes) = str_literal_helper(text, &ALL_QUOTES, false);
                self.quoted(&body, quotes[0]);
            }
            Constant::Str(text) => self.out.push_str(&str_repr(text)),
            Constant::Bytes(bytes) => self.out.push_str(&bytes_repr(bytes)),
            Constant::Ellipsis => self.out.push_str("..."),
        }
    }

    fn quoted(&mut self, body: &str, quote: &str) {
        self.out.push_str(quote);
        self.out.push_str(body);
        self.out.push_str(quote);
    }

    fn call(&mut self, func: &Expr, args: &[Expr], keywords: &[Keyword]) {
        self.expr(func, Prec::Atom);
        self.out.push('(');
        self.comma_separated(args, Prec::Test);
        for (i, keyword) in keywords.iter().enumerate() {
            if i > 0 || !args.is_empty() {
                self.out.push_str(", ");
            }
            match &keyword.arg {
                Some(arg) => {
                    self.out.push_str(arg);
                    self.out.push('=');
                }
                None => self.out.push_str("**"),
            }
            self.expr(&keyword.value, Prec::Test);
        }
        self.out.push(')');
    }

    fn comprehension(&mut self, open: char, elt: &Expr, generators: &[Comprehension], close: char) {
        self.out.push(open);
        self.expr(elt, Prec::Test);
        self.generators(generators);
        self.out.push(close);
    }

    fn generators(&mut self, generators: &[Comprehension]) {
        for generator in generators {
            self.out.push_str(if generator.is_async {
                " async for "
            } else {
                " for "
            });
            self.expr(&generator.target, Prec::Tuple);
            self.out.push_str(" in ");
            self.expr(&generator.iter, Prec::Test.next());
            for condition in &generator.ifs {
                self.out.push_str(" if ");
                self.expr(condition, Prec::Test.next());
            }
        }
    }

    /// `ast.arguments` as `visit_arguments` writes it.
    fn arguments(&mut self, params: &Arguments) {
        let mut first = true;
        let positional = params.posonly.iter().chain(&params.args);
        for (index, param) in positional.enumerate() {
            self.separator(&mut first);
            self.param(param);
            if index + 1 == params.posonly.len() {
                self.out.push_str(", /");
            }
        }
        if params.vararg.is_some() || !params.kwonly.is_empty() {
            self.separator(&mut first);
            self.out.push('*');
            if let Some(vararg) = &params.vararg {
                self.out.push_str(&vararg.name);
                self.annotation(vararg);
            }
        }
        for param in &params.kwonly {
            self.out.push_str(", ");
            self.param(param);
        }
        if let Some(kwarg) = &params.kwarg {
            self.separator(&mut first);
            self.out.push_str("**");
            self.out.push_str(&kwarg.name);
            self.annotation(kwarg);
        }
    }

    fn separator(&mut self, first: &mut bool) {
        if !*first {
            self.out.push_str(", ");
        }
        *first = false;
    }

    fn param(&mut self, param: &Param) {
        self.out.push_str(&param.name);
        self.annotation(param);
        if let Some(default) = &param.default {
            self.out.push('=');
            self.expr(default, Prec::Test);
        }
    }

    fn annotation(&mut self, param: &Param) {
        if let Some(annotation) = &param.annotation {
            self.out.push_str(": ");
            self.expr(annotation, Prec::Test);
        }
    }

    /// `visit_JoinedStr`: picks quotes that work for every part, escaping
    /// whitespace only in literal parts.
    ///
    /// CPython also escapes the text of replacement fields, which only
    /// gives valid source when there is nothing to escape (it refuses
    /// fields needing a backslash). Field text is used as is here instead:
    /// the same output whenever CPython's is valid, and otherwise output
    /// valid since Python 3.12 (which lets a field reuse the enclosing
    /// quotes) rather than escapes that grow exponentially with nesting.
    fn joined_str(&mut self, parts: &[FStringPart]) {
        self.out.push('f');
        if self.avoid_backslashes {
            self.nested_joined_str(parts);
            return;
        }
        let chunks: Vec<(String, bool)> = parts
            .iter()
            .map(|part| {
                let mut chunk = String::new();
                fstring_inner(std::slice::from_ref(part), &mut chunk);
                (chunk, matches!(part, FStringPart::Literal(_)))
            })
            .collect();
        let mut quote_types = ALL_QUOTES.to_vec();
        let mut bodies = Vec::with_capacity(chunks.len());
        let mut fallback = false;
        for (chunk, is_literal) in &chunks {
            let (body, new_quotes) = if *is_literal {
                str_literal_helper(chunk, &quote_types, true)
            } else {
                let mut body = chunk.clone();
                let quotes = quote_choices(&mut body, &quote_types);
                (body, quotes.unwrap_or_else(|| quote_types.clone()))
            };
            bodies.push(body);
            if new_quotes.iter().all(|q| !quote_types.contains(q)) {
                fallback = true;
                break;
            }
            quote_types = new_quotes;
        }
        if fallback {
            quote_types = vec!["'''"];
            bodies = chunks
                .iter()
                .map(|(chunk, is_literal)| {
                    if !is_literal {
                        return chunk.clone();
                    }
                    let mut body = String::new();
                    push_str_repr_body(&mut body, chunk, '\'');
                    body
                })
                .collect();
        }
        self.quoted(&bodies.concat(), quote_types[0]);
    }

    /// An f-string inside a replacement field, written as
    /// `_write_str_avoiding_backslashes` would write its text.
    fn nested_joined_str(&mut self, parts: &[FStringPart]) {
        let pieces: Vec<(String, bool)> = parts
            .iter()
            .map(|part| match part {
                FStringPart::Literal(text) => (double_braces(text), true),
                FStringPart::Formatted(field) => {
                    let mut text = String::new();
                    formatted_value(field, &mut text);
                    (text, false)
                }
            })
            .collect();
        let mut escaped = String::new();
        for (text, is_literal) in &pieces {
            if *is_literal {
                push_literal_escaped(&mut escaped, text, false);
            } else {
                escaped.push_str(text);
            }
        }
        if let Some(quotes) = quote_choices(&mut escaped, &ALL_QUOTES) {
            self.quoted(&escaped, quotes[0]);
            return;
        }
        let mut body = String::new();
        for (text, is_literal) in &pieces {
            if *is_literal {
                push_str_repr_body(&mut body, text, '\'');
            } else {
                body.push_str(text);
            }
        }
        self.quoted(&body, "'");
    }
}

/// Literal f-string text with its braces doubled.
fn double_braces(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// `_write_fstring_inner`: literal text with braces doubled, and fields.
fn fstring_inner(parts: &[FStringPart], out: &mut String) {
    for part in parts {
        match part {
            FStringPart::Literal(text) => out.push_str(&double_braces(text)),
            FStringPart::Formatted(field) => formatted_value(field, out),
        }
    }
}

/// `visit_FormattedValue`. CPython refuses fields whose expression needs a
/// backslash; they are written as is here (valid since Python 3.12).
fn formatted_value(field: &FormattedValue, out: &mut String) {
    out.push('{');
    let mut inner = Unparser {
        out: String::new(),
        avoid_backslashes: true,
    };
    inner.expr(&field.value, Prec::Test.next());
    if inner.out.starts_with('{') {
        out.push(' ');
    }
    out.push_str(&inner.out);
    if let Some(conversion) = field.conversion {
        out.push('!');
        out.push(conversion.letter());
    }
    if let Some(spec) = &field.format_spec {
        out.push(':');
        fstring_inner(spec, out);
    }
    out.push('}');
}

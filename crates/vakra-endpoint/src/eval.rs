//! The expression language of catalogs: a Python subset, evaluated with Python's semantics.
//!
//! Supported: names, constants (`None`, booleans, numbers, strings, bytes), list, tuple and dict
//! displays (with `*` and `**` spreads), indexing and slicing (negative indices included),
//! `+ - * / // %`, unary `- + not`, `and`/`or`, comparisons (`== != < <= > >= is is not in not
//! in`), conditional expressions, list comprehensions and generator expressions (tuple targets,
//! `if` clauses), f-strings without format specs, the builtins `len int float str bool dict
//! tuple list enumerate range abs` and the string methods `split join strip lower upper
//! replace`. Errors carry Python's exception name and message; an endpoint that raises answers
//! 500, as in the reference.
//!
//! Evaluation recurses into operands, so [`compile`] bounds the nesting ([`MAX_NESTING`]); the
//! left-leaning chains the parser builds in loops (`a + b + c`, `s[0][1]`, `s.strip().lower()`)
//! are walked in loops here too, so their length costs no stack.

use vakra_pysyntax::ast::{
    BinOp, BoolOp, Comprehension, Constant, Conversion, Expr, ExprKind, FStringPart,
};

pub use crate::exception::PyError;

use crate::PyValue;
use crate::builtins::{BUILTINS, METHODS, call_builtin, str_method};
use crate::pyops::{
    MAX_SEQUENCE, binop, compare, dict_insert, integer, iterate, slice, subscript, unary,
};

/// Deepest nesting of operands, items, arguments and comprehension clauses an expression may
/// have (links of a chain such as `a + b + c` or `s[0][1]` do not nest). Evaluation recurses
/// once per level, and this many levels fit a 2 MiB stack even in debug builds; the parser's
/// own limit is 200 brackets, and the reference's handlers never nest beyond about 10.
pub const MAX_NESTING: usize = 256;

/// Parses `source` and checks that it only uses supported constructs and names from `known`
/// (plus builtins and its own comprehension variables), nested at most [`MAX_NESTING`] deep.
pub fn compile(source: &str, known: &[String]) -> Result<Expr, String> {
    let expr = vakra_pysyntax::parse_expression(source).map_err(|e| e.to_string())?;
    let mut scope: Vec<String> = known.to_vec();
    check(&expr, &mut scope, 1)?;
    Ok(expr)
}

/// What a link of a left-leaning chain applies to the value of its operand.
enum Link<'e> {
    /// `operand <op> right`.
    BinOp(BinOp, &'e Expr),
    /// `operand[index]`, the index possibly a slice.
    Index(&'e Expr),
    /// `operand.method(args)`.
    Method(&'e str, &'e [Expr]),
}

/// Splits `a + b`, `a[i]` and `a.method(...)` into `a`, which Python evaluates first, and the
/// link.
fn chain_link(expr: &Expr) -> Option<(&Expr, Link<'_>)> {
    match &expr.kind {
        ExprKind::BinOp { left, op, right } => Some((left, Link::BinOp(*op, right))),
        ExprKind::Subscript { value, index } => Some((value, Link::Index(index))),
        ExprKind::Call { func, args, .. } => match &func.kind {
            ExprKind::Attribute { value, attr } => Some((value, Link::Method(attr, args))),
            _ => None,
        },
        _ => None,
    }
}

/// Checks `expr`, nested `depth` levels deep (the whole expression is at 1), walking its chain
/// as [`Env::eval`] does.
fn check(expr: &Expr, scope: &mut Vec<String>, depth: usize) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err(format!(
            "expression nested too deeply (more than {MAX_NESTING} levels)"
        ));
    }
    let inner = depth + 1;
    let mut node = expr;
    while let Some((operand, link)) = chain_link(node) {
        match link {
            Link::BinOp(op, right) => {
                if !matches!(
                    op,
                    BinOp::Add
                        | BinOp::Sub
                        | BinOp::Mult
                        | BinOp::Div
                        | BinOp::FloorDiv
                        | BinOp::Mod
                ) {
                    return Err(format!("unsupported operator in {node}"));
                }
                check(right, scope, inner)?;
            }
            Link::Index(index) => match &index.kind {
                ExprKind::Slice { lower, upper, step } => [lower, upper, step]
                    .into_iter()
                    .flatten()
                    .try_for_each(|e| check(e, scope, inner))?,
                _ => check(index, scope, inner)?,
            },
            Link::Method(..) => check_call(node, scope, inner)?,
        }
        node = operand;
    }
    check_node(node, scope, inner)
}

/// Checks a node that is not a chain link; its operands are at `depth`.
fn check_node(expr: &Expr, scope: &mut Vec<String>, depth: usize) -> Result<(), String> {
    match &expr.kind {
        ExprKind::Name(name) => {
            if scope.iter().any(|n| n == name) {
                Ok(())
            } else if BUILTINS.contains(&name.as_str()) {
                Err(format!("builtin {name:?} can only be called"))
            } else {
                Err(format!("name {name:?} is not defined"))
            }
        }
        ExprKind::Constant(Constant::Ellipsis) => Err("'...' is not supported".into()),
        ExprKind::Constant(_) => Ok(()),
        ExprKind::JoinedStr(parts) => parts.iter().try_for_each(|part| match part {
            FStringPart::Literal(_) => Ok(()),
            FStringPart::Formatted(f) if f.format_spec.is_some() => Err(format!(
                "format specs in f-strings are not supported: {expr}"
            )),
            FStringPart::Formatted(f) => check(&f.value, scope, depth),
        }),
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            items.iter().try_for_each(|item| match &item.kind {
                ExprKind::Starred(inner) => check(inner, scope, depth),
                _ => check(item, scope, depth),
            })
        }
        ExprKind::Dict(pairs) => pairs.iter().try_for_each(|(k, v)| {
            if let Some(k) = k {
                check(k, scope, depth)?;
            }
            check(v, scope, depth)
        }),
        ExprKind::Call { .. } => check_call(expr, scope, depth),
        ExprKind::UnaryOp { op, operand } => {
            if matches!(op, vakra_pysyntax::ast::UnaryOp::Invert) {
                return Err("'~' is not supported".into());
            }
            check(operand, scope, depth)
        }
        ExprKind::BoolOp { values, .. } => values.iter().try_for_each(|e| check(e, scope, depth)),
        ExprKind::Compare {
            left, comparators, ..
        } => {
            check(left, scope, depth)?;
            comparators.iter().try_for_each(|e| check(e, scope, depth))
        }
        ExprKind::IfExp { test, body, orelse } => {
            check(test, scope, depth)?;
            check(body, scope, depth)?;
            check(orelse, scope, depth)
        }
        ExprKind::ListComp { elt, generators } | ExprKind::GeneratorExp { elt, generators } => {
            // Each clause is one more level of recursion when evaluating.
            let outer = scope.len();
            let mut depth = depth;
            for generator in generators {
                if generator.is_async {
                    return Err("async comprehensions are not supported".into());
                }
                check(&generator.iter, scope, depth)?;
                bind_names(&generator.target, scope, depth)?;
                generator
                    .ifs
                    .iter()
                    .try_for_each(|e| check(e, scope, depth))?;
                depth += 1;
            }
            let checked = check(elt, scope, depth);
            scope.truncate(outer);
            checked
        }
        _ => Err(format!("unsupported expression: {expr}")),
    }
}

/// A call of a builtin or a `str` method: positional arguments only, no `*` spreads, and none
/// of the forms CPython accepts that the evaluator does not implement.
fn check_call(call: &Expr, scope: &mut Vec<String>, depth: usize) -> Result<(), String> {
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &call.kind
    else {
        return Err(format!("unsupported expression: {call}"));
    };
    let callee_supported = match &func.kind {
        ExprKind::Name(name) => BUILTINS.contains(&name.as_str()),
        ExprKind::Attribute { attr, .. } => METHODS.contains(&attr.as_str()),
        _ => false,
    };
    if !callee_supported {
        return Err(format!("unsupported call: {func}"));
    }
    if !keywords.is_empty() {
        return Err("keyword arguments are not supported".into());
    }
    if args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_))) {
        return Err(format!("* in call arguments is not supported: {call}"));
    }
    match (&func.kind, args.len()) {
        (ExprKind::Name(name), 2) if name == "int" => {
            return Err(format!("int() with a base is not supported: {call}"));
        }
        (ExprKind::Name(name), 2 | 3) if name == "str" => {
            return Err(format!("str() with an encoding is not supported: {call}"));
        }
        _ => {}
    }
    args.iter().try_for_each(|e| check(e, scope, depth))
}

fn bind_names(target: &Expr, scope: &mut Vec<String>, depth: usize) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err(format!(
            "comprehension target nested too deeply (more than {MAX_NESTING} levels)"
        ));
    }
    match &target.kind {
        ExprKind::Name(name) => {
            scope.push(name.clone());
            Ok(())
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => items
            .iter()
            .try_for_each(|t| bind_names(t, scope, depth + 1)),
        _ => Err(format!("unsupported comprehension target: {target}")),
    }
}

/// Variables of one handler call.
#[derive(Debug, Default)]
pub struct Env {
    vars: Vec<(String, PyValue)>,
}

impl Env {
    /// An empty environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Assigns a variable (replacing an earlier value, as Python reassignment does).
    pub fn set(&mut self, name: &str, value: PyValue) {
        match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((name.to_owned(), value)),
        }
    }

    /// A variable's value.
    pub fn get(&self, name: &str) -> Option<&PyValue> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// Evaluates a compiled expression.
    pub fn eval(&mut self, expr: &Expr) -> Result<PyValue, PyError> {
        let mut links = Vec::new();
        let mut node = expr;
        while let Some((operand, link)) = chain_link(node) {
            links.push(link);
            node = operand;
        }
        let mut pending = links.into_iter().rev().peekable();
        let mut value = match (&node.kind, pending.peek()) {
            // `row[0]`: the item is copied, not the whole variable first.
            (ExprKind::Name(name), Some(Link::Index(index)))
                if !matches!(index.kind, ExprKind::Slice { .. })
                    && matches!(self.get(name), Some(PyValue::List(_) | PyValue::Tuple(_))) =>
            {
                let index = *index;
                pending.next();
                self.variable_item(name, index)?
            }
            _ => self.eval_node(node)?,
        };
        for link in pending {
            value = self.apply(link, value)?;
        }
        Ok(value)
    }

    /// `name[index]` for a list or tuple variable: the item at an index in range is cloned
    /// alone; anything else goes through [`subscript`] on a copy, for Python's errors.
    fn variable_item(&mut self, name: &str, index: &Expr) -> Result<PyValue, PyError> {
        let key = self.eval(index)?;
        if let (Some(PyValue::List(items) | PyValue::Tuple(items)), Some(i)) =
            (self.get(name), integer(&key))
        {
            let len = items.len() as i64;
            let i = if i < 0 { i + len } else { i };
            if (0..len).contains(&i) {
                return Ok(items[i as usize].clone());
            }
        }
        let container = self
            .get(name)
            .cloned()
            .ok_or_else(|| PyError::name_error(name))?;
        subscript(container, &key)
    }

    /// Applies one chain link to the value of its operand.
    fn apply(&mut self, link: Link<'_>, value: PyValue) -> Result<PyValue, PyError> {
        match link {
            Link::BinOp(op, right) => {
                let right = self.eval(right)?;
                binop(op, value, right)
            }
            Link::Index(index) => match &index.kind {
                ExprKind::Slice { lower, upper, step } => {
                    let mut bound = |e: &Option<Box<Expr>>| match e {
                        Some(e) => self.eval(e),
                        None => Ok(PyValue::None),
                    };
                    let (lower, upper, step) = (bound(lower)?, bound(upper)?, bound(step)?);
                    slice(value, lower, upper, step)
                }
                _ => {
                    let key = self.eval(index)?;
                    subscript(value, &key)
                }
            },
            Link::Method(name, args) => {
                // The attribute is looked up before the arguments are evaluated.
                let PyValue::Str(receiver) = value else {
                    return Err(PyError::new(
                        "AttributeError",
                        format!("'{}' object has no attribute '{name}'", value.type_name()),
                    ));
                };
                let args = self.eval_items(args)?;
                str_method(&receiver, name, args)
            }
        }
    }

    /// Evaluates a node that is not a chain link.
    fn eval_node(&mut self, expr: &Expr) -> Result<PyValue, PyError> {
        match &expr.kind {
            ExprKind::Name(name) => self
                .get(name)
                .cloned()
                .ok_or_else(|| PyError::name_error(name)),
            ExprKind::Constant(c) => constant(c),
            ExprKind::JoinedStr(parts) => self.fstring(parts),
            ExprKind::List(items) => Ok(PyValue::List(self.eval_items(items)?)),
            ExprKind::Tuple(items) => Ok(PyValue::Tuple(self.eval_items(items)?)),
            ExprKind::Dict(pairs) => self.dict(pairs),
            ExprKind::Call { func, args, .. } => match &func.kind {
                ExprKind::Name(name) => {
                    let args = self.eval_items(args)?;
                    call_builtin(name, args)
                }
                _ => Err(PyError::type_error("object is not callable")),
            },
            ExprKind::UnaryOp { op, operand } => {
                let value = self.eval(operand)?;
                unary(*op, value)
            }
            ExprKind::BoolOp { op, values } => {
                let mut last = PyValue::None;
                for value in values {
                    last = self.eval(value)?;
                    if last.truthy() == matches!(op, BoolOp::Or) {
                        break;
                    }
                }
                Ok(last)
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let mut current = self.eval(left)?;
                for (op, right) in ops.iter().zip(comparators) {
                    let next = self.eval(right)?;
                    if !compare(*op, &current, &next)? {
                        return Ok(PyValue::Bool(false));
                    }
                    current = next;
                }
                Ok(PyValue::Bool(true))
            }
            ExprKind::IfExp { test, body, orelse } => {
                if self.eval(test)?.truthy() {
                    self.eval(body)
                } else {
                    self.eval(orelse)
                }
            }
            ExprKind::ListComp { elt, generators } | ExprKind::GeneratorExp { elt, generators } => {
                let mut out = Vec::new();
                let outer = self.vars.len();
                let result = self.comprehension(elt, generators, &mut out);
                self.vars.truncate(outer);
                result.map(|()| PyValue::List(out))
            }
            _ => Err(PyError::type_error(format!(
                "unsupported expression: {expr}"
            ))),
        }
    }

    fn fstring(&mut self, parts: &[FStringPart]) -> Result<PyValue, PyError> {
        let mut out = String::new();
        for part in parts {
            match part {
                FStringPart::Literal(text) => out.push_str(text),
                FStringPart::Formatted(f) => {
                    let value = self.eval(&f.value)?;
                    out.push_str(&match f.conversion {
                        None | Some(Conversion::Str) => value.str(),
                        Some(Conversion::Repr) => value.repr(),
                        Some(Conversion::Ascii) => vakra_pytext::ascii(&value.repr()),
                    });
                }
            }
        }
        Ok(PyValue::Str(out))
    }

    fn dict(&mut self, pairs: &[(Option<Expr>, Expr)]) -> Result<PyValue, PyError> {
        let mut out: Vec<(PyValue, PyValue)> = Vec::new();
        for (key, value) in pairs {
            match key {
                Some(key) => {
                    let k = self.eval(key)?;
                    let v = self.eval(value)?;
                    dict_insert(&mut out, k, v)?;
                }
                None => match self.eval(value)? {
                    PyValue::Dict(more) => {
                        for (k, v) in more {
                            dict_insert(&mut out, k, v)?;
                        }
                    }
                    other => {
                        return Err(PyError::type_error(format!(
                            "'{}' object is not a mapping",
                            other.type_name()
                        )));
                    }
                },
            }
        }
        Ok(PyValue::Dict(out))
    }

    /// The items of a list or tuple display, or the arguments of a call.
    fn eval_items(&mut self, items: &[Expr]) -> Result<Vec<PyValue>, PyError> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match &item.kind {
                ExprKind::Starred(inner) => {
                    let value = self.eval(inner)?;
                    let type_name = value.type_name();
                    out.extend(iterate(value).map_err(|_| {
                        PyError::type_error(format!(
                            "Value after * must be an iterable, not {type_name}"
                        ))
                    })?);
                }
                _ => out.push(self.eval(item)?),
            }
        }
        Ok(out)
    }

    fn comprehension(
        &mut self,
        elt: &Expr,
        generators: &[Comprehension],
        out: &mut Vec<PyValue>,
    ) -> Result<(), PyError> {
        let Some((first, rest)) = generators.split_first() else {
            let value = self.eval(elt)?;
            if out.len() >= MAX_SEQUENCE {
                return Err(PyError::new("MemoryError", "comprehension too large"));
            }
            out.push(value);
            return Ok(());
        };
        let items = iterate(self.eval(&first.iter)?)?;
        let depth = self.vars.len();
        'items: for item in items {
            self.vars.truncate(depth);
            self.assign(&first.target, item)?;
            for condition in &first.ifs {
                if !self.eval(condition)?.truthy() {
                    continue 'items;
                }
            }
            self.comprehension(elt, rest, out)?;
        }
        self.vars.truncate(depth);
        Ok(())
    }

    fn assign(&mut self, target: &Expr, value: PyValue) -> Result<(), PyError> {
        match &target.kind {
            ExprKind::Name(name) => {
                self.vars.push((name.clone(), value));
                Ok(())
            }
            ExprKind::Tuple(targets) | ExprKind::List(targets) => {
                let items = iterate(value)?;
                if items.len() != targets.len() {
                    return Err(PyError::value_error(if items.len() > targets.len() {
                        format!("too many values to unpack (expected {})", targets.len())
                    } else {
                        format!(
                            "not enough values to unpack (expected {}, got {})",
                            targets.len(),
                            items.len()
                        )
                    }));
                }
                targets
                    .iter()
                    .zip(items)
                    .try_for_each(|(t, v)| self.assign(t, v))
            }
            _ => Err(PyError::type_error("unsupported assignment target")),
        }
    }
}

fn constant(c: &Constant) -> Result<PyValue, PyError> {
    Ok(match c {
        Constant::None => PyValue::None,
        Constant::Bool(b) => PyValue::Bool(*b),
        Constant::Int(i) => PyValue::Int(*i),
        Constant::Float(f) => PyValue::Float(*f),
        Constant::Str(s) => PyValue::Str(s.clone()),
        Constant::Bytes(b) => PyValue::Bytes(b.clone()),
        _ => return Err(crate::pyops::overflow()),
    })
}

#[cfg(test)]
mod tests {
    use vakra_pysyntax::ast::{CmpOp, UnaryOp};

    use super::*;

    fn node(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Default::default(),
        }
    }
    fn name(n: &str) -> Expr {
        node(ExprKind::Name(n.into()))
    }
    fn boxed(n: &str) -> Box<Expr> {
        Box::new(name(n))
    }
    fn call(func: Expr, arg: Expr) -> ExprKind {
        ExprKind::Call {
            func: Box::new(func),
            args: vec![arg],
            keywords: vec![],
        }
    }

    /// Wraps an operand in one more level of nesting.
    type Wrap = fn(Expr) -> ExprKind;

    /// Each way an expression nests, with the levels it costs (two for a comprehension).
    fn wrappers() -> Vec<(&'static str, usize, Wrap)> {
        vec![
            ("list", 1, |e| ExprKind::List(vec![e])),
            ("starred", 1, |e| {
                ExprKind::Tuple(vec![node(ExprKind::Starred(Box::new(e)))])
            }),
            ("dict", 1, |e| ExprKind::Dict(vec![(Some(name("x")), e)])),
            ("unary", 1, |e| ExprKind::UnaryOp {
                op: UnaryOp::Not,
                operand: Box::new(e),
            }),
            ("builtin", 1, |e| call(name("str"), e)),
            ("method", 1, |e| {
                call(
                    node(ExprKind::Attribute {
                        value: boxed("x"),
                        attr: "strip".into(),
                    }),
                    e,
                )
            }),
            ("binop", 1, |e| ExprKind::BinOp {
                left: boxed("x"),
                op: BinOp::Add,
                right: Box::new(e),
            }),
            ("index", 1, |e| ExprKind::Subscript {
                value: Box::new(node(ExprKind::List(vec![e]))),
                index: Box::new(node(ExprKind::Constant(Constant::Int(0)))),
            }),
            ("compare", 1, |e| ExprKind::Compare {
                left: boxed("x"),
                ops: vec![CmpOp::NotEq],
                comparators: vec![e],
            }),
            ("boolop", 1, |e| ExprKind::BoolOp {
                op: BoolOp::And,
                values: vec![name("x"), e],
            }),
            ("ifexp", 1, |e| ExprKind::IfExp {
                test: boxed("x"),
                body: Box::new(e),
                orelse: boxed("x"),
            }),
            ("fstring", 1, |e| {
                ExprKind::JoinedStr(vec![FStringPart::Formatted(
                    vakra_pysyntax::ast::FormattedValue {
                        value: Box::new(e),
                        conversion: None,
                        format_spec: None,
                    },
                )])
            }),
            ("comprehension", 2, |e| ExprKind::ListComp {
                elt: Box::new(e),
                generators: vec![Comprehension {
                    target: name("y"),
                    iter: name("x"),
                    ifs: vec![],
                    is_async: false,
                }],
            }),
        ]
    }

    fn on_stack<T: Send + 'static>(size: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(size)
            .spawn(f)
            .expect("spawn")
            .join()
            .expect("no panic")
    }

    /// Evaluation recurses once per nesting level: [`MAX_NESTING`] levels of every kind fit
    /// a 2 MiB stack (Rust's default for spawned threads, and tokio's), and one more is
    /// refused when compiling.
    #[test]
    fn the_deepest_expressions_run_on_a_2_mib_stack() {
        for (kind, cost, wrap) in wrappers() {
            let deepest = (1..MAX_NESTING / cost).fold(name("x"), |e, _| node(wrap(e)));
            let outcome = on_stack(2 << 20, move || {
                check(&deepest, &mut vec!["x".into()], 1)?;
                let mut env = Env::new();
                env.set("x", PyValue::Str("a".into()));
                env.eval(&deepest).map_err(|e| e.to_string())?;
                Ok::<_, String>(deepest)
            });
            let deepest = outcome.unwrap_or_else(|e| panic!("{kind}: {e}"));
            let deeper = node(wrap(node(wrap(deepest))));
            let refused = check(&deeper, &mut vec!["x".into()], 1);
            assert!(
                refused
                    .as_ref()
                    .is_err_and(|e| e.contains("nested too deeply")),
                "{kind}: {refused:?}"
            );
        }
    }
}

//! The expression language of catalogs: a Python subset, evaluated with Python's semantics.
//!
//! Supported: names, constants (`None`, booleans, numbers, strings, bytes), list, tuple and dict
//! displays (with `*` spreads), indexing and slicing (negative indices included), `+ - * / // %`,
//! unary `- + not`, `and`/`or`, comparisons (`== != < <= > >= is is not in not in`), conditional
//! expressions, list comprehensions and generator expressions (tuple targets, `if` clauses), the
//! builtins `len int float str bool dict tuple list enumerate range abs`, and the string methods
//! `split join strip lower upper replace`. Errors carry Python's exception name and message; an
//! endpoint that raises answers 500, as in the reference.

use vakra_pysyntax::ast::{
    BinOp, BoolOp, CmpOp, Comprehension, Constant, Conversion, Expr, ExprKind, FStringPart, UnaryOp,
};

use crate::PyValue;

/// A Python exception raised while evaluating.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct PyError {
    pub kind: &'static str,
    pub message: String,
}

impl PyError {
    fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    pub(crate) fn type_error(message: impl Into<String>) -> Self {
        Self::new("TypeError", message)
    }
    pub(crate) fn value_error(message: impl Into<String>) -> Self {
        Self::new("ValueError", message)
    }
    pub(crate) fn name_error(name: &str) -> Self {
        Self::new("NameError", format!("name '{name}' is not defined"))
    }
    pub(crate) fn programming_error(message: impl Into<String>) -> Self {
        Self::new("ProgrammingError", message)
    }
    fn index_error(container: &str) -> Self {
        Self::new("IndexError", format!("{container} index out of range"))
    }
}

const BUILTINS: &[&str] = &[
    "len",
    "int",
    "float",
    "str",
    "bool",
    "dict",
    "tuple",
    "list",
    "enumerate",
    "range",
    "abs",
];
const METHODS: &[&str] = &["split", "join", "strip", "lower", "upper", "replace"];
const MAX_SEQUENCE: usize = 10_000_000;

/// Parses `source` and checks that it only uses supported constructs and names from `known`
/// (plus builtins and its own comprehension variables).
pub fn compile(source: &str, known: &[String]) -> Result<Expr, String> {
    let expr = vakra_pysyntax::parse_expression(source).map_err(|e| e.to_string())?;
    let mut scope: Vec<String> = known.to_vec();
    check(&expr, &mut scope)?;
    Ok(expr)
}

fn check(expr: &Expr, scope: &mut Vec<String>) -> Result<(), String> {
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
            FStringPart::Formatted(f) => check(&f.value, scope),
        }),
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            items.iter().try_for_each(|e| check(e, scope))
        }
        ExprKind::Dict(pairs) => pairs.iter().try_for_each(|(k, v)| {
            if let Some(k) = k {
                check(k, scope)?;
            }
            check(v, scope)
        }),
        ExprKind::Starred(inner) => check(inner, scope),
        ExprKind::Subscript { value, index } => {
            check(value, scope)?;
            match &index.kind {
                ExprKind::Slice { lower, upper, step } => [lower, upper, step]
                    .into_iter()
                    .flatten()
                    .try_for_each(|e| check(e, scope)),
                _ => check(index, scope),
            }
        }
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            if !keywords.is_empty() {
                return Err("keyword arguments are not supported".into());
            }
            match &func.kind {
                ExprKind::Name(name) if BUILTINS.contains(&name.as_str()) => {}
                ExprKind::Attribute { value, attr } if METHODS.contains(&attr.as_str()) => {
                    check(value, scope)?
                }
                _ => return Err(format!("unsupported call: {func}")),
            }
            args.iter().try_for_each(|e| check(e, scope))
        }
        ExprKind::BinOp { left, op, right } => {
            if !matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mult | BinOp::Div | BinOp::FloorDiv | BinOp::Mod
            ) {
                return Err(format!("unsupported operator in {expr}"));
            }
            check(left, scope)?;
            check(right, scope)
        }
        ExprKind::UnaryOp { op, operand } => {
            if matches!(op, UnaryOp::Invert) {
                return Err("'~' is not supported".into());
            }
            check(operand, scope)
        }
        ExprKind::BoolOp { values, .. } => values.iter().try_for_each(|e| check(e, scope)),
        ExprKind::Compare {
            left, comparators, ..
        } => {
            check(left, scope)?;
            comparators.iter().try_for_each(|e| check(e, scope))
        }
        ExprKind::IfExp { test, body, orelse } => {
            check(test, scope)?;
            check(body, scope)?;
            check(orelse, scope)
        }
        ExprKind::ListComp { elt, generators } | ExprKind::GeneratorExp { elt, generators } => {
            let depth = scope.len();
            for generator in generators {
                if generator.is_async {
                    return Err("async comprehensions are not supported".into());
                }
                check(&generator.iter, scope)?;
                bind_names(&generator.target, scope)?;
                generator.ifs.iter().try_for_each(|e| check(e, scope))?;
            }
            let checked = check(elt, scope);
            scope.truncate(depth);
            checked
        }
        _ => Err(format!("unsupported expression: {expr}")),
    }
}

fn bind_names(target: &Expr, scope: &mut Vec<String>) -> Result<(), String> {
    match &target.kind {
        ExprKind::Name(name) => {
            scope.push(name.clone());
            Ok(())
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            items.iter().try_for_each(|t| bind_names(t, scope))
        }
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
        match &expr.kind {
            ExprKind::Name(name) => self
                .get(name)
                .cloned()
                .ok_or_else(|| PyError::name_error(name)),
            ExprKind::Constant(c) => constant(c),
            ExprKind::JoinedStr(parts) => {
                let mut out = String::new();
                for part in parts {
                    match part {
                        FStringPart::Literal(text) => out.push_str(text),
                        FStringPart::Formatted(f) => {
                            let value = self.eval(&f.value)?;
                            out.push_str(&match f.conversion {
                                None | Some(Conversion::Str) => value.str(),
                                Some(Conversion::Repr) => value.repr(),
                                Some(Conversion::Ascii) => {
                                    value.repr().chars().flat_map(ascii_escape).collect()
                                }
                            });
                        }
                    }
                }
                Ok(PyValue::Str(out))
            }
            ExprKind::List(items) => Ok(PyValue::List(self.eval_items(items)?)),
            ExprKind::Tuple(items) => Ok(PyValue::Tuple(self.eval_items(items)?)),
            ExprKind::Dict(pairs) => {
                let mut out: Vec<(PyValue, PyValue)> = Vec::new();
                for (key, value) in pairs {
                    match key {
                        Some(key) => {
                            let k = self.eval(key)?;
                            let v = self.eval(value)?;
                            dict_insert(&mut out, k, v);
                        }
                        None => match self.eval(value)? {
                            PyValue::Dict(more) => more
                                .into_iter()
                                .for_each(|(k, v)| dict_insert(&mut out, k, v)),
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
            ExprKind::Subscript { value, index } => {
                let container = self.eval(value)?;
                match &index.kind {
                    ExprKind::Slice { lower, upper, step } => {
                        let mut bound = |e: &Option<Box<Expr>>| -> Result<Option<i64>, PyError> {
                            match e {
                                None => Ok(None),
                                Some(e) => match self.eval(e)? {
                                    PyValue::None => Ok(None),
                                    v => as_index(&v).map(Some),
                                },
                            }
                        };
                        let (lower, upper, step) = (bound(lower)?, bound(upper)?, bound(step)?);
                        slice(container, lower, upper, step)
                    }
                    _ => {
                        let key = self.eval(index)?;
                        subscript(container, &key)
                    }
                }
            }
            ExprKind::Call { func, args, .. } => {
                let args = self.eval_items(args)?;
                match &func.kind {
                    ExprKind::Name(name) => builtin(name, args),
                    ExprKind::Attribute { value, attr } => {
                        let receiver = self.eval(value)?;
                        method(receiver, attr, args)
                    }
                    _ => Err(PyError::type_error("object is not callable")),
                }
            }
            ExprKind::BinOp { left, op, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                binop(*op, l, r)
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(operand)?;
                match (op, v) {
                    (UnaryOp::Not, v) => Ok(PyValue::Bool(!v.truthy())),
                    (UnaryOp::USub, PyValue::Int(i)) => {
                        i.checked_neg().map(PyValue::Int).ok_or_else(overflow)
                    }
                    (UnaryOp::USub, PyValue::Bool(b)) => Ok(PyValue::Int(-i64::from(b))),
                    (UnaryOp::USub, PyValue::Float(f)) => Ok(PyValue::Float(-f)),
                    (UnaryOp::UAdd, v @ (PyValue::Int(_) | PyValue::Float(_))) => Ok(v),
                    (UnaryOp::UAdd, PyValue::Bool(b)) => Ok(PyValue::Int(i64::from(b))),
                    (op, v) => Err(PyError::type_error(format!(
                        "bad operand type for unary {}: '{}'",
                        if matches!(op, UnaryOp::USub) {
                            "-"
                        } else {
                            "+"
                        },
                        v.type_name()
                    ))),
                }
            }
            ExprKind::BoolOp { op, values } => {
                let mut last = PyValue::None;
                for value in values {
                    last = self.eval(value)?;
                    let decided = match op {
                        BoolOp::And => !last.truthy(),
                        BoolOp::Or => last.truthy(),
                    };
                    if decided {
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
                let depth = self.vars.len();
                let result = self.comprehension(elt, generators, &mut out);
                self.vars.truncate(depth);
                result.map(|()| PyValue::List(out))
            }
            _ => Err(PyError::type_error(format!(
                "unsupported expression: {expr}"
            ))),
        }
    }

    fn eval_items(&mut self, items: &[Expr]) -> Result<Vec<PyValue>, PyError> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match &item.kind {
                ExprKind::Starred(inner) => {
                    let value = self.eval(inner)?;
                    out.extend(iterate(value)?);
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

/// Python's `ascii()` escaping of one character of a `repr()`.
fn ascii_escape(c: char) -> Vec<char> {
    let code = c as u32;
    let escaped = match code {
        0..=0x7f => return vec![c],
        0x80..=0xff => format!("\\x{code:02x}"),
        0x100..=0xffff => format!("\\u{code:04x}"),
        _ => format!("\\U{code:08x}"),
    };
    escaped.chars().collect()
}

fn overflow() -> PyError {
    PyError::new("OverflowError", "integer overflow")
}

fn constant(c: &Constant) -> Result<PyValue, PyError> {
    Ok(match c {
        Constant::None => PyValue::None,
        Constant::Bool(b) => PyValue::Bool(*b),
        Constant::Int(i) => PyValue::Int(*i),
        Constant::Float(f) => PyValue::Float(*f),
        Constant::Str(s) => PyValue::Str(s.clone()),
        Constant::Bytes(b) => PyValue::Bytes(b.clone()),
        _ => return Err(overflow()),
    })
}

fn dict_insert(out: &mut Vec<(PyValue, PyValue)>, key: PyValue, value: PyValue) {
    match out.iter_mut().find(|(k, _)| py_eq(k, &key)) {
        Some(slot) => slot.1 = value,
        None => out.push((key, value)),
    }
}

/// Python's iteration protocol for the values we have.
fn iterate(value: PyValue) -> Result<Vec<PyValue>, PyError> {
    match value {
        PyValue::List(items) | PyValue::Tuple(items) => Ok(items),
        PyValue::Str(s) => Ok(s.chars().map(|c| PyValue::Str(c.to_string())).collect()),
        PyValue::Bytes(b) => Ok(b.into_iter().map(|b| PyValue::Int(i64::from(b))).collect()),
        PyValue::Dict(pairs) => Ok(pairs.into_iter().map(|(k, _)| k).collect()),
        other => Err(PyError::type_error(format!(
            "'{}' object is not iterable",
            other.type_name()
        ))),
    }
}

fn as_index(value: &PyValue) -> Result<i64, PyError> {
    match value {
        PyValue::Int(i) => Ok(*i),
        PyValue::Bool(b) => Ok(i64::from(*b)),
        other => Err(PyError::type_error(format!(
            "indices must be integers or slices, not {}",
            other.type_name()
        ))),
    }
}

fn subscript(container: PyValue, key: &PyValue) -> Result<PyValue, PyError> {
    let pick = |len: usize, name: &str| -> Result<usize, PyError> {
        let i = as_index(key).map_err(|_| {
            PyError::type_error(format!(
                "{name} indices must be integers or slices, not {}",
                key.type_name()
            ))
        })?;
        let len = len as i64;
        let i = if i < 0 { i + len } else { i };
        if (0..len).contains(&i) {
            Ok(i as usize)
        } else {
            Err(PyError::index_error(name))
        }
    };
    match container {
        PyValue::List(mut items) => {
            let i = pick(items.len(), "list")?;
            Ok(items.swap_remove(i))
        }
        PyValue::Tuple(mut items) => {
            let i = pick(items.len(), "tuple")?;
            Ok(items.swap_remove(i))
        }
        PyValue::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            let i = pick(chars.len(), "string")?;
            Ok(PyValue::Str(chars[i].to_string()))
        }
        PyValue::Dict(pairs) => pairs
            .into_iter()
            .find(|(k, _)| py_eq(k, key))
            .map(|(_, v)| v)
            .ok_or_else(|| PyError::new("KeyError", key.repr())),
        other => Err(PyError::type_error(format!(
            "'{}' object is not subscriptable",
            other.type_name()
        ))),
    }
}

/// Python's slice semantics (`PySlice_AdjustIndices`).
fn slice(
    container: PyValue,
    lower: Option<i64>,
    upper: Option<i64>,
    step: Option<i64>,
) -> Result<PyValue, PyError> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(PyError::value_error("slice step cannot be zero"));
    }
    let take = |len: usize| -> Vec<usize> {
        let len = len as i64;
        let adjust = |v: Option<i64>, default: i64| -> i64 {
            match v {
                None => default,
                Some(v) if v < 0 => {
                    let v = v + len;
                    if v < 0 {
                        if step < 0 { -1 } else { 0 }
                    } else {
                        v
                    }
                }
                Some(v) => {
                    if v >= len {
                        if step < 0 { len - 1 } else { len }
                    } else {
                        v
                    }
                }
            }
        };
        let (start, stop) = if step > 0 {
            (adjust(lower, 0), adjust(upper, len))
        } else {
            (adjust(lower, len - 1), adjust(upper, -1))
        };
        let mut out = Vec::new();
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(i as usize);
            i += step;
        }
        out
    };
    match container {
        PyValue::List(items) => Ok(PyValue::List(
            take(items.len())
                .into_iter()
                .map(|i| items[i].clone())
                .collect(),
        )),
        PyValue::Tuple(items) => Ok(PyValue::Tuple(
            take(items.len())
                .into_iter()
                .map(|i| items[i].clone())
                .collect(),
        )),
        PyValue::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            Ok(PyValue::Str(
                take(chars.len()).into_iter().map(|i| chars[i]).collect(),
            ))
        }
        other => Err(PyError::type_error(format!(
            "'{}' object is not subscriptable",
            other.type_name()
        ))),
    }
}

fn number(v: &PyValue) -> Option<f64> {
    match v {
        PyValue::Int(i) => Some(*i as f64),
        PyValue::Bool(b) => Some(f64::from(u8::from(*b))),
        PyValue::Float(f) => Some(*f),
        _ => None,
    }
}

fn integer(v: &PyValue) -> Option<i64> {
    match v {
        PyValue::Int(i) => Some(*i),
        PyValue::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

fn repeat(items: &[PyValue], times: i64) -> Result<Vec<PyValue>, PyError> {
    let times = times.max(0) as usize;
    if items.len().saturating_mul(times) > MAX_SEQUENCE {
        return Err(PyError::new("MemoryError", "sequence too large"));
    }
    Ok(items
        .iter()
        .cloned()
        .cycle()
        .take(items.len() * times)
        .collect())
}

fn binop(op: BinOp, l: PyValue, r: PyValue) -> Result<PyValue, PyError> {
    let symbol = match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mult => "*",
        BinOp::Div => "/",
        BinOp::FloorDiv => "//",
        _ => "%",
    };
    if let (Some(a), Some(b)) = (integer(&l), integer(&r)) {
        return match op {
            BinOp::Add => a.checked_add(b).map(PyValue::Int).ok_or_else(overflow),
            BinOp::Sub => a.checked_sub(b).map(PyValue::Int).ok_or_else(overflow),
            BinOp::Mult => a.checked_mul(b).map(PyValue::Int).ok_or_else(overflow),
            BinOp::Div if b == 0 => Err(PyError::new("ZeroDivisionError", "division by zero")),
            BinOp::Div => Ok(PyValue::Float(a as f64 / b as f64)),
            _ if b == 0 => Err(PyError::new(
                "ZeroDivisionError",
                "integer division or modulo by zero",
            )),
            BinOp::FloorDiv => Ok(PyValue::Int(
                a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0),
            )),
            _ => Ok(PyValue::Int(
                a.rem_euclid(b) + if b < 0 && a.rem_euclid(b) != 0 { b } else { 0 },
            )),
        };
    }
    if let (Some(a), Some(b)) = (number(&l), number(&r)) {
        return match op {
            BinOp::Add => Ok(PyValue::Float(a + b)),
            BinOp::Sub => Ok(PyValue::Float(a - b)),
            BinOp::Mult => Ok(PyValue::Float(a * b)),
            _ if b == 0.0 => Err(PyError::new("ZeroDivisionError", "float division by zero")),
            BinOp::Div => Ok(PyValue::Float(a / b)),
            BinOp::FloorDiv => Ok(PyValue::Float((a / b).floor())),
            _ => Ok(PyValue::Float(a - b * (a / b).floor())),
        };
    }
    match (op, l, r) {
        (BinOp::Add, PyValue::Str(a), PyValue::Str(b)) => Ok(PyValue::Str(a + &b)),
        (BinOp::Add, PyValue::List(mut a), PyValue::List(b)) => {
            a.extend(b);
            Ok(PyValue::List(a))
        }
        (BinOp::Add, PyValue::Tuple(mut a), PyValue::Tuple(b)) => {
            a.extend(b);
            Ok(PyValue::Tuple(a))
        }
        (BinOp::Add, PyValue::Bytes(mut a), PyValue::Bytes(b)) => {
            a.extend(b);
            Ok(PyValue::Bytes(a))
        }
        (BinOp::Add, l @ (PyValue::Str(_) | PyValue::List(_) | PyValue::Tuple(_)), r) => {
            Err(PyError::type_error(format!(
                "can only concatenate {} (not \"{}\") to {}",
                l.type_name(),
                r.type_name(),
                l.type_name()
            )))
        }
        (BinOp::Mult, PyValue::List(items), n) | (BinOp::Mult, n, PyValue::List(items))
            if integer(&n).is_some() =>
        {
            repeat(&items, integer(&n).unwrap_or(0)).map(PyValue::List)
        }
        (BinOp::Mult, PyValue::Tuple(items), n) | (BinOp::Mult, n, PyValue::Tuple(items))
            if integer(&n).is_some() =>
        {
            repeat(&items, integer(&n).unwrap_or(0)).map(PyValue::Tuple)
        }
        (BinOp::Mult, PyValue::Str(s), n) | (BinOp::Mult, n, PyValue::Str(s))
            if integer(&n).is_some() =>
        {
            let chars: Vec<PyValue> = vec![PyValue::Str(s)];
            let parts = repeat(&chars, integer(&n).unwrap_or(0))?;
            Ok(PyValue::Str(parts.iter().map(PyValue::str).collect()))
        }
        (_, l, r) => Err(PyError::type_error(format!(
            "unsupported operand type(s) for {symbol}: '{}' and '{}'",
            l.type_name(),
            r.type_name()
        ))),
    }
}

/// Python's `==` for the values we have (numbers compare across int, float and bool).
fn py_eq(a: &PyValue, b: &PyValue) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return match (integer(a), integer(b)) {
            (Some(i), Some(j)) => i == j,
            _ => x == y,
        };
    }
    match (a, b) {
        (PyValue::List(x), PyValue::List(y)) | (PyValue::Tuple(x), PyValue::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (PyValue::Dict(x), PyValue::Dict(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| py_eq(k, k2) && py_eq(v, v2)))
        }
        _ => a == b,
    }
}

fn compare(op: CmpOp, a: &PyValue, b: &PyValue) -> Result<bool, PyError> {
    let ordering = || -> Result<std::cmp::Ordering, PyError> {
        let unordered = || {
            let symbol = match op {
                CmpOp::Lt => "<",
                CmpOp::LtE => "<=",
                CmpOp::Gt => ">",
                _ => ">=",
            };
            PyError::type_error(format!(
                "'{symbol}' not supported between instances of '{}' and '{}'",
                a.type_name(),
                b.type_name()
            ))
        };
        match (a, b) {
            (PyValue::Str(x), PyValue::Str(y)) => Ok(x.cmp(y)),
            _ => match (number(a), number(b)) {
                (Some(x), Some(y)) => x.partial_cmp(&y).ok_or_else(unordered),
                _ => Err(unordered()),
            },
        }
    };
    let identical = |a: &PyValue, b: &PyValue| match (a, b) {
        (PyValue::None, PyValue::None) => true,
        (PyValue::Bool(x), PyValue::Bool(y)) => x == y,
        _ => false,
    };
    Ok(match op {
        CmpOp::Eq => py_eq(a, b),
        CmpOp::NotEq => !py_eq(a, b),
        CmpOp::Is => identical(a, b),
        CmpOp::IsNot => !identical(a, b),
        CmpOp::Lt => ordering()?.is_lt(),
        CmpOp::LtE => ordering()?.is_le(),
        CmpOp::Gt => ordering()?.is_gt(),
        CmpOp::GtE => ordering()?.is_ge(),
        CmpOp::In | CmpOp::NotIn => {
            let found = match b {
                PyValue::Str(haystack) => match a {
                    PyValue::Str(needle) => haystack.contains(needle.as_str()),
                    other => {
                        return Err(PyError::type_error(format!(
                            "'in <string>' requires string as left operand, not {}",
                            other.type_name()
                        )));
                    }
                },
                PyValue::List(items) | PyValue::Tuple(items) => items.iter().any(|x| py_eq(x, a)),
                PyValue::Dict(pairs) => pairs.iter().any(|(k, _)| py_eq(k, a)),
                other => {
                    return Err(PyError::type_error(format!(
                        "argument of type '{}' is not iterable",
                        other.type_name()
                    )));
                }
            };
            found == matches!(op, CmpOp::In)
        }
    })
}

fn arity(
    name: &str,
    args: &[PyValue],
    range: std::ops::RangeInclusive<usize>,
) -> Result<(), PyError> {
    if range.contains(&args.len()) {
        Ok(())
    } else {
        Err(PyError::type_error(format!(
            "{name}() takes {} arguments ({} given)",
            range.end(),
            args.len()
        )))
    }
}

/// Python's `int(str)`: whitespace around, an optional sign, digits with single underscores.
fn parse_python_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    let valid = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !valid {
        return None;
    }
    t.replace('_', "").parse().ok()
}

fn builtin(name: &str, mut args: Vec<PyValue>) -> Result<PyValue, PyError> {
    match name {
        "len" => {
            arity(name, &args, 1..=1)?;
            let n = match &args[0] {
                PyValue::Str(s) => s.chars().count(),
                PyValue::Bytes(b) => b.len(),
                PyValue::List(v) | PyValue::Tuple(v) => v.len(),
                PyValue::Dict(d) => d.len(),
                other => {
                    return Err(PyError::type_error(format!(
                        "object of type '{}' has no len()",
                        other.type_name()
                    )));
                }
            };
            Ok(PyValue::Int(n as i64))
        }
        "int" => {
            arity(name, &args, 1..=1)?;
            match args.remove(0) {
                PyValue::Int(i) => Ok(PyValue::Int(i)),
                PyValue::Bool(b) => Ok(PyValue::Int(i64::from(b))),
                PyValue::Float(f) if f.is_nan() => {
                    Err(PyError::value_error("cannot convert float NaN to integer"))
                }
                PyValue::Float(f) if f.is_infinite() => Err(PyError::new(
                    "OverflowError",
                    "cannot convert float infinity to integer",
                )),
                PyValue::Float(f) if f.trunc().abs() < 9.2e18 => Ok(PyValue::Int(f.trunc() as i64)),
                PyValue::Float(_) => Err(overflow()),
                PyValue::Str(text) => parse_python_int(&text).map(PyValue::Int).ok_or_else(|| {
                    PyError::value_error(format!(
                        "invalid literal for int() with base 10: {}",
                        PyValue::Str(text.clone()).repr()
                    ))
                }),
                other => Err(PyError::type_error(format!(
                    "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                    other.type_name()
                ))),
            }
        }
        "float" => {
            arity(name, &args, 1..=1)?;
            match args.remove(0) {
                PyValue::Str(s) => s
                    .trim()
                    .replace('_', "")
                    .parse::<f64>()
                    .map(PyValue::Float)
                    .map_err(|_| {
                        PyError::value_error(format!(
                            "could not convert string to float: {}",
                            PyValue::Str(s.clone()).repr()
                        ))
                    }),
                v => number(&v).map(PyValue::Float).ok_or_else(|| {
                    PyError::type_error(format!(
                        "float() argument must be a string or a real number, not '{}'",
                        v.type_name()
                    ))
                }),
            }
        }
        "str" => {
            arity(name, &args, 0..=1)?;
            Ok(PyValue::Str(
                args.first().map(PyValue::str).unwrap_or_default(),
            ))
        }
        "bool" => {
            arity(name, &args, 0..=1)?;
            Ok(PyValue::Bool(args.first().is_some_and(PyValue::truthy)))
        }
        "abs" => {
            arity(name, &args, 1..=1)?;
            match args.remove(0) {
                PyValue::Int(i) => i.checked_abs().map(PyValue::Int).ok_or_else(overflow),
                PyValue::Bool(b) => Ok(PyValue::Int(i64::from(b))),
                PyValue::Float(f) => Ok(PyValue::Float(f.abs())),
                other => Err(PyError::type_error(format!(
                    "bad operand type for abs(): '{}'",
                    other.type_name()
                ))),
            }
        }
        "tuple" | "list" => {
            arity(name, &args, 0..=1)?;
            let items = match args.pop() {
                Some(v) => iterate(v)?,
                None => Vec::new(),
            };
            Ok(if name == "tuple" {
                PyValue::Tuple(items)
            } else {
                PyValue::List(items)
            })
        }
        "enumerate" => {
            arity(name, &args, 1..=2)?;
            let start = match args.get(1) {
                Some(v) => integer(v)
                    .ok_or_else(|| PyError::type_error("enumerate() start must be an integer"))?,
                None => 0,
            };
            let items = iterate(args.remove(0))?;
            Ok(PyValue::List(
                items
                    .into_iter()
                    .zip(start..)
                    .map(|(item, i)| PyValue::Tuple(vec![PyValue::Int(i), item]))
                    .collect(),
            ))
        }
        "range" => {
            arity(name, &args, 1..=2)?;
            let ints = args
                .iter()
                .map(|a| {
                    integer(a)
                        .ok_or_else(|| PyError::type_error("range() arguments must be integers"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let (start, stop) = if ints.len() == 1 {
                (0, ints[0])
            } else {
                (ints[0], ints[1])
            };
            if stop.saturating_sub(start) > MAX_SEQUENCE as i64 {
                return Err(PyError::new("MemoryError", "range too large"));
            }
            Ok(PyValue::List((start..stop).map(PyValue::Int).collect()))
        }
        "dict" => {
            arity(name, &args, 0..=1)?;
            let Some(source) = args.pop() else {
                return Ok(PyValue::Dict(Vec::new()));
            };
            if let PyValue::Dict(pairs) = source {
                return Ok(PyValue::Dict(pairs));
            }
            let mut out = Vec::new();
            for (i, element) in iterate(source)?.into_iter().enumerate() {
                let pair = iterate(element).map_err(|_| {
                    PyError::type_error(format!(
                        "cannot convert dictionary update sequence element #{i} to a sequence"
                    ))
                })?;
                if pair.len() != 2 {
                    return Err(PyError::value_error(format!(
                        "dictionary update sequence element #{i} has length {}; 2 is required",
                        pair.len()
                    )));
                }
                let mut pair = pair.into_iter();
                if let (Some(k), Some(v)) = (pair.next(), pair.next()) {
                    dict_insert(&mut out, k, v);
                }
            }
            Ok(PyValue::Dict(out))
        }
        _ => Err(PyError::name_error(name)),
    }
}

fn method(receiver: PyValue, name: &str, args: Vec<PyValue>) -> Result<PyValue, PyError> {
    let PyValue::Str(s) = receiver else {
        return Err(PyError::new(
            "AttributeError",
            format!(
                "'{}' object has no attribute '{name}'",
                receiver.type_name()
            ),
        ));
    };
    let str_arg = |i: usize| -> Result<Option<&str>, PyError> {
        match args.get(i) {
            None | Some(PyValue::None) => Ok(None),
            Some(PyValue::Str(a)) => Ok(Some(a.as_str())),
            Some(other) => Err(PyError::type_error(format!(
                "must be str or None, not {}",
                other.type_name()
            ))),
        }
    };
    match name {
        "split" => {
            let parts: Vec<PyValue> = match str_arg(0)? {
                Some("") => return Err(PyError::value_error("empty separator")),
                Some(sep) => s.split(sep).map(|p| PyValue::Str(p.to_owned())).collect(),
                None => s
                    .split_whitespace()
                    .map(|p| PyValue::Str(p.to_owned()))
                    .collect(),
            };
            Ok(PyValue::List(parts))
        }
        "join" => {
            let items = iterate(args.into_iter().next().ok_or_else(|| {
                PyError::type_error("join() takes exactly one argument (0 given)")
            })?)?;
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                match item {
                    PyValue::Str(part) => out.push(part),
                    other => {
                        return Err(PyError::type_error(format!(
                            "sequence item {i}: expected str instance, {} found",
                            other.type_name()
                        )));
                    }
                }
            }
            Ok(PyValue::Str(out.join(&s)))
        }
        "strip" => Ok(PyValue::Str(match str_arg(0)? {
            Some(chars) => s.trim_matches(|c| chars.contains(c)).to_owned(),
            None => s.trim().to_owned(),
        })),
        "lower" => Ok(PyValue::Str(s.to_lowercase())),
        "upper" => Ok(PyValue::Str(s.to_uppercase())),
        "replace" => match (str_arg(0)?, str_arg(1)?) {
            (Some(from), Some(to)) => Ok(PyValue::Str(s.replace(from, to))),
            _ => Err(PyError::type_error("replace expected 2 arguments")),
        },
        _ => Err(PyError::new(
            "AttributeError",
            format!("'str' object has no attribute '{name}'"),
        )),
    }
}

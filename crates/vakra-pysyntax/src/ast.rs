//! Syntax tree mirroring CPython's `ast` module.
//!
//! Node and field names follow Python's so code written against `ast.dump`
//! output translates directly. The deliberate differences are:
//!
//! * `FunctionDef` and `AsyncFunctionDef` are one node with `is_async`, and
//!   likewise `For`/`AsyncFor` and `With`/`AsyncWith`;
//! * a parameter keeps its own default ([`Param::default`]) instead of
//!   Python's right-aligned `defaults`/`kw_defaults` lists;
//! * an f-string's format spec is a list of parts, not a nested `JoinedStr`;
//! * there are no expression contexts (`Load`/`Store`/`Del`) and no `kind`
//!   marker for `u"..."` strings;
//! * `match` statements, `except*`, type comments and complex literals are
//!   not represented (the parser rejects them).
//!
//! Equality (`==`) ignores source spans, so two trees compare equal when
//! they have the same shape and values, e.g. after an unparse round trip.

/// A position in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in characters (not bytes).
    pub col: u32,
    /// Byte offset from the start of the source, for slicing it.
    pub offset: usize,
}

/// The source range a node was parsed from; `end` is exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Position of the node's first character.
    pub start: Pos,
    /// Position just after the node's last character.
    pub end: Pos,
}

/// A literal value, as in Python's `ast.Constant`.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// `None`.
    None,
    /// `True` or `False`.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// An integer too large for `i64`, as its decimal digits (whatever base
    /// the literal was written in), since Python ints are unbounded.
    BigInt(String),
    /// A float literal; literals too large to represent are infinite.
    Float(f64),
    /// A string literal (adjacent literals already concatenated).
    Str(String),
    /// A bytes literal (adjacent literals already concatenated).
    Bytes(Vec<u8>),
    /// `...`.
    Ellipsis,
}

/// An expression node with its source span.
#[derive(Debug, Clone)]
pub struct Expr {
    /// What kind of expression this is.
    pub kind: ExprKind,
    /// Where it was parsed from; ignored by `==`.
    pub span: Span,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

/// The expression variants of Python's `ast.expr`.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A variable reference.
    Name(String),
    /// A literal.
    Constant(Constant),
    /// An f-string, as its literal and replacement-field parts.
    JoinedStr(Vec<FStringPart>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `(a, b)` or a bare `a, b`.
    Tuple(Vec<Expr>),
    /// `{a, b}`.
    Set(Vec<Expr>),
    /// `{k: v, **rest}`; a `None` key marks a `**` spread of the value.
    Dict(Vec<(Option<Expr>, Expr)>),
    /// `*value`, in calls, displays and assignment targets.
    Starred(Box<Expr>),
    /// `value.attr`.
    Attribute {
        /// The object whose attribute is read.
        value: Box<Expr>,
        /// The attribute name.
        attr: String,
    },
    /// `value[index]`; a multi-dimensional index is a [`ExprKind::Tuple`].
    Subscript {
        /// The subscripted object.
        value: Box<Expr>,
        /// The index: any expression, a [`ExprKind::Slice`] or a tuple.
        index: Box<Expr>,
    },
    /// `lower:upper:step` inside a subscript.
    Slice {
        /// Start bound, if written.
        lower: Option<Box<Expr>>,
        /// End bound, if written.
        upper: Option<Box<Expr>>,
        /// Step, if written.
        step: Option<Box<Expr>>,
    },
    /// `func(*args, **keywords)`.
    Call {
        /// The called expression.
        func: Box<Expr>,
        /// Positional arguments, possibly [`ExprKind::Starred`].
        args: Vec<Expr>,
        /// Keyword arguments and `**` spreads.
        keywords: Vec<Keyword>,
    },
    /// `left op right`.
    BinOp {
        /// Left operand.
        left: Box<Expr>,
        /// The operator.
        op: BinOp,
        /// Right operand.
        right: Box<Expr>,
    },
    /// `op operand`.
    UnaryOp {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a and b and c` or `a or b or c`, flattened as in Python.
    BoolOp {
        /// The operator shared by all operands.
        op: BoolOp,
        /// Two or more operands.
        values: Vec<Expr>,
    },
    /// A comparison chain `left op0 c0 op1 c1 ...`.
    Compare {
        /// First operand.
        left: Box<Expr>,
        /// The operators, one per comparator.
        ops: Vec<CmpOp>,
        /// The remaining operands.
        comparators: Vec<Expr>,
    },
    /// `body if test else orelse`.
    IfExp {
        /// The condition.
        test: Box<Expr>,
        /// Value when the condition holds.
        body: Box<Expr>,
        /// Value otherwise.
        orelse: Box<Expr>,
    },
    /// `[elt for ...]`.
    ListComp {
        /// The produced element.
        elt: Box<Expr>,
        /// The `for`/`if` clauses.
        generators: Vec<Comprehension>,
    },
    /// `{elt for ...}`.
    SetComp {
        /// The produced element.
        elt: Box<Expr>,
        /// The `for`/`if` clauses.
        generators: Vec<Comprehension>,
    },
    /// `{key: value for ...}`.
    DictComp {
        /// The produced key.
        key: Box<Expr>,
        /// The produced value.
        value: Box<Expr>,
        /// The `for`/`if` clauses.
        generators: Vec<Comprehension>,
    },
    /// `(elt for ...)`.
    GeneratorExp {
        /// The produced element.
        elt: Box<Expr>,
        /// The `for`/`if` clauses.
        generators: Vec<Comprehension>,
    },
    /// `lambda params: body`.
    Lambda {
        /// The parameters (never annotated).
        params: Box<Arguments>,
        /// The returned expression.
        body: Box<Expr>,
    },
    /// `await value`.
    Await(Box<Expr>),
    /// `yield` or `yield value`.
    Yield(Option<Box<Expr>>),
    /// `yield from value`.
    YieldFrom(Box<Expr>),
    /// `target := value`.
    NamedExpr {
        /// The assigned name.
        target: Box<Expr>,
        /// The assigned value.
        value: Box<Expr>,
    },
}

/// One piece of an f-string.
#[derive(Debug, Clone, PartialEq)]
pub enum FStringPart {
    /// Literal text, with escapes decoded and `{{`/`}}` collapsed.
    Literal(String),
    /// A `{value!conversion:format_spec}` replacement field.
    Formatted(FormattedValue),
}

/// A replacement field of an f-string, as Python's `ast.FormattedValue`.
#[derive(Debug, Clone, PartialEq)]
pub struct FormattedValue {
    /// The interpolated expression.
    pub value: Box<Expr>,
    /// The `!s`, `!r` or `!a` conversion, if any (`{x=}` implies `!r`).
    pub conversion: Option<Conversion>,
    /// The format spec after `:`, itself literal text and nested fields;
    /// `Some(vec![])` for a bare trailing colon.
    pub format_spec: Option<Vec<FStringPart>>,
}

/// The conversion of an f-string replacement field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// `!s`, `str()`.
    Str,
    /// `!r`, `repr()`.
    Repr,
    /// `!a`, `ascii()`.
    Ascii,
}

impl Conversion {
    /// The letter written after `!`.
    pub fn letter(self) -> char {
        match self {
            Conversion::Str => 's',
            Conversion::Repr => 'r',
            Conversion::Ascii => 'a',
        }
    }
}

/// A keyword argument `arg=value`, or a `**value` spread when `arg` is
/// `None`.
#[derive(Debug, Clone)]
pub struct Keyword {
    /// The parameter name, or `None` for `**value`.
    pub arg: Option<String>,
    /// The argument value.
    pub value: Expr,
    /// Where it was parsed from; ignored by `==`.
    pub span: Span,
}

/// One `for target in iter if cond...` clause of a comprehension.
#[derive(Debug, Clone, PartialEq)]
pub struct Comprehension {
    /// The loop target.
    pub target: Expr,
    /// The iterated expression.
    pub iter: Expr,
    /// The `if` filters, in order.
    pub ifs: Vec<Expr>,
    /// Whether the clause is `async for`.
    pub is_async: bool,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mult,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    /// `%`
    Mod,
    /// `**`
    Pow,
    /// `@`
    MatMult,
    /// `<<`
    LShift,
    /// `>>`
    RShift,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
}

impl BinOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mult => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMult => "@",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
        }
    }
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `not`
    Not,
    /// `~`
    Invert,
    /// unary `+`
    UAdd,
    /// unary `-`
    USub,
}

impl UnaryOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Not => "not",
            UnaryOp::Invert => "~",
            UnaryOp::UAdd => "+",
            UnaryOp::USub => "-",
        }
    }
}

/// Boolean operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoolOp {
    /// `and`
    And,
    /// `or`
    Or,
}

impl BoolOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            BoolOp::And => "and",
            BoolOp::Or => "or",
        }
    }
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    NotEq,
    /// `<`
    Lt,
    /// `<=`
    LtE,
    /// `>`
    Gt,
    /// `>=`
    GtE,
    /// `is`
    Is,
    /// `is not`
    IsNot,
    /// `in`
    In,
    /// `not in`
    NotIn,
}

impl CmpOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

/// A parameter list of a `def` or `lambda`, as Python's `ast.arguments`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Arguments {
    /// Parameters before `/`.
    pub posonly: Vec<Param>,
    /// Ordinary positional-or-keyword parameters.
    pub args: Vec<Param>,
    /// `*args`, if present.
    pub vararg: Option<Param>,
    /// Parameters after `*` or `*args`.
    pub kwonly: Vec<Param>,
    /// `**kwargs`, if present.
    pub kwarg: Option<Param>,
}

/// One parameter with its annotation and default.
#[derive(Debug, Clone)]
pub struct Param {
    /// The parameter name.
    pub name: String,
    /// The `: annotation`, if any.
    pub annotation: Option<Expr>,
    /// The `= default`, if any.
    pub default: Option<Expr>,
    /// Where it was parsed from; ignored by `==`.
    pub span: Span,
}

/// A parsed source file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    /// The top-level statements, in order.
    pub body: Vec<Stmt>,
}

/// A statement node with its source span.
#[derive(Debug, Clone)]
pub struct Stmt {
    /// What kind of statement this is.
    pub kind: StmtKind,
    /// Where it was parsed from (for a decorated definition, from its
    /// `def`, `async` or `class` keyword, as in Python); ignored by `==`.
    pub span: Span,
}

/// The statement variants of Python's `ast.stmt`.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect (also docstrings).
    Expr(Expr),
    /// `t1 = t2 = value`.
    Assign {
        /// The targets, left to right.
        targets: Vec<Expr>,
        /// The assigned value.
        value: Expr,
    },
    /// `target op= value`.
    AugAssign {
        /// The updated target.
        target: Expr,
        /// The operator before `=`.
        op: BinOp,
        /// The right-hand side.
        value: Expr,
    },
    /// `target: annotation [= value]`.
    AnnAssign {
        /// The annotated target.
        target: Expr,
        /// The annotation.
        annotation: Expr,
        /// The assigned value, if any.
        value: Option<Expr>,
    },
    /// `return [value]`.
    Return(Option<Expr>),
    /// `if test: body else: orelse`; `elif` is a nested `If` in `orelse`.
    If {
        /// The condition.
        test: Expr,
        /// Statements run when it holds.
        body: Vec<Stmt>,
        /// The `elif`/`else` branch.
        orelse: Vec<Stmt>,
    },
    /// `[async] for target in iter: body else: orelse`.
    For {
        /// The loop target.
        target: Expr,
        /// The iterated expression.
        iter: Expr,
        /// The loop body.
        body: Vec<Stmt>,
        /// The `else` block.
        orelse: Vec<Stmt>,
        /// Whether it is `async for`.
        is_async: bool,
    },
    /// `while test: body else: orelse`.
    While {
        /// The condition.
        test: Expr,
        /// The loop body.
        body: Vec<Stmt>,
        /// The `else` block.
        orelse: Vec<Stmt>,
    },
    /// `[async] with items: body`.
    With {
        /// The context managers.
        items: Vec<WithItem>,
        /// The block.
        body: Vec<Stmt>,
        /// Whether it is `async with`.
        is_async: bool,
    },
    /// `def` or `async def` (boxed: it is much larger than the others).
    FunctionDef(Box<FunctionDef>),
    /// `class name(bases, keywords): body`.
    ClassDef {
        /// The class name.
        name: String,
        /// Positional base expressions.
        bases: Vec<Expr>,
        /// Keyword arguments such as `metaclass=`.
        keywords: Vec<Keyword>,
        /// The class body.
        body: Vec<Stmt>,
        /// The decorators, outermost first.
        decorators: Vec<Expr>,
    },
    /// `import a.b as c, d`.
    Import(Vec<Alias>),
    /// `from ..module import a as b`.
    ImportFrom {
        /// The module path after the dots, if any.
        module: Option<String>,
        /// The imported names; `*` is an alias named `"*"`.
        names: Vec<Alias>,
        /// The number of leading dots.
        level: u32,
    },
    /// `try`/`except`/`else`/`finally`.
    Try {
        /// The guarded block.
        body: Vec<Stmt>,
        /// The `except` clauses.
        handlers: Vec<ExceptHandler>,
        /// The `else` block.
        orelse: Vec<Stmt>,
        /// The `finally` block.
        finalbody: Vec<Stmt>,
    },
    /// `raise [exc [from cause]]`.
    Raise {
        /// The raised exception.
        exc: Option<Expr>,
        /// The `from` cause.
        cause: Option<Expr>,
    },
    /// `pass`.
    Pass,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `global a, b`.
    Global(Vec<String>),
    /// `nonlocal a, b`.
    Nonlocal(Vec<String>),
    /// `del a, b`.
    Delete(Vec<Expr>),
    /// `assert test[, msg]`.
    Assert {
        /// The asserted condition.
        test: Expr,
        /// The message, if any.
        msg: Option<Expr>,
    },
}

/// A `def` or `async def` statement.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    /// The function name.
    pub name: String,
    /// The parameter list.
    pub params: Arguments,
    /// The function body.
    pub body: Vec<Stmt>,
    /// The decorators, outermost first.
    pub decorators: Vec<Expr>,
    /// The `-> annotation`, if any.
    pub returns: Option<Expr>,
    /// Whether it is `async def`.
    pub is_async: bool,
}

/// One `context_expr [as optional_vars]` item of a `with` statement.
#[derive(Debug, Clone, PartialEq)]
pub struct WithItem {
    /// The context manager expression.
    pub context_expr: Expr,
    /// The `as` target, if any.
    pub optional_vars: Option<Expr>,
}

/// An imported name, `name [as asname]`.
#[derive(Debug, Clone)]
pub struct Alias {
    /// The (possibly dotted) imported name, or `*`.
    pub name: String,
    /// The local name after `as`, if any.
    pub asname: Option<String>,
    /// Where it was parsed from; ignored by `==`.
    pub span: Span,
}

/// An `except [type [as name]]: body` clause.
#[derive(Debug, Clone)]
pub struct ExceptHandler {
    /// The caught exception type, if any.
    pub typ: Option<Expr>,
    /// The bound name after `as`, if any.
    pub name: Option<String>,
    /// The handler body.
    pub body: Vec<Stmt>,
    /// Where it was parsed from; ignored by `==`.
    pub span: Span,
}

/// Implements `PartialEq` over the listed fields, leaving out the span.
macro_rules! eq_ignoring_span {
    ($($ty:ident { $($field:ident),+ })+) => {
        $(
            impl PartialEq for $ty {
                fn eq(&self, other: &Self) -> bool {
                    $(self.$field == other.$field)&&+
                }
            }
        )+
    };
}

eq_ignoring_span! {
    Keyword { arg, value }
    Param { name, annotation, default }
    Stmt { kind }
    Alias { name, asname }
    ExceptHandler { typ, name, body }
}

impl Expr {
    /// Calls `f` on each direct sub-expression, in source order, so callers
    /// can walk a tree without matching every variant.
    pub fn for_each_child<'e>(&'e self, f: &mut dyn FnMut(&'e Expr)) {
        match &self.kind {
            ExprKind::Name(_) | ExprKind::Constant(_) => {}
            ExprKind::JoinedStr(parts) => fstring_children(parts, f),
            ExprKind::List(elts) | ExprKind::Tuple(elts) | ExprKind::Set(elts) => {
                elts.iter().for_each(&mut *f);
            }
            ExprKind::Dict(items) => {
                for (key, value) in items {
                    if let Some(key) = key {
                        f(key);
                    }
                    f(value);
                }
            }
            ExprKind::Starred(value) | ExprKind::Await(value) | ExprKind::YieldFrom(value) => {
                f(value);
            }
            ExprKind::Yield(value) => {
                if let Some(value) = value {
                    f(value);
                }
            }
            ExprKind::Attribute { value, .. } => f(value),
            ExprKind::Subscript { value, index } => {
                f(value);
                f(index);
            }
            ExprKind::Slice { lower, upper, step } => {
                for bound in [lower, upper, step].into_iter().flatten() {
                    f(bound);
                }
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                f(func);
                args.iter().for_each(&mut *f);
                keywords.iter().for_each(|k| f(&k.value));
            }
            ExprKind::BinOp { left, right, .. } => {
                f(left);
                f(right);
            }
            ExprKind::UnaryOp { operand, .. } => f(operand),
            ExprKind::BoolOp { values, .. } => values.iter().for_each(&mut *f),
            ExprKind::Compare {
                left, comparators, ..
            } => {
                f(left);
                comparators.iter().for_each(&mut *f);
            }
            ExprKind::IfExp { test, body, orelse } => {
                f(body);
                f(test);
                f(orelse);
            }
            ExprKind::ListComp { elt, generators }
            | ExprKind::SetComp { elt, generators }
            | ExprKind::GeneratorExp { elt, generators } => {
                f(elt);
                comprehension_children(generators, f);
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                f(key);
                f(value);
                comprehension_children(generators, f);
            }
            ExprKind::Lambda { params, body } => {
                params.for_each_expr(f);
                f(body);
            }
            ExprKind::NamedExpr { target, value } => {
                f(target);
                f(value);
            }
        }
    }

    /// The number of nodes on the longest path down from this one, found
    /// without recursion so it is safe on any tree.
    pub(crate) fn height(&self) -> usize {
        if matches!(self.kind, ExprKind::Name(_) | ExprKind::Constant(_)) {
            return 1;
        }
        let mut deepest = 0;
        let mut stack = vec![(self, 1)];
        while let Some((expr, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            expr.for_each_child(&mut |child| stack.push((child, depth + 1)));
        }
        deepest
    }
}

fn fstring_children<'e>(parts: &'e [FStringPart], f: &mut dyn FnMut(&'e Expr)) {
    for part in parts {
        if let FStringPart::Formatted(field) = part {
            f(&field.value);
            if let Some(spec) = &field.format_spec {
                fstring_children(spec, f);
            }
        }
    }
}

fn comprehension_children<'e>(generators: &'e [Comprehension], f: &mut dyn FnMut(&'e Expr)) {
    for generator in generators {
        f(&generator.target);
        f(&generator.iter);
        generator.ifs.iter().for_each(&mut *f);
    }
}

impl Arguments {
    /// Calls `f` on every annotation and default, in source order.
    pub fn for_each_expr<'e>(&'e self, f: &mut dyn FnMut(&'e Expr)) {
        let params = self
            .posonly
            .iter()
            .chain(&self.args)
            .chain(&self.vararg)
            .chain(&self.kwonly)
            .chain(&self.kwarg);
        for param in params {
            if let Some(annotation) = &param.annotation {
                f(annotation);
            }
            if let Some(default) = &param.default {
                f(default);
            }
        }
    }
}

impl Stmt {
    /// Calls `f` on each expression held directly by this statement
    /// (decorators, targets, values, tests, annotations...), in source
    /// order, and `g` on each statement nested in its blocks, so callers can
    /// walk a module without matching every variant.
    pub fn for_each_child<'s>(&'s self, f: &mut dyn FnMut(&'s Expr), g: &mut dyn FnMut(&'s Stmt)) {
        match &self.kind {
            StmtKind::Expr(value) => f(value),
            StmtKind::Assign { targets, value } => {
                targets.iter().for_each(&mut *f);
                f(value);
            }
            StmtKind::AugAssign { target, value, .. } => {
                f(target);
                f(value);
            }
            StmtKind::AnnAssign {
                target,
                annotation,
                value,
            } => {
                f(target);
                f(annotation);
                if let Some(value) = value {
                    f(value);
                }
            }
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    f(value);
                }
            }
            StmtKind::If { test, body, orelse } | StmtKind::While { test, body, orelse } => {
                f(test);
                body.iter().chain(orelse).for_each(&mut *g);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                ..
            } => {
                f(target);
                f(iter);
                body.iter().chain(orelse).for_each(&mut *g);
            }
            StmtKind::With { items, body, .. } => {
                for item in items {
                    f(&item.context_expr);
                    if let Some(vars) = &item.optional_vars {
                        f(vars);
                    }
                }
                body.iter().for_each(&mut *g);
            }
            StmtKind::FunctionDef(def) => {
                def.decorators.iter().for_each(&mut *f);
                def.params.for_each_expr(f);
                if let Some(returns) = &def.returns {
                    f(returns);
                }
                def.body.iter().for_each(&mut *g);
            }
            StmtKind::ClassDef {
                bases,
                keywords,
                body,
                decorators,
                ..
            } => {
                decorators.iter().for_each(&mut *f);
                bases.iter().for_each(&mut *f);
                keywords.iter().for_each(|k| f(&k.value));
                body.iter().for_each(&mut *g);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                body.iter().for_each(&mut *g);
                for handler in handlers {
                    if let Some(typ) = &handler.typ {
                        f(typ);
                    }
                    handler.body.iter().for_each(&mut *g);
                }
                orelse.iter().chain(finalbody).for_each(&mut *g);
            }
            StmtKind::Raise { exc, cause } => {
                [exc, cause].into_iter().flatten().for_each(&mut *f);
            }
            StmtKind::Delete(targets) => targets.iter().for_each(&mut *f),
            StmtKind::Assert { test, msg } => {
                f(test);
                if let Some(msg) = msg {
                    f(msg);
                }
            }
            StmtKind::Import(_)
            | StmtKind::ImportFrom { .. }
            | StmtKind::Pass
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Global(_)
            | StmtKind::Nonlocal(_) => {}
        }
    }
}

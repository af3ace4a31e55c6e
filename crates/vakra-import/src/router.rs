//! One router module → one domain catalog.

use serde_json::{Map, Number, Value};
use vakra_catalog::{
    Binding, Binds, DomainCatalog, FetchMode, Operation, Param, ParamType, SqlProgram, SqlText,
    python_title,
};
use vakra_endpoint::Endpoint;
use vakra_pysyntax::ast::{Constant, Expr, ExprKind, FunctionDef, Keyword, Stmt, StmtKind};

/// An endpoint the catalog cannot express, with where it is and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unexpressed {
    pub file: String,
    pub line: u32,
    pub function: String,
    pub reason: String,
}

impl std::fmt::Display for Unexpressed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file, self.line, self.function, self.reason
        )
    }
}

/// A translated module.
#[derive(Debug)]
pub struct ImportedRouter {
    pub catalog: DomainCatalog,
    pub unexpressed: Vec<Unexpressed>,
}

/// Translates the source of one router module. Only a module that does not parse is an error;
/// endpoints that do not fit, including those whose expressions the server would refuse to
/// compile, are reported in [`ImportedRouter::unexpressed`].
pub fn import_router(domain: &str, file: &str, source: &str) -> Result<ImportedRouter, String> {
    let module = vakra_pysyntax::parse_module(source).map_err(|e| e.to_string())?;
    let mut operations = Vec::new();
    let mut unexpressed = Vec::new();
    let mut samples: Vec<String> = Vec::new();
    for stmt in &module.body {
        match &stmt.kind {
            StmtKind::FunctionDef(def) if is_route(def) => match servable_endpoint(domain, def) {
                Ok(op) => operations.push(op),
                Err((line, reason)) => unexpressed.push(Unexpressed {
                    file: file.to_owned(),
                    line,
                    function: def.name.clone(),
                    reason,
                }),
            },
            StmtKind::Assign { targets, value } if is_name(targets, "api_calls") => {
                if let ExprKind::List(items) = &value.kind {
                    samples = items
                        .iter()
                        .filter_map(string_constant)
                        .map(str::to_owned)
                        .collect();
                }
            }
            _ => {}
        }
    }
    attach_samples(&mut operations, &samples);
    Ok(ImportedRouter {
        catalog: DomainCatalog {
            name: domain.to_owned(),
            source: Some(file.to_owned()),
            operations,
        },
        unexpressed,
    })
}

/// `api_calls` has one sample URL per endpoint; each is matched to its endpoint by path.
fn attach_samples(operations: &mut [Operation], samples: &[String]) {
    for op in operations {
        op.program.sample = samples
            .iter()
            .find(|s| s.split('?').next() == Some(op.path.as_str()))
            .cloned();
    }
}

fn is_name(targets: &[Expr], name: &str) -> bool {
    matches!(targets, [t] if matches!(&t.kind, ExprKind::Name(n) if n == name))
}

fn string_constant(expr: &Expr) -> Option<&str> {
    match &expr.kind {
        ExprKind::Constant(Constant::Str(s)) => Some(s),
        _ => None,
    }
}

fn route_decorator(def: &FunctionDef) -> Option<(&Expr, &str)> {
    def.decorators.iter().find_map(|d| {
        let ExprKind::Call { func, .. } = &d.kind else {
            return None;
        };
        let ExprKind::Attribute { value, attr } = &func.kind else {
            return None;
        };
        let ExprKind::Name(object) = &value.kind else {
            return None;
        };
        let method = ["get", "post", "put", "delete", "patch"]
            .into_iter()
            .find(|m| m == attr)?;
        (object == "app").then_some((d, method))
    })
}

fn is_route(def: &FunctionDef) -> bool {
    route_decorator(def).is_some()
}

type Fail = (u32, String);

fn line(expr: &Expr) -> u32 {
    expr.span.start.line
}

fn fail<T>(at: u32, reason: impl Into<String>) -> Result<T, Fail> {
    Err((at, reason.into()))
}

/// An endpoint the server can also compile: catalogs never hold operations it would refuse.
fn servable_endpoint(domain: &str, def: &FunctionDef) -> Result<Operation, Fail> {
    let op = endpoint(def)?;
    match Endpoint::compile(domain, op.clone()) {
        Ok(_) => Ok(op),
        Err(e) => fail(def_line(def), e.message),
    }
}

fn endpoint(def: &FunctionDef) -> Result<Operation, Fail> {
    let Some((decorator, method)) = route_decorator(def) else {
        return fail(0, "not a route");
    };
    let at = line(decorator);
    if method != "get" {
        return fail(
            at,
            format!("only GET endpoints are supported, found app.{method}"),
        );
    }
    let ExprKind::Call { args, keywords, .. } = &decorator.kind else {
        return fail(at, "route decorator is not a call");
    };
    let path = match args.as_slice() {
        [p] => string_constant(p).ok_or((at, "route path must be a string literal".to_owned()))?,
        _ => {
            return fail(
                at,
                "route decorator must have exactly one positional argument (the path)",
            );
        }
    };
    if !path.starts_with('/') || path.contains('{') {
        return fail(
            at,
            format!("unsupported path {path:?} (path parameters are not supported)"),
        );
    }
    let mut operation_id = None;
    let mut summary = None;
    for keyword in keywords {
        let slot = match keyword.arg.as_deref() {
            Some("operation_id") => &mut operation_id,
            Some("summary") => &mut summary,
            _ => {
                return fail(
                    at,
                    format!("unsupported decorator argument {}", keyword_label(keyword)),
                );
            }
        };
        let value = keyword_string(keyword).ok_or((
            at,
            format!(
                "decorator argument {} must be a string literal",
                keyword_label(keyword)
            ),
        ))?;
        *slot = Some(value.to_owned());
    }
    let operation_id = operation_id.unwrap_or_else(|| fastapi_operation_id(&def.name, path));
    let summary = summary
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| python_title(&def.name));
    let params = parameters(def)?;
    let program = program(def, &params)?;
    Ok(Operation {
        path: path.to_owned(),
        operation_id,
        summary,
        params,
        program,
    })
}

fn keyword_string(keyword: &Keyword) -> Option<&str> {
    string_constant(&keyword.value)
}

/// A keyword argument as a reason names it: `name`, or `**value` for an unpacked mapping.
fn keyword_label(keyword: &Keyword) -> String {
    match &keyword.arg {
        Some(name) => name.clone(),
        None => format!("**{}", keyword.value),
    }
}

/// FastAPI's `generate_unique_id` for a GET route without an explicit operation id.
fn fastapi_operation_id(function: &str, path: &str) -> String {
    let raw: String = format!("{function}{path}")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{raw}_get")
}

fn parameters(def: &FunctionDef) -> Result<Vec<Param>, Fail> {
    let p = &def.params;
    let odd = [
        (p.posonly.first(), "positional-only"),
        (p.vararg.as_ref(), "*args"),
        (p.kwonly.first(), "keyword-only"),
        (p.kwarg.as_ref(), "**kwargs"),
    ];
    if let Some((param, kind)) = odd
        .into_iter()
        .find_map(|(param, kind)| Some((param?, kind)))
    {
        return fail(
            param.span.start.line,
            format!(
                "unsupported {kind} parameter {:?} (only plain parameters are supported)",
                param.name
            ),
        );
    }
    p.args
        .iter()
        .map(|param| {
            let at = param.span.start.line;
            let ty = match param.annotation.as_ref().map(|a| &a.kind) {
                Some(ExprKind::Name(n)) if n == "str" => ParamType::Str,
                Some(ExprKind::Name(n)) if n == "int" => ParamType::Int,
                Some(ExprKind::Name(n)) if n == "float" => ParamType::Float,
                Some(ExprKind::Name(n)) if n == "bool" => ParamType::Bool,
                Some(_) => {
                    return fail(
                        at,
                        format!(
                            "parameter {:?}: only str, int, float and bool are supported",
                            param.name
                        ),
                    );
                }
                None => ParamType::Str,
            };
            let (default, description) = match &param.default {
                None => (None, String::new()),
                Some(expr) => match &expr.kind {
                    ExprKind::Call {
                        func,
                        args,
                        keywords,
                    } if matches!(&func.kind, ExprKind::Name(n) if n == "Query") => {
                        query_default(&param.name, args, keywords, at)?
                    }
                    _ => (
                        Some(json_constant(expr).ok_or((
                            at,
                            format!("parameter {:?}: default must be a constant", param.name),
                        ))?),
                        String::new(),
                    ),
                },
            };
            Ok(Param {
                name: param.name.clone(),
                ty,
                required: default.is_none(),
                default,
                description,
            })
        })
        .collect()
}

/// `Query(<default or ...>, description="…")`: `None` in the result means required.
fn query_default(
    name: &str,
    args: &[Expr],
    keywords: &[Keyword],
    at: u32,
) -> Result<(Option<Value>, String), Fail> {
    let mut default_expr = args.first();
    if args.len() > 1 {
        return fail(
            at,
            format!("parameter {name:?}: Query takes one positional argument"),
        );
    }
    let mut description = String::new();
    for keyword in keywords {
        match keyword.arg.as_deref() {
            Some("description") => {
                description = keyword_string(keyword)
                    .ok_or((
                        at,
                        format!("parameter {name:?}: description must be a string literal"),
                    ))?
                    .to_owned();
            }
            Some("default") => default_expr = Some(&keyword.value),
            _ => {
                return fail(
                    at,
                    format!(
                        "parameter {name:?}: unsupported Query argument {}",
                        keyword_label(keyword)
                    ),
                );
            }
        }
    }
    let default = match default_expr.map(|e| &e.kind) {
        None | Some(ExprKind::Constant(Constant::Ellipsis)) => None,
        Some(_) => Some(default_expr.and_then(json_constant).ok_or((
            at,
            format!("parameter {name:?}: default must be a constant"),
        ))?),
    };
    Ok((default, description))
}

/// A constant expression as JSON: what an empty-result template or a default can be.
fn json_constant(expr: &Expr) -> Option<Value> {
    Some(match &expr.kind {
        ExprKind::Constant(Constant::None) => Value::Null,
        ExprKind::Constant(Constant::Bool(b)) => Value::Bool(*b),
        ExprKind::Constant(Constant::Int(i)) => Value::Number((*i).into()),
        ExprKind::Constant(Constant::Float(f)) => Value::Number(Number::from_f64(*f)?),
        ExprKind::Constant(Constant::Str(s)) => Value::String(s.clone()),
        ExprKind::UnaryOp {
            op: vakra_pysyntax::ast::UnaryOp::USub,
            operand,
        } => match json_constant(operand)? {
            Value::Number(n) if n.is_i64() => Value::Number((-n.as_i64()?).into()),
            Value::Number(n) => Value::Number(Number::from_f64(-n.as_f64()?)?),
            _ => return None,
        },
        ExprKind::List(items) | ExprKind::Tuple(items) => {
            Value::Array(items.iter().map(json_constant).collect::<Option<_>>()?)
        }
        ExprKind::Dict(pairs) => {
            let mut map = Map::new();
            for (key, value) in pairs {
                map.insert(
                    string_constant(key.as_ref()?)?.to_owned(),
                    json_constant(value)?,
                );
            }
            Value::Object(map)
        }
        _ => return None,
    })
}

/// The positional and keyword arguments of `cursor.<method>(...)`.
fn cursor_call<'e>(expr: &'e Expr, method: &str) -> Option<(&'e [Expr], &'e [Keyword])> {
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &expr.kind
    else {
        return None;
    };
    let ExprKind::Attribute { value, attr } = &func.kind else {
        return None;
    };
    (matches!(&value.kind, ExprKind::Name(n) if n == "cursor") && attr == method)
        .then_some((args.as_slice(), keywords.as_slice()))
}

/// `cursor.<method>()` without arguments.
fn is_bare_cursor_call(expr: &Expr, method: &str) -> bool {
    cursor_call(expr, method).is_some_and(|(args, keywords)| args.is_empty() && keywords.is_empty())
}

/// What a statement the catalog cannot express is, for reasons.
fn describe(stmt: &Stmt) -> &'static str {
    match &stmt.kind {
        StmtKind::Expr(e) if cursor_call(e, "execute").is_some() => "a second cursor.execute call",
        StmtKind::Expr(_) => "an expression statement",
        StmtKind::For { .. } => "a for loop",
        StmtKind::While { .. } => "a while loop",
        StmtKind::If { .. } => "an if statement",
        StmtKind::With { .. } => "a with statement",
        StmtKind::Try { .. } => "a try statement",
        StmtKind::Return(_) => "a return before the last statement",
        _ => "a statement of another kind",
    }
}

fn single_name_target(targets: &[Expr]) -> Option<&str> {
    match targets {
        [t] => match &t.kind {
            ExprKind::Name(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

/// The handler body: `[locals] cursor.execute(sql[, binds]); X = cursor.fetchone|fetchall();
/// if not X: return <constant>; [locals] return <expr>`.
fn program(def: &FunctionDef, params: &[Param]) -> Result<SqlProgram, Fail> {
    let body: Vec<&Stmt> = def
        .body
        .iter()
        .filter(|s| {
            !matches!(&s.kind, StmtKind::Expr(e) if string_constant(e).is_some())
                && !matches!(s.kind, StmtKind::Pass)
        })
        .collect();
    let mut rest = body.as_slice();
    let mut before = Vec::new();
    let execute_args = loop {
        let Some((stmt, tail)) = rest.split_first() else {
            return fail(def_line(def), "no cursor.execute(...) call");
        };
        rest = tail;
        match &stmt.kind {
            StmtKind::Expr(e) => match cursor_call(e, "execute") {
                Some((args, [])) => break (args, stmt.span.start.line),
                Some((_, keywords)) => {
                    let names: Vec<String> = keywords.iter().map(keyword_label).collect();
                    return fail(
                        stmt.span.start.line,
                        format!(
                            "keyword arguments of cursor.execute are not supported ({})",
                            names.join(", ")
                        ),
                    );
                }
                None => {
                    return fail(
                        stmt.span.start.line,
                        format!(
                            "unsupported statement before cursor.execute: {}",
                            describe(stmt)
                        ),
                    );
                }
            },
            StmtKind::Assign { targets, value } => match single_name_target(targets) {
                Some(name) => before.push(Binding {
                    name: name.to_owned(),
                    expr: value.to_string(),
                }),
                None => {
                    return fail(
                        stmt.span.start.line,
                        "only `name = expression` assignments are supported",
                    );
                }
            },
            _ => {
                return fail(
                    stmt.span.start.line,
                    format!(
                        "unsupported statement before cursor.execute: {}",
                        describe(stmt)
                    ),
                );
            }
        }
    };
    let (args, execute_line) = execute_args;
    let locals: Vec<&str> = before.iter().map(|b| b.name.as_str()).collect();
    let (sql, binds) = match args {
        [sql] => (sql_text(sql), Binds::default()),
        [sql, binds] => (sql_text(sql), bind_list(binds, params, &locals)),
        _ => {
            return fail(
                execute_line,
                "cursor.execute takes the SQL and an optional bind tuple",
            );
        }
    };

    let (fetch_stmt, tail) = rest
        .split_first()
        .ok_or((execute_line, "no fetch after cursor.execute".to_owned()))?;
    rest = tail;
    let (result, fetch) = fetch_into(fetch_stmt)?;

    let (if_stmt, tail) = rest.split_first().ok_or((
        fetch_stmt.span.start.line,
        "no `if not result:` check".to_owned(),
    ))?;
    rest = tail;
    let empty = empty_template(if_stmt, &result)?;

    let mut after = Vec::new();
    let response = loop {
        let Some((stmt, tail)) = rest.split_first() else {
            return fail(if_stmt.span.start.line, "no final return");
        };
        rest = tail;
        match &stmt.kind {
            StmtKind::Return(Some(value)) if rest.is_empty() => break value.to_string(),
            StmtKind::Assign { targets, value } => match single_name_target(targets) {
                Some(name) => after.push(Binding {
                    name: name.to_owned(),
                    expr: value.to_string(),
                }),
                None => {
                    return fail(
                        stmt.span.start.line,
                        "only `name = expression` assignments are supported",
                    );
                }
            },
            _ => {
                return fail(
                    stmt.span.start.line,
                    format!("unsupported statement after the fetch: {}", describe(stmt)),
                );
            }
        }
    };
    Ok(SqlProgram {
        before,
        sql,
        binds,
        fetch,
        result,
        empty,
        after,
        response,
        sample: None,
    })
}

/// The statement after `cursor.execute`: `result = cursor.fetchone()` (or `fetchall()`); the
/// result's name and the fetch mode.
fn fetch_into(fetch_stmt: &Stmt) -> Result<(String, FetchMode), Fail> {
    match &fetch_stmt.kind {
        StmtKind::Assign { targets, value } => {
            let name = single_name_target(targets).ok_or((
                fetch_stmt.span.start.line,
                "fetch result must go to a name".to_owned(),
            ))?;
            let fetch = if is_bare_cursor_call(value, "fetchone") {
                FetchMode::One
            } else if is_bare_cursor_call(value, "fetchall") {
                FetchMode::All
            } else {
                return fail(
                    fetch_stmt.span.start.line,
                    "expected cursor.fetchone() or cursor.fetchall()",
                );
            };
            Ok((name.to_owned(), fetch))
        }
        _ => fail(
            fetch_stmt.span.start.line,
            format!(
                "{}; expected `result = cursor.fetchone()` or `fetchall()` after cursor.execute",
                describe(fetch_stmt)
            ),
        ),
    }
}

fn def_line(def: &FunctionDef) -> u32 {
    def.decorators.first().map(line).unwrap_or(0)
}

fn sql_text(expr: &Expr) -> SqlText {
    match string_constant(expr) {
        Some(s) => SqlText::Literal(s.to_owned()),
        None => SqlText::Expr {
            expr: expr.to_string(),
        },
    }
}

/// A tuple of parameter names is stored as a list of names; anything else (spreads, locals,
/// `tuple(...)`) as an expression.
fn bind_list(expr: &Expr, params: &[Param], locals: &[&str]) -> Binds {
    if let ExprKind::Tuple(items) = &expr.kind {
        let names: Option<Vec<String>> = items
            .iter()
            .map(|item| match &item.kind {
                ExprKind::Name(n)
                    if params.iter().any(|p| &p.name == n) && !locals.contains(&n.as_str()) =>
                {
                    Some(n.clone())
                }
                _ => None,
            })
            .collect();
        if let Some(names) = names {
            return Binds::Params(names);
        }
    }
    Binds::Expr {
        expr: expr.to_string(),
    }
}

fn empty_template(stmt: &Stmt, result: &str) -> Result<Value, Fail> {
    let at = stmt.span.start.line;
    let StmtKind::If { test, body, orelse } = &stmt.kind else {
        return fail(at, format!("expected `if not {result}:`"));
    };
    let tests_result = matches!(&test.kind, ExprKind::UnaryOp { op: vakra_pysyntax::ast::UnaryOp::Not, operand }
        if matches!(&operand.kind, ExprKind::Name(n) if n == result));
    if !tests_result || !orelse.is_empty() {
        return fail(at, format!("expected `if not {result}:` without else"));
    }
    match body.as_slice() {
        [
            Stmt {
                kind: StmtKind::Return(Some(value)),
                ..
            },
        ] => json_constant(value)
            .ok_or((at, "the empty-result return must be a constant".to_owned())),
        _ => fail(at, "the empty-result branch must be a single return"),
    }
}

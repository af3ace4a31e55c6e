use std::borrow::Cow;

use serde_json::Value;
use vakra_catalog::{Binds, FetchMode, Operation, SqlText};
use vakra_pysyntax::ast::Expr;
use vakra_sql::{Database, Fetched, SqlError, SqlValue};

use crate::PyValue;
use crate::eval::{Env, PyError, compile};

/// The statement of one call: its text, its positional binds and what is fetched.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement<'e> {
    pub sql: Cow<'e, str>,
    pub binds: Vec<SqlValue>,
    pub fetch: FetchMode,
}

/// One operation, compiled: expressions parsed and checked once, at load.
#[derive(Debug)]
pub struct Endpoint {
    domain: String,
    operation: Operation,
    before: Vec<(String, Expr)>,
    sql: CompiledSql,
    binds: CompiledBinds,
    after: Vec<(String, Expr)>,
    response: Expr,
}

#[derive(Debug)]
enum CompiledSql {
    Literal(String),
    Expr(Expr),
}

#[derive(Debug)]
enum CompiledBinds {
    Params(Vec<usize>),
    Expr(Expr),
}

/// A catalog operation the server cannot run; found at load, never at call time.
#[derive(Debug, thiserror::Error)]
#[error("{path} ({operation_id}): {message}")]
pub struct CompileError {
    pub path: String,
    pub operation_id: String,
    pub message: String,
}

/// Why a call failed. The reference answers each of these with HTTP 500 and the body
/// `Internal Server Error`; the message is for logs.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error(transparent)]
    Sql(#[from] SqlError),
    #[error("{0}")]
    Python(#[from] PyError),
    #[error(transparent)]
    Json(#[from] crate::JsonError),
}

impl Endpoint {
    /// Parses and checks every expression of `operation`: names must be parameters, earlier
    /// locals, the fetched rows, comprehension variables or supported builtins.
    pub fn compile(domain: &str, operation: Operation) -> Result<Self, CompileError> {
        let fail = |message: String| CompileError {
            path: operation.path.clone(),
            operation_id: operation.operation_id.clone(),
            message,
        };
        let program = &operation.program;
        let mut known: Vec<String> = operation.params.iter().map(|p| p.name.clone()).collect();
        let locals = |bindings: &[vakra_catalog::Binding], known: &mut Vec<String>| {
            bindings
                .iter()
                .map(|b| {
                    let expr = compile(&b.expr, known).map_err(|e| format!("{}: {e}", b.name))?;
                    known.push(b.name.clone());
                    Ok((b.name.clone(), expr))
                })
                .collect::<Result<Vec<_>, String>>()
        };
        let before = locals(&program.before, &mut known).map_err(fail)?;
        let sql = match &program.sql {
            SqlText::Literal(s) => CompiledSql::Literal(s.clone()),
            SqlText::Expr { expr } => {
                CompiledSql::Expr(compile(expr, &known).map_err(|e| fail(format!("sql: {e}")))?)
            }
        };
        let binds = match &program.binds {
            Binds::Params(names) => CompiledBinds::Params(
                names
                    .iter()
                    .map(|n| {
                        operation
                            .params
                            .iter()
                            .position(|p| &p.name == n)
                            .ok_or_else(|| fail(format!("binds: {n:?} is not a parameter")))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Binds::Expr { expr } => {
                CompiledBinds::Expr(compile(expr, &known).map_err(|e| fail(format!("binds: {e}")))?)
            }
        };
        known.push(program.result.clone());
        let after = locals(&program.after, &mut known).map_err(fail)?;
        let response =
            compile(&program.response, &known).map_err(|e| fail(format!("response: {e}")))?;
        Ok(Self {
            domain: domain.to_owned(),
            operation,
            before,
            sql,
            binds,
            after,
            response,
        })
    }

    /// The domain whose database this endpoint reads.
    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The catalog operation.
    pub fn operation(&self) -> &Operation {
        &self.operation
    }

    /// Runs the handler on parsed arguments (one per parameter, in declaration order).
    pub fn call(&self, db: &Database, args: Vec<PyValue>) -> Result<Value, CallError> {
        Ok(match self.run(db, args)? {
            Some(value) => value.to_json()?,
            None => self.operation.program.empty.clone(),
        })
    }

    /// [`Endpoint::call`] with the body written into `out` as the REST API sends it (Starlette's
    /// `JSONResponse` text), without building a JSON value; on an error `out` holds a partial
    /// text.
    pub fn call_json(
        &self,
        db: &Database,
        args: Vec<PyValue>,
        out: &mut String,
    ) -> Result<(), CallError> {
        match self.run(db, args)? {
            Some(value) => value.write_json(out)?,
            None => vakra_pytext::dump_to(
                out,
                &self.operation.program.empty,
                &vakra_pytext::DumpOptions::compact_utf8(),
            )
            .map_err(|_| crate::JsonError::NonFiniteFloat)?,
        }
        Ok(())
    }

    /// The handler: the response value, or `None` when nothing was fetched (the empty
    /// template is the answer).
    fn run(&self, db: &Database, args: Vec<PyValue>) -> Result<Option<PyValue>, CallError> {
        let (mut env, statement) = self.prepare(args)?;
        let fetched = db.query(&statement.sql, &statement.binds, statement.fetch)?;
        let program = &self.operation.program;
        let result = match fetched {
            Fetched::One(row) => row.map_or(PyValue::None, PyValue::row),
            Fetched::All(rows) => PyValue::List(rows.into_iter().map(PyValue::row).collect()),
        };
        if !result.truthy() {
            return Ok(None);
        }
        env.set(&program.result, result);
        for (name, expr) in &self.after {
            let value = env.eval(expr)?;
            env.set(name, value);
        }
        Ok(Some(env.eval(&self.response)?))
    }

    /// The statement a call on `args` runs, as the handler hands it to `cursor.execute`: for
    /// measuring SQLite alone on the statements the endpoints issue.
    pub fn statement(&self, args: Vec<PyValue>) -> Result<Statement<'_>, CallError> {
        Ok(self.prepare(args)?.1)
    }

    /// The handler up to its `execute`: the arguments and locals, and the statement.
    fn prepare(&self, args: Vec<PyValue>) -> Result<(Env, Statement<'_>), CallError> {
        let mut env = Env::new();
        for (param, value) in self.operation.params.iter().zip(args) {
            env.set(&param.name, value);
        }
        for (name, expr) in &self.before {
            let value = env.eval(expr)?;
            env.set(name, value);
        }
        let sql = match &self.sql {
            CompiledSql::Literal(s) => Cow::Borrowed(s.as_str()),
            CompiledSql::Expr(expr) => match env.eval(expr)? {
                PyValue::Str(s) => Cow::Owned(s),
                other => {
                    return Err(PyError::type_error(format!(
                        "execute() argument 1 must be str, not {}",
                        other.type_name()
                    ))
                    .into());
                }
            },
        };
        let binds = match &self.binds {
            CompiledBinds::Params(indexes) => indexes
                .iter()
                .map(|&i| env.get(&self.operation.params[i].name).map(to_sql))
                .collect::<Option<Result<Vec<_>, _>>>()
                .unwrap_or_else(|| Err(PyError::name_error("parameter")))?,
            CompiledBinds::Expr(expr) => match env.eval(expr)? {
                PyValue::Tuple(items) | PyValue::List(items) => {
                    items.iter().map(to_sql).collect::<Result<Vec<_>, _>>()?
                }
                other => {
                    return Err(PyError::value_error(format!(
                        "parameters are of unsupported type {}",
                        other.type_name()
                    ))
                    .into());
                }
            },
        };
        let fetch = self.operation.program.fetch;
        Ok((env, Statement { sql, binds, fetch }))
    }
}

/// Python's `sqlite3` adapters: only None, int, float, str and bytes can be bound.
fn to_sql(value: &PyValue) -> Result<SqlValue, PyError> {
    Ok(match value {
        PyValue::None => SqlValue::Null,
        PyValue::Bool(b) => SqlValue::Integer(i64::from(*b)),
        PyValue::Int(i) => SqlValue::Integer(*i),
        PyValue::Float(f) => SqlValue::Real(*f),
        PyValue::Str(s) => SqlValue::Text(s.clone()),
        PyValue::Bytes(b) => SqlValue::Blob(b.clone()),
        other => {
            return Err(PyError::programming_error(format!(
                "Error binding parameter: type '{}' is not supported",
                other.type_name()
            )));
        }
    })
}

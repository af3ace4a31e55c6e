use serde_json::Value;
use vakra_catalog::{Binds, Operation, SqlText};
use vakra_pysyntax::ast::Expr;
use vakra_sql::{Database, Fetched, SqlError, SqlValue};

use crate::PyValue;
use crate::eval::{Env, PyError, compile};

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
        let program = &self.operation.program;
        let mut env = Env::new();
        for (param, value) in self.operation.params.iter().zip(args) {
            env.set(&param.name, value);
        }
        for (name, expr) in &self.before {
            let value = env.eval(expr)?;
            env.set(name, value);
        }
        let sql = match &self.sql {
            CompiledSql::Literal(s) => s.clone(),
            CompiledSql::Expr(expr) => match env.eval(expr)? {
                PyValue::Str(s) => s,
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
        let fetched = db.query(&sql, &binds, program.fetch)?;
        let result = match fetched {
            Fetched::One(row) => row.map_or(PyValue::None, PyValue::row),
            Fetched::All(rows) => PyValue::List(rows.into_iter().map(PyValue::row).collect()),
        };
        if !result.truthy() {
            return Ok(program.empty.clone());
        }
        env.set(&program.result, result);
        for (name, expr) in &self.after {
            let value = env.eval(expr)?;
            env.set(name, value);
        }
        Ok(env.eval(&self.response)?.to_json()?)
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

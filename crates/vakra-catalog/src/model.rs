use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One domain's REST-BIRD endpoints, in the reference's source order (which is the order of
/// tools in `tools/list`).
#[derive(Debug, Clone, PartialEq)]
pub struct DomainCatalog {
    pub name: String,
    /// Where the definitions came from (e.g. the router module an import read), for people.
    pub source: Option<String>,
    pub operations: Vec<Operation>,
}

/// One `GET` endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub path: String,
    pub operation_id: String,
    /// What clients see as the summary; for an empty source summary this is FastAPI's
    /// generated one (see [`python_title`]).
    pub summary: String,
    pub params: Vec<Param>,
    pub program: SqlProgram,
}

/// A query parameter as FastAPI declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: ParamType,
    pub required: bool,
    /// The default of an optional parameter (`null` binds SQL NULL); invisible to agents.
    pub default: Option<Value>,
    pub description: String,
}

/// The Python annotation of a parameter, which decides both validation and the SQLite type it
/// binds as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    Str,
    Int,
    Float,
    Bool,
}

impl ParamType {
    /// The JSON Schema type name, as in OpenAPI documents and MCP input schemas.
    pub fn json_type(self) -> &'static str {
        match self {
            ParamType::Str => "string",
            ParamType::Int => "integer",
            ParamType::Float => "number",
            ParamType::Bool => "boolean",
        }
    }

    /// The inverse of [`ParamType::json_type`].
    pub fn from_json_type(name: &str) -> Option<Self> {
        Some(match name {
            "string" => ParamType::Str,
            "integer" => ParamType::Int,
            "number" => ParamType::Float,
            "boolean" => ParamType::Bool,
            _ => return None,
        })
    }
}

/// What the server runs for one operation: the `x-vakra` extension of the OpenAPI operation.
///
/// Expressions are written in the small Python subset the reference's handlers use (names,
/// constants, indexing and slicing, comprehensions, `+`, conditional expressions, a few builtins);
/// `vakra-endpoint` documents and evaluates it. The common case needs none: `sql` is a literal,
/// `binds` lists parameter names, and `response` is a dict display over the fetched `result`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlProgram {
    /// Local variables computed from the parameters before the query (e.g. splitting a
    /// comma-separated list).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<Binding>,
    pub sql: SqlText,
    #[serde(default, skip_serializing_if = "Binds::is_empty")]
    pub binds: Binds,
    pub fetch: FetchMode,
    /// The variable the fetched row(s) are bound to (`result` or `results` in the reference).
    #[serde(default = "default_result_name")]
    pub result: String,
    /// The JSON body returned when nothing was fetched (`fetchone()` gave `None`, or
    /// `fetchall()` gave no rows).
    pub empty: Value,
    /// Local variables computed after the fetch, before the response.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<Binding>,
    /// The success body, as an expression.
    pub response: String,
    /// A sample request URL for this endpoint (the reference's `api_calls`), for smoke tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<String>,
}

fn default_result_name() -> String {
    "result".to_owned()
}

/// A local variable: `name = expr`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    pub name: String,
    pub expr: String,
}

/// The statement text: a literal, or an expression for the one endpoint that builds its
/// placeholder list from a parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SqlText {
    Literal(String),
    Expr { expr: String },
}

/// The positional bind values: parameter names in order (repeats allowed), or an expression
/// giving a tuple (for spread lists).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Binds {
    Params(Vec<String>),
    Expr { expr: String },
}

impl Default for Binds {
    fn default() -> Self {
        Binds::Params(Vec::new())
    }
}

impl Binds {
    fn is_empty(&self) -> bool {
        matches!(self, Binds::Params(p) if p.is_empty())
    }
}

/// `fetchone()` or `fetchall()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FetchMode {
    One,
    All,
}

/// Python's `str.title()`: FastAPI and pydantic derive summaries and titles from names with
/// `name.replace("_", " ").title()`, and agents see the result.
pub fn python_title(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut previous_cased = false;
    for c in name.chars().map(|c| if c == '_' { ' ' } else { c }) {
        let cased = c.is_lowercase() || c.is_uppercase();
        if previous_cased {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        previous_cased = cased;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::python_title;

    #[test]
    fn title_matches_python() {
        assert_eq!(
            python_title("get_players_taller_than"),
            "Get Players Taller Than"
        );
        assert_eq!(python_title("get_top_3rd_item"), "Get Top 3Rd Item");
        assert_eq!(python_title("get_aCL_values"), "Get Acl Values");
        assert_eq!(python_title("limit"), "Limit");
        assert_eq!(python_title(""), "");
    }
}

//! The default descriptions of capability 4's `query_<domain>` tools, read from the reference's
//! source (parsed, never executed) into `retrievers/default_descriptions.json`.
//!
//! The reference has two: the retriever server's route description for a domain whose
//! `domain_description_dict.json` entry (or its `description` key) is missing, and the combined
//! MCP wrapper's text for a route published without a description (an empty one). Both are
//! f-strings over the domain name; they are stored as templates with a `{domain}` placeholder:
//!
//! ```json
//! {"no_description": "… {domain} …", "empty_description": "… {domain} …"}
//! ```
//!
//! They are the reference's prose, so they are never part of this repository; the demo data root
//! carries texts of its own.

use std::path::Path;

use serde_json::json;
use vakra_catalog::DataRoot;
use vakra_catalog::files::DEFAULT_DESCRIPTIONS;
use vakra_pysyntax::ast::{BoolOp, Constant, Expr, ExprKind, FStringPart};

use crate::chaining::walk_exprs;
use crate::docstrings::parse;
use crate::{ImportError, io_error};

/// The retriever server, whose query routes carry the domain descriptions.
pub const RETRIEVER_SERVER: &str = "environment/retrievers/server.py";
/// The combined capability-4 MCP server, which lists the routes as tools.
pub const COMBINED_SERVER: &str = "environment/retrievers/capability_4_mcp_server.py";
/// The placeholder that stands for the domain name in a template.
pub const DOMAIN_PLACEHOLDER: &str = "{domain}";

/// Writes [`DEFAULT_DESCRIPTIONS`] when the checkout has both servers; returns the files
/// written. A server whose default text cannot be found is an error naming it.
pub fn import_retriever_texts(repo: &Path, root: &DataRoot) -> Result<Vec<String>, ImportError> {
    let server = repo.join(RETRIEVER_SERVER);
    let combined = repo.join(COMBINED_SERVER);
    if !server.is_file() || !combined.is_file() {
        return Ok(Vec::new());
    }
    let no_description = find_template(&server, route_default)?;
    let empty_description = find_template(&combined, wrapper_default)?;
    let value = json!({
        "no_description": no_description,
        "empty_description": empty_description,
    });
    DEFAULT_DESCRIPTIONS
        .write_json(root.path(), &value)
        .map_err(io_error(&DEFAULT_DESCRIPTIONS.path(root.path())))?;
    Ok(vec![DEFAULT_DESCRIPTIONS.relative()])
}

/// The first expression of `path` that `pick` recognises, as a template.
fn find_template(
    path: &Path,
    pick: fn(&Expr) -> Option<&[FStringPart]>,
) -> Result<String, ImportError> {
    let module = parse(path)?;
    let mut found = None;
    for stmt in &module {
        walk_exprs(stmt, &mut |e| {
            if found.is_none() {
                found = pick(e);
            }
        });
        if found.is_some() {
            break;
        }
    }
    let parts = found.ok_or_else(|| ImportError::Parse {
        path: path.to_owned(),
        message: "no default description of the retriever query tools found".into(),
    })?;
    template(parts).map_err(|message| ImportError::Parse {
        path: path.to_owned(),
        message,
    })
}

/// `<entry>.get("description", f"…")`: the server's text for a domain without a description.
fn route_default(e: &Expr) -> Option<&[FStringPart]> {
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return None;
    };
    match (&func.kind, args.as_slice()) {
        (ExprKind::Attribute { attr, .. }, [key, fallback])
            if attr == "get" && is_description_key(key) =>
        {
            fstring(fallback)
        }
        _ => None,
    }
}

/// `<operation>.get("description") or f"…"`: the wrapper's text for a route without one.
fn wrapper_default(e: &Expr) -> Option<&[FStringPart]> {
    let ExprKind::BoolOp {
        op: BoolOp::Or,
        values,
    } = &e.kind
    else {
        return None;
    };
    let [first, fallback] = values.as_slice() else {
        return None;
    };
    let ExprKind::Call { func, args, .. } = &first.kind else {
        return None;
    };
    match (&func.kind, args.as_slice()) {
        (ExprKind::Attribute { attr, .. }, [key]) if attr == "get" && is_description_key(key) => {
            fstring(fallback)
        }
        _ => None,
    }
}

fn is_description_key(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Constant(Constant::Str(s)) if s == "description")
}

fn fstring(e: &Expr) -> Option<&[FStringPart]> {
    match &e.kind {
        ExprKind::JoinedStr(parts) => Some(parts),
        _ => None,
    }
}

/// The f-string as a template: literal text kept, each plain `{name}` field (the domain) made
/// [`DOMAIN_PLACEHOLDER`]. Any other field cannot be reproduced and is an error.
fn template(parts: &[FStringPart]) -> Result<String, String> {
    let mut out = String::new();
    for part in parts {
        match part {
            FStringPart::Literal(text) => out.push_str(text),
            FStringPart::Formatted(field)
                if field.conversion.is_none()
                    && field.format_spec.is_none()
                    && matches!(field.value.kind, ExprKind::Name(_)) =>
            {
                out.push_str(DOMAIN_PLACEHOLDER);
            }
            FStringPart::Formatted(_) => {
                return Err(
                    "the default description interpolates more than the domain name".into(),
                );
            }
        }
    }
    Ok(out)
}

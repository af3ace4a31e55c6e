//! Which router modules the reference's FastAPI app mounts, in order.

use std::path::Path;

use vakra_pysyntax::ast::{ExprKind, StmtKind};

use crate::{ImportError, io_error};

/// The modules passed to `app.include_router(<module>.app)` at the top level of `app.py`, in
/// mount order. Commented-out lines are comments, so `donor` stays out as in the reference.
/// Every mounted name must have been imported `from server import …` before; a name imported
/// `as` an alias mounts the module it names.
pub fn mounted_modules(app_path: &Path) -> Result<Vec<String>, ImportError> {
    let source = std::fs::read_to_string(app_path).map_err(io_error(app_path))?;
    let parse_error = |message: String| ImportError::Parse {
        path: app_path.to_owned(),
        message,
    };
    let module = vakra_pysyntax::parse_module(&source).map_err(|e| parse_error(e.to_string()))?;
    // (local name, module), the latest import of a name last.
    let mut imported: Vec<(String, String)> = Vec::new();
    let mut mounted: Vec<String> = Vec::new();
    for stmt in &module.body {
        match &stmt.kind {
            StmtKind::ImportFrom {
                module: Some(m),
                names,
                level: 0,
            } if m == "server" => {
                imported.extend(names.iter().map(|a| {
                    let local = a.asname.as_ref().unwrap_or(&a.name);
                    (local.clone(), a.name.clone())
                }));
            }
            StmtKind::Expr(expr) => {
                let ExprKind::Call { func, args, .. } = &expr.kind else {
                    continue;
                };
                let ExprKind::Attribute { attr, .. } = &func.kind else {
                    continue;
                };
                if attr != "include_router" {
                    continue;
                }
                let [arg] = args.as_slice() else {
                    return Err(parse_error(format!(
                        "line {}: include_router takes one router",
                        stmt.span.start.line
                    )));
                };
                let ExprKind::Attribute { value, attr } = &arg.kind else {
                    return Err(parse_error(format!(
                        "line {}: expected include_router(<module>.app)",
                        stmt.span.start.line
                    )));
                };
                let ExprKind::Name(name) = &value.kind else {
                    return Err(parse_error(format!(
                        "line {}: expected include_router(<module>.app)",
                        stmt.span.start.line
                    )));
                };
                if attr != "app" {
                    return Err(parse_error(format!(
                        "line {}: expected {name}.app",
                        stmt.span.start.line
                    )));
                }
                let Some((_, module)) = imported.iter().rev().find(|(local, _)| local == name)
                else {
                    return Err(parse_error(format!(
                        "line {}: {name} is mounted but not imported from server",
                        stmt.span.start.line
                    )));
                };
                if !vakra_catalog::is_valid_domain_name(module) {
                    return Err(parse_error(format!(
                        "line {}: {module:?} is not a valid domain name",
                        stmt.span.start.line
                    )));
                }
                if mounted.contains(module) {
                    return Err(parse_error(format!(
                        "line {}: {module} is mounted twice",
                        stmt.span.start.line
                    )));
                }
                mounted.push(module.clone());
            }
            _ => {}
        }
    }
    if mounted.is_empty() {
        return Err(parse_error(
            "no app.include_router(<module>.app) calls found".into(),
        ));
    }
    Ok(mounted)
}

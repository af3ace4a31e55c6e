//! Helpers shared by the integration tests.

use vakra_pysyntax::ast::{Expr, ExprKind, Stmt};
use vakra_pysyntax::parse_expression;

/// Every expression of the statements, nested statements included, in
/// source order, together with all their sub-expressions.
pub fn all_expressions(body: &[Stmt]) -> Vec<&Expr> {
    let mut stmts: Vec<&Stmt> = body.iter().rev().collect();
    let mut roots = Vec::new();
    while let Some(stmt) = stmts.pop() {
        let mut nested = Vec::new();
        stmt.for_each_child(&mut |e| roots.push(e), &mut |s| nested.push(s));
        stmts.extend(nested.into_iter().rev());
    }
    let mut all = Vec::new();
    let mut pending: Vec<&Expr> = roots.into_iter().rev().collect();
    while let Some(expr) = pending.pop() {
        all.push(expr);
        let mut children = Vec::new();
        expr.for_each_child(&mut |child| children.push(child));
        pending.extend(children.into_iter().rev());
    }
    all
}

/// Checks that unparsing `expr` and parsing the text again gives an equal
/// tree; slices (and tuples of them) are skipped since they only exist
/// inside subscripts.
pub fn assert_round_trip(expr: &Expr) {
    let is_slice = |e: &Expr| matches!(e.kind, ExprKind::Slice { .. });
    match &expr.kind {
        ExprKind::Slice { .. } => return,
        ExprKind::Tuple(elts) if elts.iter().any(is_slice) => return,
        _ => {}
    }
    let text = expr.to_string();
    match parse_expression(&text) {
        Ok(again) => assert_eq!(&again, expr, "round trip changed {text}"),
        Err(err) => panic!("cannot re-parse {text:?}: {err}"),
    }
}

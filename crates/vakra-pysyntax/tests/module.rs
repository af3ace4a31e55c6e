//! Whole modules: the shape of the reference's router modules and `app.py`,
//! and the general statement grammar.

use crate::common;

use vakra_pysyntax::ast::{Constant, Expr, ExprKind, FunctionDef, Keyword, Module, Stmt, StmtKind};
use vakra_pysyntax::{parse_expression, parse_module};

/// A router module in the exact shape of the reference's
/// `environment/m3/rest/server/*.py`.
const ROUTER: &str = r#"from fastapi import APIRouter, HTTPException, Query, Request
import sqlite3

app = APIRouter()

try:
    conn = sqlite3.connect('db/craftbeer/craftbeer.sqlite')
    cursor = conn.cursor()
except Exception as e:
    print(f"Warning: could not connect to database: {e}")
    conn = None
    cursor = None

# Endpoint to get ...
@app.get("/v1/craftbeer/highest_ibu_brewery_by_state", operation_id="get_highest_ibu_brewery_by_state", summary="Retrieves the name ...")
async def get_highest_ibu_brewery_by_state(state: str = Query(..., description="State of the brewery"), limit: int = Query(5, description="x")):
    cursor.execute("SELECT T2.name FROM beers AS T1 WHERE T2.state = ? LIMIT ?", (state, limit))
    result = cursor.fetchone()
    if not result:
        return {"brewery": []}
    return {"brewery": result}

@app.get("/v1/x/y", operation_id="f", summary="s")
async def f(excluded_countries: str = Query(..., description="d"), year: int = Query(..., description="d")):
    excluded_countries_list = excluded_countries.split(',')
    cursor.execute("SELECT COUNT(*) FROM t WHERE c NOT IN (" + ",".join(["?"] * len(excluded_countries_list)) + ") AND y = ?", tuple(excluded_countries_list + [year]))
    result = cursor.fetchall()
    if not result:
        return {"a": [], "b": []}
    average_production = result[0][0] if result[0][0] is not None else 0
    car_names = [row[0] for row in result[1:]]
    day_ids_list = [int(day_id) for day_id in day_ids.split(',')]
    x = [{"customer_id": idx + 1, "average_amount": row[0]} for idx, row in enumerate(result)]
    return {"average_production": average_production, "car_names": car_names, "p": result[0] + " " + result[1], "q": [dict(row) for row in result], "r": result[-1][0], "s": [row[0] for row in result[:-1]]}

api_calls = [
    "/v1/craftbeer/distinct_states_min_ibu",
    "/v1/craftbeer/highest_ibu_brewery_by_state?state=NY",
]
"#;

fn parse(source: &str) -> Module {
    parse_module(source).unwrap_or_else(|e| panic!("{e}"))
}

fn expr(source: &str) -> Expr {
    parse_expression(source).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn string(value: &Expr) -> &str {
    match &value.kind {
        ExprKind::Constant(Constant::Str(text)) => text,
        other => panic!("not a string: {other:?}"),
    }
}

fn keyword<'a>(keywords: &'a [Keyword], name: &str) -> &'a Expr {
    let found = keywords.iter().find(|k| k.arg.as_deref() == Some(name));
    &found.unwrap_or_else(|| panic!("no keyword {name}")).value
}

fn function(stmt: &Stmt) -> &FunctionDef {
    match &stmt.kind {
        StmtKind::FunctionDef(def) => def,
        other => panic!("not a function: {other:?}"),
    }
}

#[test]
fn router_module_structure() {
    let module = parse(ROUTER);
    assert_eq!(module.body.len(), 7);

    let StmtKind::ImportFrom {
        module: Some(from),
        names,
        level: 0,
    } = &module.body[0].kind
    else {
        panic!("{:?}", module.body[0]);
    };
    assert_eq!(from, "fastapi");
    let imported: Vec<&str> = names.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(imported, ["APIRouter", "HTTPException", "Query", "Request"]);

    let StmtKind::Try { body, handlers, .. } = &module.body[3].kind else {
        panic!("{:?}", module.body[3]);
    };
    assert_eq!(body.len(), 2);
    assert_eq!(handlers[0].typ, Some(expr("Exception")));
    assert_eq!(handlers[0].name.as_deref(), Some("e"));
    let StmtKind::Expr(warning) = &handlers[0].body[0].kind else {
        panic!("{:?}", handlers[0].body[0]);
    };
    assert_eq!(
        warning.to_string(),
        "print(f'Warning: could not connect to database: {e}')"
    );

    let def = function(&module.body[4]);
    assert!(def.is_async);
    assert_eq!(def.name, "get_highest_ibu_brewery_by_state");
    assert_eq!(
        module.body[4].span.start.line, 16,
        "spans start at 'async def'"
    );
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &def.decorators[0].kind
    else {
        panic!("{:?}", def.decorators[0]);
    };
    assert_eq!(**func, expr("app.get"));
    assert_eq!(
        string(&args[0]),
        "/v1/craftbeer/highest_ibu_brewery_by_state"
    );
    assert_eq!(
        string(keyword(keywords, "operation_id")),
        "get_highest_ibu_brewery_by_state"
    );
    assert_eq!(
        string(keyword(keywords, "summary")),
        "Retrieves the name ..."
    );
    assert_eq!(def.decorators[0].span.start.line, 15);
    assert_eq!(def.decorators[0].span.start.col, 2);

    let [state, limit] = def.params.args.as_slice() else {
        panic!("{:?}", def.params);
    };
    assert_eq!(state.name, "state");
    assert_eq!(state.annotation, Some(expr("str")));
    assert_eq!(
        state.default,
        Some(expr("Query(..., description='State of the brewery')"))
    );
    let Some(Expr {
        kind: ExprKind::Call { args, .. },
        ..
    }) = &state.default
    else {
        panic!("{:?}", state.default);
    };
    assert_eq!(args[0].kind, ExprKind::Constant(Constant::Ellipsis));
    assert_eq!(limit.annotation, Some(expr("int")));
    assert_eq!(limit.default, Some(expr("Query(5, description='x')")));

    let StmtKind::Expr(execute) = &def.body[0].kind else {
        panic!("{:?}", def.body[0]);
    };
    let ExprKind::Call { func, args, .. } = &execute.kind else {
        panic!("{execute:?}");
    };
    assert_eq!(**func, expr("cursor.execute"));
    assert_eq!(
        string(&args[0]),
        "SELECT T2.name FROM beers AS T1 WHERE T2.state = ? LIMIT ?"
    );
    assert_eq!(args[1], expr("(state, limit)"));
    assert_eq!(args[1].to_string(), "(state, limit)");

    let StmtKind::Return(Some(value)) = &def.body[3].kind else {
        panic!("{:?}", def.body[3]);
    };
    assert_eq!(value.to_string(), "{'brewery': result}");
}

#[test]
fn router_return_dict_keys_and_values_in_order() {
    let module = parse(ROUTER);
    let def = function(&module.body[5]);
    let StmtKind::Expr(execute) = &def.body[1].kind else {
        panic!("{:?}", def.body[1]);
    };
    assert_eq!(
        execute.to_string(),
        "cursor.execute('SELECT COUNT(*) FROM t WHERE c NOT IN (' + ','.join(['?'] * \
         len(excluded_countries_list)) + ') AND y = ?', tuple(excluded_countries_list + [year]))"
    );
    let Some(Stmt {
        kind: StmtKind::Return(Some(value)),
        ..
    }) = def.body.last()
    else {
        panic!("{:?}", def.body.last());
    };
    let ExprKind::Dict(items) = &value.kind else {
        panic!("{value:?}");
    };
    let keys: Vec<&str> = items
        .iter()
        .map(|(key, _)| string(key.as_ref().expect("no spread")))
        .collect();
    assert_eq!(
        keys,
        ["average_production", "car_names", "p", "q", "r", "s"]
    );
    let values: Vec<String> = items.iter().map(|(_, value)| value.to_string()).collect();
    assert_eq!(
        values,
        [
            "average_production",
            "car_names",
            "result[0] + ' ' + result[1]",
            "[dict(row) for row in result]",
            "result[-1][0]",
            "[row[0] for row in result[:-1]]",
        ]
    );
    let printed: Vec<String> = def.body[4..8]
        .iter()
        .map(|stmt| match &stmt.kind {
            StmtKind::Assign { value, .. } => value.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        printed,
        [
            "result[0][0] if result[0][0] is not None else 0",
            "[row[0] for row in result[1:]]",
            "[int(day_id) for day_id in day_ids.split(',')]",
            "[{'customer_id': idx + 1, 'average_amount': row[0]} for idx, row in enumerate(result)]",
        ]
    );

    let StmtKind::Assign { targets, value } = &module.body[6].kind else {
        panic!("{:?}", module.body[6]);
    };
    assert_eq!(targets[0], expr("api_calls"));
    let ExprKind::List(calls) = &value.kind else {
        panic!("{value:?}");
    };
    assert_eq!(
        calls.iter().map(string).collect::<Vec<_>>(),
        [
            "/v1/craftbeer/distinct_states_min_ibu",
            "/v1/craftbeer/highest_ibu_brewery_by_state?state=NY"
        ]
    );
    for expr in common::all_expressions(&module.body) {
        common::assert_round_trip(expr);
    }
}

#[test]
fn app_module_with_trailing_spaces_and_comments() {
    let source = "from fastapi import FastAPI\n\n\n\
        from server import california_schools, card_games  \n\
        from server import bike_share_1\n\n\
        app = FastAPI()\n\n\
        from prometheus_fastapi_instrumentator import Instrumentator\n\
        Instrumentator().instrument(app).expose(app)\n\n\
        app.include_router(california_schools.app)\n\
        # app.include_router(donor.app)\n\
        app.include_router(card_games.app)   # mounted\n";
    let module = parse(source);
    assert_eq!(module.body.len(), 8);
    let StmtKind::ImportFrom {
        module: from,
        names,
        ..
    } = &module.body[1].kind
    else {
        panic!("{:?}", module.body[1]);
    };
    assert_eq!(from.as_deref(), Some("server"));
    assert_eq!(names.len(), 2);
    assert_eq!(names[1].name, "card_games");
    let mounted: Vec<String> = module.body[6..]
        .iter()
        .map(|stmt| match &stmt.kind {
            StmtKind::Expr(call) => call.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        mounted,
        [
            "app.include_router(california_schools.app)",
            "app.include_router(card_games.app)"
        ]
    );
    assert_eq!(module.body[7].span.start.line, 14);
}

const GENERAL: &str = r#""""Module docstring."""
import os.path as osp, sys
from .. import sibling
from ...pkg.mod import (a as b,
                        c,)
from x import *

CONSTANT: int = 3
counter += 1; total = other = 0
x, *rest = items
first, = pair
del x[0], y.z

@decorator
@other.decorator(arg)
class Widget(Base, metaclass=Meta):
    """Class docstring."""
    size = 1

    def __init__(self, a, /, b=2, *args, c, d=4, **kwargs) -> None:
        global counter
        self.a = a
        if a:
            pass
        elif b:
            return
        else:
            raise ValueError("bad") from None

    async def run(self):
        async with lock as held, other:
            async for item in source:
                await item
        with (open(a) as f, open(b) as g):
            yield f, g
        with (yield_point):
            yield from gen()
        while True:
            break
        else:
            continue
        for i, j in pairs:
            nonlocal_value = lambda q, *, r=1: q + r
        else:
            assert i, "message"

try:
    pass
except (KeyError, IndexError) as error:
    pass
except Exception:
    pass
else:
    pass
finally:
    pass

value = {**base, 'k': [*items]} if (n := len(items)) > 2 else \
    {key: val for key, val in pairs}
text = f'{value!r:>{width}} and {nested["key"]}'
"#;

#[test]
fn general_statement_grammar() {
    let module = parse(GENERAL);
    let kinds: Vec<&str> = module
        .body
        .iter()
        .map(|stmt| match &stmt.kind {
            StmtKind::Expr(_) => "expr",
            StmtKind::Import(_) => "import",
            StmtKind::ImportFrom { .. } => "from",
            StmtKind::AnnAssign { .. } => "annassign",
            StmtKind::AugAssign { .. } => "augassign",
            StmtKind::Assign { .. } => "assign",
            StmtKind::Delete(_) => "del",
            StmtKind::ClassDef { .. } => "class",
            StmtKind::Try { .. } => "try",
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "expr",
            "import",
            "from",
            "from",
            "from",
            "annassign",
            "augassign",
            "assign",
            "assign",
            "assign",
            "del",
            "class",
            "try",
            "assign",
            "assign"
        ]
    );
    let StmtKind::ImportFrom {
        module: from,
        names,
        level,
    } = &module.body[3].kind
    else {
        panic!();
    };
    assert_eq!((from.as_deref(), *level), (Some("pkg.mod"), 3));
    assert_eq!(names[0].asname.as_deref(), Some("b"));
    let StmtKind::Assign { targets, .. } = &module.body[7].kind else {
        panic!();
    };
    assert_eq!(targets.len(), 2);

    let StmtKind::ClassDef {
        name,
        bases,
        keywords,
        body,
        decorators,
    } = &module.body[11].kind
    else {
        panic!();
    };
    assert_eq!(name, "Widget");
    assert_eq!(bases.len(), 1);
    assert_eq!(keywords[0].arg.as_deref(), Some("metaclass"));
    assert_eq!(decorators.len(), 2);
    let init = function(&body[2]);
    let params = &init.params;
    assert_eq!(params.posonly.len(), 2);
    assert_eq!(params.args[0].default, Some(expr("2")));
    assert_eq!(
        params.vararg.as_ref().map(|p| p.name.as_str()),
        Some("args")
    );
    assert_eq!(params.kwonly.len(), 2);
    assert_eq!(params.kwonly[0].default, None);
    assert_eq!(
        params.kwarg.as_ref().map(|p| p.name.as_str()),
        Some("kwargs")
    );
    assert_eq!(init.returns, Some(expr("None")));
    let StmtKind::If { orelse, .. } = &init.body[2].kind else {
        panic!();
    };
    let StmtKind::If { orelse, .. } = &orelse[0].kind else {
        panic!("elif is a nested If");
    };
    assert!(matches!(
        orelse[0].kind,
        StmtKind::Raise { cause: Some(_), .. }
    ));

    let run = function(&body[3]);
    assert!(run.is_async);
    let StmtKind::With {
        items, is_async, ..
    } = &run.body[0].kind
    else {
        panic!();
    };
    assert!(*is_async);
    assert_eq!(items.len(), 2);
    let StmtKind::With { items, .. } = &run.body[1].kind else {
        panic!();
    };
    assert_eq!(items.len(), 2, "parenthesized with items");
    assert_eq!(items[1].optional_vars, Some(expr("g")));
    let StmtKind::With { items, .. } = &run.body[2].kind else {
        panic!();
    };
    assert_eq!(items[0].context_expr, expr("yield_point"));

    let StmtKind::Try {
        handlers,
        orelse,
        finalbody,
        ..
    } = &module.body[12].kind
    else {
        panic!();
    };
    assert_eq!((handlers.len(), orelse.len(), finalbody.len()), (2, 1, 1));
    assert_eq!(handlers[0].typ, Some(expr("(KeyError, IndexError)")));

    let StmtKind::Assign { value, .. } = &module.body[13].kind else {
        panic!();
    };
    assert_eq!(
        value.to_string(),
        "{**base, 'k': [*items]} if (n := len(items)) > 2 else {key: val for key, val in pairs}"
    );
    let StmtKind::Assign { value, .. } = &module.body[14].kind else {
        panic!();
    };
    assert_eq!(
        value.to_string(),
        "f\"{value!r:>{width}} and {nested['key']}\""
    );

    for expr in common::all_expressions(&module.body) {
        common::assert_round_trip(expr);
    }
}

#[test]
fn layout_variants_parse_alike() {
    let reference = parse("x = f(a, b)\nif x:\n    y = 1\n");
    for variant in [
        "x = f(a,\n      b)\nif x:\n    y = 1\n",
        "x = f(a, \\\n b)\r\nif x:\r\n    y = 1",
        "x = f(\n    a,  # first\n\n    b,\n)\nif x:\n\n    # comment\n    y = 1\n",
        "\u{feff}x = f(a, b)\nif x: y = 1\n",
        "x = f(a, b);\nif x:\n\ty = 1\n",
    ] {
        assert_eq!(parse(variant), reference, "{variant:?}");
    }
}

#[test]
fn expression_mode_accepts_surrounding_whitespace() {
    assert_eq!(expr("\n  result[0]  # comment\n\n"), expr("result[0]"));
    assert_eq!(expr("a, b"), expr("(a, b)"));
    assert_eq!(expr("1 if x else 2").span.end.col, 14);
}

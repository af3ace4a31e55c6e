//! Unparsing compared with CPython 3.11's `ast.unparse`.
//!
//! Every expected string below was produced by
//! `python3 -c "import ast; print(ast.unparse(ast.parse(SRC, mode='eval')))"`
//! (exec mode for the bare starred tuple).

use crate::common;

use vakra_pysyntax::ast::{Constant, Expr, ExprKind};
use vakra_pysyntax::{parse_expression, parse_module};

/// (source, CPython's `ast.unparse` of it).
const CPYTHON_UNPARSE: &[(&str, &str)] = &[
    (r"x[1:]", r"x[1:]"),
    (r"result[:-1]", r"result[:-1]"),
    (r"result[-1][0]", r"result[-1][0]"),
    (r"result[1:3:2]", r"result[1:3:2]"),
    (r"x[::]", r"x[:]"),
    (r"x[a, b]", r"x[a, b]"),
    (r"x[a,]", r"x[a,]"),
    (r"x[1:2, ::3]", r"x[1:2, ::3]"),
    (r"x[()]", r"x[()]"),
    (r"x[*a]", r"x[*a,]"),
    (
        r"result[0] + ' ' + result[1]",
        r"result[0] + ' ' + result[1]",
    ),
    (
        r"[row[0] for row in result[1:]]",
        r"[row[0] for row in result[1:]]",
    ),
    (
        r"[int(day_id) for day_id in day_ids.split(',')]",
        r"[int(day_id) for day_id in day_ids.split(',')]",
    ),
    (
        r#"[{"customer_id": idx + 1, "average_amount": row[0]} for idx, row in enumerate(result)]"#,
        r"[{'customer_id': idx + 1, 'average_amount': row[0]} for idx, row in enumerate(result)]",
    ),
    (
        r"{k: v for k, v in d.items() if v}",
        r"{k: v for k, v in d.items() if v}",
    ),
    (
        r"{x for x in y if x if not x}",
        r"{x for x in y if x if not x}",
    ),
    (r"(x for x in y)", r"(x for x in y)"),
    (r"f(x for x in y)", r"f((x for x in y))"),
    (r"[x async for x in y]", r"[x async for x in y]"),
    (
        r"[x for x in (a if b else c)]",
        r"[x for x in (a if b else c)]",
    ),
    (
        r"result[0][0] if result[0][0] is not None else 0",
        r"result[0][0] if result[0][0] is not None else 0",
    ),
    (r"a if b else c if d else e", r"a if b else c if d else e"),
    (
        r"(a if b else c) if d else e",
        r"(a if b else c) if d else e",
    ),
    (r#"",".join(["?"] * len(xs))"#, r"','.join(['?'] * len(xs))"),
    (
        r"tuple(excluded_countries_list + [year])",
        r"tuple(excluded_countries_list + [year])",
    ),
    (r"f(a, b=1, *c, **d)", r"f(a, *c, b=1, **d)"),
    (r"(a, b)", r"(a, b)"),
    (r"(a,)", r"(a,)"),
    (r"()", r"()"),
    (r"[]", r"[]"),
    (r"{}", r"{}"),
    (r"{1, 2}", r"{1, 2}"),
    (r"{**a, 'b': 1}", r"{**a, 'b': 1}"),
    (r"(x := 1)", r"(x := 1)"),
    (r"lambda: 0", r"lambda: 0"),
    (
        r"lambda x, y=1, *args, z, w=2, **kw: x",
        r"lambda x, y=1, *args, z, w=2, **kw: x",
    ),
    (r"lambda a, /, b: a", r"lambda a, /, b: a"),
    (r"not a == b", r"not a == b"),
    (r"(not a) == b", r"(not a) == b"),
    (r"-(-1)", r"--1"),
    (r"~-x", r"~-x"),
    (r"(-1) ** 2", r"(-1) ** 2"),
    (r"-1 ** 2", r"-1 ** 2"),
    (r"2 ** -1", r"2 ** (-1)"),
    (r"a ** b ** c", r"a ** b ** c"),
    (r"(a ** b) ** c", r"(a ** b) ** c"),
    (r"(a + b) * c", r"(a + b) * c"),
    (r"a - (b - c)", r"a - (b - c)"),
    (r"a - b - c", r"a - b - c"),
    (r"a | b ^ c & d << e", r"a | b ^ c & d << e"),
    (r"a < b < c", r"a < b < c"),
    (r"(a < b) < c", r"(a < b) < c"),
    (r"a not in b and c is not d", r"a not in b and c is not d"),
    (r"a or b or (c and d)", r"a or b or (c and d)"),
    (r"(a or b) and c", r"(a or b) and c"),
    (r"1 .real", r"1 .real"),
    (r"True.real", r"True .real"),
    (r"(1.5).real", r"1.5.real"),
    (r"await x", r"await x"),
    (r"(yield x)", r"(yield x)"),
    (r"*a, b", r"(*a, b)"),
    (r"1e-05", r"1e-05"),
    (r"1e16", r"1e+16"),
    (r"1e15", r"1000000000000000.0"),
    (r"20.0", r"20.0"),
    (r"1.5e-7", r"1.5e-07"),
    (r"1e400", r"1e309"),
    (r"0xff", r"255"),
    (r"0o17", r"15"),
    (r"0b1010", r"10"),
    (r"1_000_000", r"1000000"),
    (r"9223372036854775808", r"9223372036854775808"),
    (r"0xffffffffffffffffffff", r"1208925819614629174706175"),
    (r#""it's""#, r#""it's""#),
    (r#"'say "hi"'"#, r#"'say "hi"'"#),
    (r#"'both \' and "'"#, r#"'both \' and "'"#),
    (r#""tab\there\nnew line""#, r"'tab\there\nnew line'"),
    (r#""\x00\x7f\xa0\u200b""#, r"'\x00\x7f\xa0\u200b'"),
    (r#""é😀""#, r"'é😀'"),
    (r#""\101\7""#, r"'A\x07'"),
    (r#"r"raw\n""#, r"'raw\\n'"),
    (r#"b"\xff\x00'""#, r#"b"\xff\x00'""#),
    (r#""a" "b""#, r"'ab'"),
    (r#""""triple "quoted" text""""#, r#"'triple "quoted" text'"#),
    (r"...", r"..."),
    (r"None", r"None"),
    (r#"f"{x}""#, r"f'{x}'"),
    (r#"f"a{x}b{y!r}""#, r"f'a{x}b{y!r}'"),
    (r#"f"{x!r:>{w}}""#, r"f'{x!r:>{w}}'"),
    (r#"f"{x=}""#, r"f'x={x!r}'"),
    (r#"f"{x = :>3}""#, r"f'x = {x:>3}'"),
    (r#"f"{x:}""#, r"f'{x:}'"),
    (r#"f"{{literal}}""#, r"f'{{literal}}'"),
    (r#"f"{x['a']}""#, r#"f"{x['a']}""#),
    (r#"f"{ {1: 2} }""#, r"f'{ {1: 2}}'"),
    (r#"f"{a, b}""#, r"f'{(a, b)}'"),
    (r#"f"{x}\n""#, r"f'{x}\n'"),
    (r#"f"""{x}'""""#, r#"f"{x}'""#),
    (r#"f'{a}"' "'""#, r#"f"""{a}"'""""#),
    (r#"f"{3.14:.2f}""#, r"f'{3.14:.2f}'"),
    (r#"f"{'a' if x else 'b'}""#, r#"f"{('a' if x else 'b')}""#),
    (r#""a" f"{x}" "b""#, r"f'a{x}b'"),
];

#[test]
fn unparse_matches_cpython() {
    for (source, expected) in CPYTHON_UNPARSE {
        let expr = parse_expression(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(expr.to_string(), *expected, "unparse of {source}");
    }
}

#[test]
fn unparse_output_round_trips() {
    for (source, _) in CPYTHON_UNPARSE {
        let module = parse_module(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        for expr in common::all_expressions(&module.body) {
            common::assert_round_trip(expr);
        }
    }
}

#[test]
fn unparse_is_idempotent_on_cpython_output() {
    for (_, expected) in CPYTHON_UNPARSE {
        let expr = parse_expression(expected).unwrap_or_else(|e| panic!("{expected}: {e}"));
        assert_eq!(expr.to_string(), *expected);
    }
}

fn constant(value: Constant) -> Expr {
    Expr {
        kind: ExprKind::Constant(value),
        span: Default::default(),
    }
}

#[test]
fn constants_built_by_hand_print_like_python() {
    let cases = [
        (Constant::Float(f64::INFINITY), "1e309"),
        (Constant::Float(f64::NEG_INFINITY), "-1e309"),
        (Constant::Float(f64::NAN), "(1e309-1e309)"),
        (Constant::Float(-0.0), "-0.0"),
        (Constant::Int(-5), "-5"),
        (Constant::Str("\u{2028}\r".into()), r"'\u2028\r'"),
        (
            Constant::Str("\u{e0001}\u{10ffff}\u{e0100}".into()),
            "'\\U000e0001\\U0010ffff\u{e0100}'",
        ),
        (Constant::Bytes(vec![0x7f, b'"', b'\'']), r#"b'\x7f"\''"#),
        (Constant::Ellipsis, "..."),
    ];
    for (value, expected) in cases {
        assert_eq!(constant(value).to_string(), expected);
    }
}

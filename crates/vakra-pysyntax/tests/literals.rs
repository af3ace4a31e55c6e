//! String, bytes, f-string and number literals.

use vakra_pysyntax::ast::{
    Constant, Conversion, Expr, ExprKind, FStringPart, FormattedValue, StmtKind,
};
use vakra_pysyntax::{parse_expression, parse_module};

fn expr(source: &str) -> Expr {
    parse_expression(source).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn constant(source: &str) -> Constant {
    match expr(source).kind {
        ExprKind::Constant(value) => value,
        other => panic!("{source}: not a constant: {other:?}"),
    }
}

fn string(source: &str) -> String {
    match constant(source) {
        Constant::Str(text) => text,
        other => panic!("{source}: not a string: {other:?}"),
    }
}

fn bytes(source: &str) -> Vec<u8> {
    match constant(source) {
        Constant::Bytes(value) => value,
        other => panic!("{source}: not bytes: {other:?}"),
    }
}

fn fstring(source: &str) -> Vec<FStringPart> {
    match expr(source).kind {
        ExprKind::JoinedStr(parts) => parts,
        other => panic!("{source}: not an f-string: {other:?}"),
    }
}

fn literal(text: &str) -> FStringPart {
    FStringPart::Literal(text.to_owned())
}

fn field(
    value: &str,
    conversion: Option<Conversion>,
    spec: Option<Vec<FStringPart>>,
) -> FStringPart {
    FStringPart::Formatted(FormattedValue {
        value: Box::new(expr(value)),
        conversion,
        format_spec: spec,
    })
}

#[test]
fn implicit_concatenation_across_lines_in_brackets() {
    let source = "sql = (\"SELECT a \"\n       'FROM t '  # which table\n\n       \"\"\"WHERE x = ?\"\"\")\n";
    let module = parse_module(source).expect("parses");
    let StmtKind::Assign { value, .. } = &module.body[0].kind else {
        panic!("{module:?}");
    };
    assert_eq!(
        value.kind,
        ExprKind::Constant(Constant::Str("SELECT a FROM t WHERE x = ?".into()))
    );
    assert_eq!((value.span.start.line, value.span.end.line), (1, 4));
    assert_eq!(string("'a' \"b\" '''c''' \"\"\"d\"\"\""), "abcd");
}

#[test]
fn escape_sequences() {
    assert_eq!(
        string(r#""\n\t\r\\\'\"\a\b\f\v""#),
        "\n\t\r\\'\"\x07\x08\x0c\x0b"
    );
    assert_eq!(
        string(r#""\x41\u00e9\U0001F600\101\0\777""#),
        "Aé😀A\0\u{1ff}"
    );
    assert_eq!(string(r#""\d\w\q\{""#), "\\d\\w\\q\\{");
    assert_eq!(string("'abc\\\ndef'"), "abcdef");
    assert_eq!(string("'abc\\\r\ndef'"), "abcdef");
    assert_eq!(string("'''a\\\nb'''"), "ab");
}

#[test]
fn raw_strings_keep_backslashes() {
    assert_eq!(string(r#"r"\n""#), "\\n");
    assert_eq!(string(r#"R'\d+\.\d*'"#), "\\d+\\.\\d*");
    assert_eq!(string(r#"r"\"""#), "\\\"");
    assert_eq!(string(r"r'\\'"), "\\\\");
    assert_eq!(string("r'a\\\nb'"), "a\\\nb");
    assert_eq!(bytes(r#"rb"\x00""#), b"\\x00");
    assert_eq!(bytes(r#"Br'\''"#), b"\\'");
}

#[test]
fn triple_quoted_strings() {
    assert_eq!(
        string(r#""""He said "hi" and 'bye'""""#),
        "He said \"hi\" and 'bye'"
    );
    assert_eq!(string("'''it's'''"), "it's");
    assert_eq!(
        string("'''line one\nline two\r\nline three'''"),
        "line one\nline two\nline three"
    );
    assert_eq!(string(r#""""ends with quote\"""""#), "ends with quote\"");
    assert_eq!(string("''''''"), "");
}

#[test]
fn prefixes_in_any_case() {
    assert_eq!(string("U'x'"), "x");
    assert_eq!(string("u\"x\""), "x");
    assert_eq!(bytes("B'x'"), b"x");
    assert_eq!(bytes("bR'\\x'"), b"\\x");
    assert_eq!(fstring("F'{x}'"), [field("x", None, None)]);
    assert_eq!(
        fstring("fR'\\d{x}'"),
        [literal("\\d"), field("x", None, None)]
    );
    assert_eq!(
        fstring("Rf'{x}\\n'"),
        [field("x", None, None), literal("\\n")]
    );
}

#[test]
fn non_ascii_text_and_columns() {
    let sql = "SELECT * FROM café WHERE naïve = '–' -- 😀";
    assert_eq!(string(&format!("\"{sql}\"")), sql);
    let concat = expr("\"é😀\" + x");
    let ExprKind::BinOp { right, .. } = concat.kind else {
        panic!();
    };
    assert_eq!((right.span.start.col, right.span.start.offset), (8, 11));
    assert_eq!(expr("'é\\t😀'").to_string(), "'é\\t😀'");
}

#[test]
fn bytes_literals() {
    assert_eq!(bytes(r#"b"\xff\x00\n""#), [0xff, 0, b'\n']);
    assert_eq!(bytes(r"b'\777'"), [0xff]);
    assert_eq!(bytes(r"b'\u00e9'"), b"\\u00e9");
    assert_eq!(bytes("b'a' b\"b\""), b"ab");
}

#[test]
fn fstring_structure() {
    let spec = vec![literal(">"), field("w", None, None)];
    assert_eq!(
        fstring("f'a{b!r:>{w}}c{d=}'"),
        [
            literal("a"),
            field("b", Some(Conversion::Repr), Some(spec)),
            literal("cd="),
            field("d", Some(Conversion::Repr), None),
        ]
    );
    assert_eq!(
        fstring("f'{x = :.2f}'"),
        [
            literal("x = "),
            field("x", None, Some(vec![literal(".2f")])),
        ]
    );
    assert_eq!(fstring("f'{x:}'"), [field("x", None, Some(Vec::new()))]);
    assert_eq!(
        fstring("f'{{a}} {x!s} {y!a}'"),
        [
            literal("{a} "),
            field("x", Some(Conversion::Str), None),
            literal(" "),
            field("y", Some(Conversion::Ascii), None),
        ]
    );
    assert_eq!(
        fstring("'a' f'{x}' 'b' f''"),
        [literal("a"), field("x", None, None), literal("b")]
    );
    assert_eq!(fstring("f''"), []);
    assert_eq!(fstring("f'{a, b}'"), [field("(a, b)", None, None)]);
    assert_eq!(
        fstring("f'{x if y else z}\\n'"),
        [field("x if y else z", None, None), literal("\n"),]
    );
}

#[test]
fn fstrings_with_nested_quotes() {
    assert_eq!(fstring("f\"{x['a']}\""), [field("x['a']", None, None)]);
    assert_eq!(fstring("f'{x[\"a\"]}'"), [field("x['a']", None, None)]);
    assert_eq!(fstring("f\"{x[\"a\"]}\""), [field("x['a']", None, None)]);
    assert_eq!(
        fstring("f'''{x['''a''']}'''"),
        [field("x['a']", None, None)]
    );
    assert_eq!(fstring("f'{f\"{y}\"}'"), [field("f'{y}'", None, None)]);
    assert_eq!(
        fstring("f'''{\n  value\n}'''"),
        [field("value", None, None)]
    );
    let printed = expr("f\"{x['a']}: {y}\"").to_string();
    assert_eq!(printed, "f\"{x['a']}: {y}\"");
    let module = parse_module("print(f\"Warning: {e}\")\n").expect("parses");
    let StmtKind::Expr(call) = &module.body[0].kind else {
        panic!();
    };
    let ExprKind::Call { args, .. } = &call.kind else {
        panic!();
    };
    let ExprKind::JoinedStr(parts) = &args[0].kind else {
        panic!();
    };
    let FStringPart::Formatted(formatted) = &parts[1] else {
        panic!();
    };
    assert_eq!(
        (
            formatted.value.span.start.line,
            formatted.value.span.start.col
        ),
        (1, 19)
    );
}

#[test]
fn numbers() {
    let cases = [
        ("0", Constant::Int(0)),
        ("00", Constant::Int(0)),
        ("1_000_000", Constant::Int(1_000_000)),
        ("0x1F", Constant::Int(31)),
        ("0X_ff", Constant::Int(255)),
        ("0o17", Constant::Int(15)),
        ("0b1010", Constant::Int(10)),
        ("9223372036854775807", Constant::Int(i64::MAX)),
        (
            "9223372036854775808",
            Constant::BigInt("9223372036854775808".into()),
        ),
        (
            "0xffffffffffffffffffff",
            Constant::BigInt("1208925819614629174706175".into()),
        ),
        ("1.5", Constant::Float(1.5)),
        ("1.", Constant::Float(1.0)),
        (".5", Constant::Float(0.5)),
        ("1e-5", Constant::Float(1e-5)),
        ("1.e5", Constant::Float(1e5)),
        ("1_0.0_1E+0_1", Constant::Float(100.1)),
        ("1e400", Constant::Float(f64::INFINITY)),
    ];
    for (source, value) in cases {
        assert_eq!(constant(source), value, "{source}");
    }
    assert_eq!(expr("1if x else 2"), expr("1 if x else 2"));
    assert_eq!(expr("[0x1for x in y]"), expr("[0x1f or x in y]"));
    assert_eq!(expr("1 .real"), expr("(1).real"));
    assert_eq!(expr("1..real"), expr("(1.0).real"));
    assert_eq!(expr("x[1:-1]").to_string(), "x[1:-1]");
}

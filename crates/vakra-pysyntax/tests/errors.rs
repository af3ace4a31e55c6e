//! Syntax errors: positions, messages, and limits on pathological input.

use vakra_pysyntax::{ParseError, parse_expression, parse_module};

fn module_error(source: &str) -> ParseError {
    match parse_module(source) {
        Ok(module) => panic!("{source:?} parsed: {module:?}"),
        Err(err) => err,
    }
}

fn expression_error(source: &str) -> ParseError {
    match parse_expression(source) {
        Ok(expr) => panic!("{source:?} parsed as {expr}"),
        Err(err) => err,
    }
}

/// Asserts the error's line, column and that its message contains `text`.
fn assert_error(err: &ParseError, line: u32, column: u32, text: &str) {
    assert_eq!((err.line, err.column), (line, column), "{err}");
    assert!(err.message.contains(text), "{err} lacks {text:?}");
}

#[test]
fn error_display_has_position_and_message() {
    let err = module_error("x = f(a,\n      b\n");
    assert_eq!(err.to_string(), "line 1, column 6: '(' was never closed");
    let err = expression_error("f(a b)");
    assert_eq!(
        err.to_string(),
        "line 1, column 5: expected ')' but found name 'b'"
    );
    let err = module_error("return (\n  1,\n  2\n\n");
    assert_eq!((err.line, err.column), (1, 8));
}

#[test]
fn indentation_errors() {
    assert_error(
        &module_error("if x:\npass\n"),
        2,
        1,
        "expected an indented block after 'if' statement on line 1",
    );
    assert_error(
        &module_error("x = 1\n    y = 2\n"),
        2,
        5,
        "unexpected indent",
    );
    assert_error(
        &module_error("if x:\n    a = 1\n  b = 2\n"),
        3,
        3,
        "unindent does not match any outer indentation level",
    );
    assert_error(
        &module_error("if x:\n        a = 1\n\tb = 2\n"),
        3,
        2,
        "inconsistent use of tabs and spaces",
    );
    assert_error(
        &module_error("async def f():\n# only a comment\n"),
        3,
        1,
        "expected an indented block after function definition on line 1",
    );
    let deep: String = (0..102)
        .map(|level| format!("{}if x:\n", " ".repeat(level)))
        .collect();
    assert_error(
        &module_error(&deep),
        102,
        102,
        "too many levels of indentation",
    );
}

#[test]
fn tabs_indent_to_multiples_of_eight() {
    let module = parse_module("if x:\n\tif y:\n\t\tz = 1\n\tw = 2\n").expect("tab indentation");
    assert_eq!(module.body.len(), 1);
}

#[test]
fn unterminated_strings_report_where_they_start() {
    assert_error(
        &module_error("x = 1\ny = 'abc\nz = 2\n"),
        2,
        5,
        "unterminated string literal (detected at line 2)",
    );
    assert_error(
        &module_error("x = 1\ny = \"\"\"abc\n\nz = 2\n"),
        2,
        5,
        "unterminated triple-quoted string literal (detected at line 5)",
    );
    assert_error(
        &module_error("s = f'{x'\n"),
        1,
        9,
        "unterminated string literal",
    );
    assert_error(
        &module_error("s = 'abc\\"),
        1,
        5,
        "unterminated string literal",
    );
}

#[test]
fn tokenizer_errors() {
    assert_error(
        &module_error("x = (1]\n"),
        1,
        7,
        "does not match opening parenthesis '('",
    );
    assert_error(&module_error("x = 1)\n"), 1, 6, "unmatched ')'");
    assert_error(
        &module_error("x = $y\n"),
        1,
        5,
        "invalid character '$' (U+0024)",
    );
    assert_error(
        &module_error("x = 1 \\ y\n"),
        1,
        7,
        "after line continuation",
    );
    assert_error(&module_error("x = 0777\n"), 1, 5, "leading zeros");
    assert_error(
        &module_error("x = 1j\n"),
        1,
        5,
        "imaginary literals are not supported",
    );
    assert_error(&module_error("x = 1abc\n"), 1, 6, "invalid decimal literal");
    assert_error(
        &module_error("x = 0b102\n"),
        1,
        9,
        "invalid digit '2' in binary literal",
    );
    assert_error(&module_error("x = 1__0\n"), 1, 7, "invalid decimal literal");
    assert_error(
        &module_error("s = '\\N{DASH}'\n"),
        1,
        6,
        "\\N{...} escapes are not supported",
    );
    assert_error(
        &module_error("s = '\\x4'\n"),
        1,
        6,
        "truncated \\xXX escape",
    );
    assert_error(&module_error("s = '\\ud800'\n"), 1, 6, "surrogate");
    assert_error(
        &module_error("s = b'caf\u{e9}'\n"),
        1,
        10,
        "bytes can only contain ASCII",
    );
    assert_error(
        &module_error("s = b'a' 'b'\n"),
        1,
        10,
        "cannot mix bytes and nonbytes",
    );
}

#[test]
fn fstring_errors() {
    assert_error(
        &expression_error("f'{}'"),
        1,
        4,
        "empty expression not allowed",
    );
    assert_error(
        &expression_error("f'a}b'"),
        1,
        4,
        "single '}' is not allowed",
    );
    assert_error(
        &expression_error("f'{x!z}'"),
        1,
        6,
        "invalid conversion character",
    );
    assert_error(
        &expression_error("f'{x y}'"),
        1,
        6,
        "expected the end of the f-string",
    );
    assert_error(
        &expression_error("f'{a\\n}'"),
        1,
        5,
        "cannot include a backslash",
    );
    assert_error(&expression_error("f'{a # b}'"), 1, 6, "cannot include '#'");
}

#[test]
fn grammar_errors() {
    assert_error(
        &expression_error("1 +"),
        1,
        4,
        "expected an expression but found newline",
    );
    assert_error(
        &expression_error("f(a=1, b)"),
        1,
        8,
        "positional argument follows keyword argument",
    );
    assert_error(
        &expression_error("f(**a, *b)"),
        1,
        8,
        "iterable argument unpacking follows",
    );
    assert_error(
        &expression_error("f(x for x in y, 1)"),
        1,
        3,
        "generator expression must be parenthesized",
    );
    assert_error(
        &expression_error("f(a.b=1)"),
        1,
        3,
        "expression cannot contain assignment",
    );
    assert_error(
        &expression_error("(*a)"),
        1,
        2,
        "cannot use starred expression here",
    );
    assert_error(
        &expression_error("[*a for a in b]"),
        1,
        2,
        "iterable unpacking cannot be used",
    );
    assert_error(&expression_error("a if b"), 1, 7, "expected 'else'");
    assert_error(&expression_error("1\n2"), 2, 1, "expected end of input");
    assert_error(
        &module_error("f() = 1\n"),
        1,
        1,
        "cannot assign to function call",
    );
    assert_error(
        &module_error("1 += 1\n"),
        1,
        1,
        "illegal expression for augmented assignment",
    );
    assert_error(&module_error("a, b: int\n"), 1, 1, "only a single name");
    assert_error(
        &module_error("def f(a=1, b): pass\n"),
        1,
        12,
        "non-default argument follows default argument",
    );
    assert_error(
        &module_error("def f(*): pass\n"),
        1,
        7,
        "named arguments must follow bare *",
    );
    assert_error(
        &module_error("try:\n    pass\nx = 1\n"),
        3,
        1,
        "expected 'except' or 'finally'",
    );
    assert_error(
        &module_error("try:\n    pass\nexcept* E:\n    pass\n"),
        3,
        7,
        "'except*' is not supported",
    );
    assert_error(
        &module_error("match x:\n    case 1:\n        pass\n"),
        1,
        1,
        "'match' statements are not supported",
    );
    assert_error(
        &module_error("@dec\nx = 1\n"),
        2,
        1,
        "expected 'def' or 'class' after decorators",
    );
    assert_error(
        &module_error("from import x\n"),
        1,
        6,
        "expected a name but found 'import'",
    );
}

/// Runs `f` on a thread with 2 MiB of stack, the default for spawned
/// threads and tokio's blocking pool: input at the nesting limits must be
/// parsed, printed, compared and dropped within it even unoptimized.
fn with_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic");
}

#[test]
fn nesting_limit_is_an_error_not_a_crash() {
    with_stack(|| {
        let fine = format!("{}x{}", "(".repeat(150), ")".repeat(150));
        let expr = parse_expression(&fine).expect("150 nested parentheses");
        assert_eq!(expr.to_string(), "x");

        let deep = format!("{}x{}", "[".repeat(199), "]".repeat(199));
        let expr = parse_expression(&deep).expect("199 nested lists");
        assert_eq!(parse_expression(&expr.to_string()).expect("reparse"), expr);

        let too_deep = format!("{}x{}", "(".repeat(220), ")".repeat(220));
        let err = expression_error(&too_deep);
        assert!(err.message.contains("nested"), "{err}");

        let unary = format!("{}x", "-".repeat(10_000));
        assert_error(&expression_error(&unary), 1, 201, "too deeply nested");
        let nots = format!("{}x", "not ".repeat(10_000));
        assert!(
            expression_error(&nots)
                .message
                .contains("too deeply nested")
        );
        let lambdas = format!("{}x", "lambda: ".repeat(10_000));
        assert!(
            expression_error(&lambdas)
                .message
                .contains("too deeply nested")
        );
        let conditional = format!("x{}", " if x else x".repeat(10_000));
        assert!(
            expression_error(&conditional)
                .message
                .contains("too deeply nested")
        );
        let elifs = format!("if x:\n    pass\n{}", "elif x:\n    pass\n".repeat(10_000));
        assert!(module_error(&elifs).message.contains("too deeply nested"));
        let fstrings = format!("{}x{}", "f'{".repeat(300), "}'".repeat(300));
        assert!(expression_error(&fstrings).message.contains("nested"));
    });
}

#[test]
fn every_kind_of_nesting_fits_at_the_limit() {
    with_stack(|| {
        let shapes = [
            ("[", "]"),
            ("(", ")"),
            ("{", "}"),
            ("{1: ", "}"),
            ("{**", "}"),
            ("f(", ")"),
            ("f(a=", ")"),
            ("f(*", ")"),
            ("x[", "]"),
            ("x[:", "]"),
            ("[x, ", "]"),
            ("(a + ", ")"),
            ("(a < ", ")"),
            ("(a or ", ")"),
            ("a ** ", ""),
            ("[x for x in ", "]"),
            ("-", ""),
            ("not ", ""),
            ("await (", ")"),
            ("lambda: ", ""),
            ("x if y else ", ""),
            ("f'{", "}'"),
        ];
        for (open, close) in shapes {
            let source = format!("{}x{}", open.repeat(190), close.repeat(190));
            let expr = parse_expression(&source).unwrap_or_else(|e| panic!("{open}: {e}"));
            let again = parse_expression(&expr.to_string()).expect("reparse");
            assert_eq!(again, expr.clone(), "{open}");
        }
    });
}

#[test]
fn long_chains_are_limited_and_safe_to_print() {
    with_stack(|| {
        let chain = vec!["a"; 1000].join(" + ");
        let expr = parse_expression(&chain).expect("999 additions");
        let printed = expr.to_string();
        assert_eq!(printed, chain);
        assert_eq!(expr.clone(), expr);

        let calls = format!("f{}", "(x)".repeat(999));
        assert_eq!(
            parse_expression(&calls).expect("999 calls").to_string(),
            calls
        );

        let too_long = vec!["a"; 1002].join(" + ");
        assert!(
            expression_error(&too_long)
                .message
                .contains("too deeply nested")
        );
        let attributes = format!("a{}", ".b".repeat(5_000));
        assert!(
            expression_error(&attributes)
                .message
                .contains("too deeply nested")
        );
        let left_nested = |levels: usize, chain: usize| {
            (0..levels).fold("a".to_owned(), |inner, _| {
                format!("({inner}{})", " + a".repeat(chain))
            })
        };
        let tall = parse_expression(&left_nested(150, 5)).expect("height 751");
        assert_eq!(parse_expression(&tall.to_string()).expect("reparse"), tall);
        let err = expression_error(&left_nested(150, 10));
        assert!(err.message.contains("too deeply nested"), "{err}");
    });
}

#[test]
fn arbitrary_bytes_never_panic() {
    let samples = [
        "",
        "\n",
        "\\",
        "(",
        ")",
        "'",
        "f'{",
        "f'{'",
        "0x",
        "1e",
        "1_",
        ".",
        "..",
        "@",
        "\t\n  \n\t",
        "\u{feff}x = 1",
        "x = '''\n",
        "def",
        "class A(",
        "lambda",
        "*",
        "**",
        "f'{x:{'",
        "f'{x!'",
        "rb'\\",
        "if x:\n\tpass\n        pass\n",
        "\r\n\r\nx\r\n",
        "x = [\n",
        "a[",
        "a[:",
        "a[::",
        "from . import",
        "import a.",
        "with (a",
        "1 if",
        "\u{0}",
        "é = 1",
        "x = 1 # comment",
        "f'{x=!r:>{y}}'",
        "f'''{\n'''",
    ];
    for sample in samples {
        let _ = parse_module(sample);
        let _ = parse_expression(sample);
    }
}

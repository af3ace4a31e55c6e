//! `py_repr` and `py_str` against CPython 3.11 `repr(json.loads(input))` and
//! `str(json.loads(input))`; every expected string was produced by CPython.

use serde_json::Value;
use vakra_pytext::{py_repr, py_str};

#[test]
fn matches_cpython_repr_and_str() {
    let cases: &[(&str, &str, &str)] = &[
        ("null", "None", "None"),
        ("true", "True", "True"),
        ("false", "False", "False"),
        ("0", "0", "0"),
        ("-17", "-17", "-17"),
        (
            "18446744073709551615",
            "18446744073709551615",
            "18446744073709551615",
        ),
        (
            "-9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775808",
        ),
        ("3.0", "3.0", "3.0"),
        ("0.1", "0.1", "0.1"),
        ("1e-5", "1e-05", "1e-05"),
        ("1E16", "1e+16", "1e+16"),
        ("1e22", "1e+22", "1e+22"),
        ("123456789.123", "123456789.123", "123456789.123"),
        ("5e-324", "5e-324", "5e-324"),
        (
            "1.7976931348623157e308",
            "1.7976931348623157e+308",
            "1.7976931348623157e+308",
        ),
        ("-0.0", "-0.0", "-0.0"),
        ("2.5", "2.5", "2.5"),
        ("100.0", "100.0", "100.0"),
        ("1e15", "1000000000000000.0", "1000000000000000.0"),
        (
            "9999999999999998.0",
            "9999999999999998.0",
            "9999999999999998.0",
        ),
        ("1.5e-7", "1.5e-07", "1.5e-07"),
        (
            "12345678901234567890.0",
            "1.2345678901234567e+19",
            "1.2345678901234567e+19",
        ),
        (r#""plain""#, "'plain'", "plain"),
        (
            r#""quote \" backslash \\ slash /""#,
            r#"'quote " backslash \\ slash /'"#,
            r#"quote " backslash \ slash /"#,
        ),
        (r#""\n\r\t\b\f""#, r#"'\n\r\t\x08\x0c'"#, "\n\r\t\u{8}\u{c}"),
        (
            r#""\u0000\u0001\u001f\u007f\u0080""#,
            r#"'\x00\x01\x1f\x7f\x80'"#,
            "\u{0}\u{1}\u{1f}\u{7f}\u{80}",
        ),
        (r#""é中😀""#, "'é中😀'", "é中😀"),
        (r#""\u2028\u2029""#, r#"'\u2028\u2029'"#, "\u{2028}\u{2029}"),
        (
            r#""\u00a0\u0085\u200b\u00ad\u3000""#,
            r#"'\xa0\x85\u200b\xad\u3000'"#,
            "\u{a0}\u{85}\u{200b}\u{ad}\u{3000}",
        ),
        (r#""it's""#, r#""it's""#, "it's"),
        (
            r#""it's \"quoted\"""#,
            r#"'it\'s "quoted"'"#,
            r#"it's "quoted""#,
        ),
        (r#""say \"hi\"""#, r#"'say "hi"'"#, r#"say "hi""#),
        (
            r#""\ud83d\ude00 \ufeff \ue000 \ufffd \ufffe \udbff\udfff""#,
            "'😀 \\ufeff \\ue000 \u{fffd} \\ufffe \\U0010ffff'",
            "😀 \u{feff} \u{e000} \u{fffd} \u{fffe} \u{10ffff}",
        ),
        ("[]", "[]", "[]"),
        ("{}", "{}", "{}"),
        ("[[]]", "[[]]", "[[]]"),
        (r#"{"a": {}}"#, "{'a': {}}", "{'a': {}}"),
        (
            r#"{"a": [], "b": {}, "c": [{}]}"#,
            "{'a': [], 'b': {}, 'c': [{}]}",
            "{'a': [], 'b': {}, 'c': [{}]}",
        ),
        (
            r#"[1, [2, [3, []]], {"x": null}]"#,
            "[1, [2, [3, []]], {'x': None}]",
            "[1, [2, [3, []]], {'x': None}]",
        ),
        (
            r#"{"z": 1, "a": 2, "é": 3, "中": 4, "Z": 5, "😀": 6, "\uffff": 7, "\ufffd": 8, "": 9}"#,
            "{'z': 1, 'a': 2, 'é': 3, '中': 4, 'Z': 5, '😀': 6, '\\uffff': 7, '\u{fffd}': 8, '': 9}",
            "{'z': 1, 'a': 2, 'é': 3, '中': 4, 'Z': 5, '😀': 6, '\\uffff': 7, '\u{fffd}': 8, '': 9}",
        ),
        (
            r#"{"name": "Ann", "tags": ["x", "y"], "score": 9.5, "meta": {"n": null, "ok": true, "f": false}}"#,
            "{'name': 'Ann', 'tags': ['x', 'y'], 'score': 9.5, 'meta': {'n': None, 'ok': True, 'f': False}}",
            "{'name': 'Ann', 'tags': ['x', 'y'], 'score': 9.5, 'meta': {'n': None, 'ok': True, 'f': False}}",
        ),
        (
            r#"[{"b": 1, "a": [1.0, -2, 3e-7]}, "x\ty", []]"#,
            r#"[{'b': 1, 'a': [1.0, -2, 3e-07]}, 'x\ty', []]"#,
            r#"[{'b': 1, 'a': [1.0, -2, 3e-07]}, 'x\ty', []]"#,
        ),
        (
            r#"{"it's": "a\"b", "k\\": ["\u00e9", "'"]}"#,
            r#"{"it's": 'a"b', 'k\\': ['é', "'"]}"#,
            r#"{"it's": 'a"b', 'k\\': ['é', "'"]}"#,
        ),
        (r#""12""#, "'12'", "12"),
        ("5", "5", "5"),
        (r#""a'b\"c\\d""#, r#"'a\'b"c\\d'"#, r#"a'b"c\d"#),
        (
            r#""\"only double\"""#,
            r#"'"only double"'"#,
            r#""only double""#,
        ),
        (
            r#""tab\there\u001b[0m""#,
            r#"'tab\there\x1b[0m'"#,
            "tab\there\u{1b}[0m",
        ),
        (
            r#""\u0600\u061c\u180e\u2060\u2066\ufeff\ufff9""#,
            r#"'\u0600\u061c\u180e\u2060\u2066\ufeff\ufff9'"#,
            "\u{600}\u{61c}\u{180e}\u{2060}\u{2066}\u{feff}\u{fff9}",
        ),
        (
            r#""\udb40\udc01 \udb40\udc7f \udb80\udc00 \udbff\udffd \ufdd0 \ud83f\udffe""#,
            r#"'\U000e0001 \U000e007f \U000f0000 \U0010fffd \ufdd0 \U0001fffe'"#,
            "\u{e0001} \u{e007f} \u{f0000} \u{10fffd} \u{fdd0} \u{1fffe}",
        ),
        // unassigned in Python 3.11's Unicode database (14.0), so not printable
        (
            r#""\u0378 \ud83e\udef7""#,
            r#"'\u0378 \U0001faf7'"#,
            "\u{378} \u{1faf7}",
        ),
    ];
    for &(input, repr, str) in cases {
        let value: Value = serde_json::from_str(input).expect("valid JSON");
        assert_eq!(py_repr(&value), repr, "repr of {input}");
        assert_eq!(py_str(&value), str, "str of {input}");
    }
}

//! `dumps` against CPython 3.11 `json.dumps(json.loads(input), ...)`; every
//! expected string was produced by CPython.

use serde_json::Value;
use vakra_pytext::{DumpError, DumpOptions, dumps, float_to_json};

struct Case {
    input: &'static str,
    /// `json.dumps(v)`
    python_default: &'static str,
    /// `json.dumps(v, indent=2)`
    indent2: &'static str,
    /// `json.dumps(v, ensure_ascii=False, allow_nan=False, separators=(",", ":"))`
    compact_utf8: &'static str,
    /// `json.dumps(v, sort_keys=True, separators=(",", ":"))`
    checksum: &'static str,
}

const CASES: &[Case] = &[
    Case {
        input: "null",
        python_default: "null",
        indent2: "null",
        compact_utf8: "null",
        checksum: "null",
    },
    Case {
        input: "true",
        python_default: "true",
        indent2: "true",
        compact_utf8: "true",
        checksum: "true",
    },
    Case {
        input: "false",
        python_default: "false",
        indent2: "false",
        compact_utf8: "false",
        checksum: "false",
    },
    Case {
        input: "0",
        python_default: "0",
        indent2: "0",
        compact_utf8: "0",
        checksum: "0",
    },
    Case {
        input: "-17",
        python_default: "-17",
        indent2: "-17",
        compact_utf8: "-17",
        checksum: "-17",
    },
    Case {
        input: "18446744073709551615",
        python_default: "18446744073709551615",
        indent2: "18446744073709551615",
        compact_utf8: "18446744073709551615",
        checksum: "18446744073709551615",
    },
    Case {
        input: "-9223372036854775808",
        python_default: "-9223372036854775808",
        indent2: "-9223372036854775808",
        compact_utf8: "-9223372036854775808",
        checksum: "-9223372036854775808",
    },
    Case {
        input: "3.0",
        python_default: "3.0",
        indent2: "3.0",
        compact_utf8: "3.0",
        checksum: "3.0",
    },
    Case {
        input: "0.1",
        python_default: "0.1",
        indent2: "0.1",
        compact_utf8: "0.1",
        checksum: "0.1",
    },
    Case {
        input: "1e-5",
        python_default: "1e-05",
        indent2: "1e-05",
        compact_utf8: "1e-05",
        checksum: "1e-05",
    },
    Case {
        input: "1E16",
        python_default: "1e+16",
        indent2: "1e+16",
        compact_utf8: "1e+16",
        checksum: "1e+16",
    },
    Case {
        input: "1e22",
        python_default: "1e+22",
        indent2: "1e+22",
        compact_utf8: "1e+22",
        checksum: "1e+22",
    },
    Case {
        input: "123456789.123",
        python_default: "123456789.123",
        indent2: "123456789.123",
        compact_utf8: "123456789.123",
        checksum: "123456789.123",
    },
    Case {
        input: "5e-324",
        python_default: "5e-324",
        indent2: "5e-324",
        compact_utf8: "5e-324",
        checksum: "5e-324",
    },
    Case {
        input: "1.7976931348623157e308",
        python_default: "1.7976931348623157e+308",
        indent2: "1.7976931348623157e+308",
        compact_utf8: "1.7976931348623157e+308",
        checksum: "1.7976931348623157e+308",
    },
    Case {
        input: "-0.0",
        python_default: "-0.0",
        indent2: "-0.0",
        compact_utf8: "-0.0",
        checksum: "-0.0",
    },
    Case {
        input: "2.5",
        python_default: "2.5",
        indent2: "2.5",
        compact_utf8: "2.5",
        checksum: "2.5",
    },
    Case {
        input: "100.0",
        python_default: "100.0",
        indent2: "100.0",
        compact_utf8: "100.0",
        checksum: "100.0",
    },
    Case {
        input: "1e15",
        python_default: "1000000000000000.0",
        indent2: "1000000000000000.0",
        compact_utf8: "1000000000000000.0",
        checksum: "1000000000000000.0",
    },
    Case {
        input: "9999999999999998.0",
        python_default: "9999999999999998.0",
        indent2: "9999999999999998.0",
        compact_utf8: "9999999999999998.0",
        checksum: "9999999999999998.0",
    },
    Case {
        input: "1.5e-7",
        python_default: "1.5e-07",
        indent2: "1.5e-07",
        compact_utf8: "1.5e-07",
        checksum: "1.5e-07",
    },
    Case {
        input: "12345678901234567890.0",
        python_default: "1.2345678901234567e+19",
        indent2: "1.2345678901234567e+19",
        compact_utf8: "1.2345678901234567e+19",
        checksum: "1.2345678901234567e+19",
    },
    Case {
        input: r#""plain""#,
        python_default: r#""plain""#,
        indent2: r#""plain""#,
        compact_utf8: r#""plain""#,
        checksum: r#""plain""#,
    },
    Case {
        input: r#""quote \" backslash \\ slash /""#,
        python_default: r#""quote \" backslash \\ slash /""#,
        indent2: r#""quote \" backslash \\ slash /""#,
        compact_utf8: r#""quote \" backslash \\ slash /""#,
        checksum: r#""quote \" backslash \\ slash /""#,
    },
    Case {
        input: r#""\n\r\t\b\f""#,
        python_default: r#""\n\r\t\b\f""#,
        indent2: r#""\n\r\t\b\f""#,
        compact_utf8: r#""\n\r\t\b\f""#,
        checksum: r#""\n\r\t\b\f""#,
    },
    Case {
        input: r#""\u0000\u0001\u001f\u007f\u0080""#,
        python_default: r#""\u0000\u0001\u001f\u007f\u0080""#,
        indent2: r#""\u0000\u0001\u001f\u007f\u0080""#,
        compact_utf8: "\"\\u0000\\u0001\\u001f\u{7f}\u{80}\"",
        checksum: r#""\u0000\u0001\u001f\u007f\u0080""#,
    },
    Case {
        input: r#""é中😀""#,
        python_default: r#""\u00e9\u4e2d\ud83d\ude00""#,
        indent2: r#""\u00e9\u4e2d\ud83d\ude00""#,
        compact_utf8: r#""é中😀""#,
        checksum: r#""\u00e9\u4e2d\ud83d\ude00""#,
    },
    Case {
        input: r#""\u2028\u2029""#,
        python_default: r#""\u2028\u2029""#,
        indent2: r#""\u2028\u2029""#,
        compact_utf8: "\"\u{2028}\u{2029}\"",
        checksum: r#""\u2028\u2029""#,
    },
    Case {
        input: r#""\u00a0\u0085\u200b\u00ad\u3000""#,
        python_default: r#""\u00a0\u0085\u200b\u00ad\u3000""#,
        indent2: r#""\u00a0\u0085\u200b\u00ad\u3000""#,
        compact_utf8: "\"\u{a0}\u{85}\u{200b}\u{ad}\u{3000}\"",
        checksum: r#""\u00a0\u0085\u200b\u00ad\u3000""#,
    },
    Case {
        input: r#""it's""#,
        python_default: r#""it's""#,
        indent2: r#""it's""#,
        compact_utf8: r#""it's""#,
        checksum: r#""it's""#,
    },
    Case {
        input: r#""it's \"quoted\"""#,
        python_default: r#""it's \"quoted\"""#,
        indent2: r#""it's \"quoted\"""#,
        compact_utf8: r#""it's \"quoted\"""#,
        checksum: r#""it's \"quoted\"""#,
    },
    Case {
        input: r#""say \"hi\"""#,
        python_default: r#""say \"hi\"""#,
        indent2: r#""say \"hi\"""#,
        compact_utf8: r#""say \"hi\"""#,
        checksum: r#""say \"hi\"""#,
    },
    Case {
        input: r#""\ud83d\ude00 \ufeff \ue000 \ufffd \ufffe \udbff\udfff""#,
        python_default: r#""\ud83d\ude00 \ufeff \ue000 \ufffd \ufffe \udbff\udfff""#,
        indent2: r#""\ud83d\ude00 \ufeff \ue000 \ufffd \ufffe \udbff\udfff""#,
        compact_utf8: "\"😀 \u{feff} \u{e000} \u{fffd} \u{fffe} \u{10ffff}\"",
        checksum: r#""\ud83d\ude00 \ufeff \ue000 \ufffd \ufffe \udbff\udfff""#,
    },
    Case {
        input: "[]",
        python_default: "[]",
        indent2: "[]",
        compact_utf8: "[]",
        checksum: "[]",
    },
    Case {
        input: "{}",
        python_default: "{}",
        indent2: "{}",
        compact_utf8: "{}",
        checksum: "{}",
    },
    Case {
        input: "[[]]",
        python_default: "[[]]",
        indent2: "[\n  []\n]",
        compact_utf8: "[[]]",
        checksum: "[[]]",
    },
    Case {
        input: r#"{"a": {}}"#,
        python_default: r#"{"a": {}}"#,
        indent2: "{\n  \"a\": {}\n}",
        compact_utf8: r#"{"a":{}}"#,
        checksum: r#"{"a":{}}"#,
    },
    Case {
        input: r#"{"a": [], "b": {}, "c": [{}]}"#,
        python_default: r#"{"a": [], "b": {}, "c": [{}]}"#,
        indent2: "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    {}\n  ]\n}",
        compact_utf8: r#"{"a":[],"b":{},"c":[{}]}"#,
        checksum: r#"{"a":[],"b":{},"c":[{}]}"#,
    },
    Case {
        input: r#"[1, [2, [3, []]], {"x": null}]"#,
        python_default: r#"[1, [2, [3, []]], {"x": null}]"#,
        indent2: "[\n  1,\n  [\n    2,\n    [\n      3,\n      []\n    ]\n  ],\n  {\n    \"x\": null\n  }\n]",
        compact_utf8: r#"[1,[2,[3,[]]],{"x":null}]"#,
        checksum: r#"[1,[2,[3,[]]],{"x":null}]"#,
    },
    Case {
        input: r#"{"z": 1, "a": 2, "é": 3, "中": 4, "Z": 5, "😀": 6, "\uffff": 7, "\ufffd": 8, "": 9}"#,
        python_default: r#"{"z": 1, "a": 2, "\u00e9": 3, "\u4e2d": 4, "Z": 5, "\ud83d\ude00": 6, "\uffff": 7, "\ufffd": 8, "": 9}"#,
        indent2: "{\n  \"z\": 1,\n  \"a\": 2,\n  \"\\u00e9\": 3,\n  \"\\u4e2d\": 4,\n  \"Z\": 5,\n  \"\\ud83d\\ude00\": 6,\n  \"\\uffff\": 7,\n  \"\\ufffd\": 8,\n  \"\": 9\n}",
        compact_utf8: "{\"z\":1,\"a\":2,\"é\":3,\"中\":4,\"Z\":5,\"😀\":6,\"\u{ffff}\":7,\"\u{fffd}\":8,\"\":9}",
        checksum: r#"{"":9,"Z":5,"a":2,"z":1,"\u00e9":3,"\u4e2d":4,"\ufffd":8,"\uffff":7,"\ud83d\ude00":6}"#,
    },
    Case {
        input: r#"{"name": "Ann", "tags": ["x", "y"], "score": 9.5, "meta": {"n": null, "ok": true, "f": false}}"#,
        python_default: r#"{"name": "Ann", "tags": ["x", "y"], "score": 9.5, "meta": {"n": null, "ok": true, "f": false}}"#,
        indent2: "{\n  \"name\": \"Ann\",\n  \"tags\": [\n    \"x\",\n    \"y\"\n  ],\n  \"score\": 9.5,\n  \"meta\": {\n    \"n\": null,\n    \"ok\": true,\n    \"f\": false\n  }\n}",
        compact_utf8: r#"{"name":"Ann","tags":["x","y"],"score":9.5,"meta":{"n":null,"ok":true,"f":false}}"#,
        checksum: r#"{"meta":{"f":false,"n":null,"ok":true},"name":"Ann","score":9.5,"tags":["x","y"]}"#,
    },
    Case {
        input: r#"[{"b": 1, "a": [1.0, -2, 3e-7]}, "x\ty", []]"#,
        python_default: r#"[{"b": 1, "a": [1.0, -2, 3e-07]}, "x\ty", []]"#,
        indent2: "[\n  {\n    \"b\": 1,\n    \"a\": [\n      1.0,\n      -2,\n      3e-07\n    ]\n  },\n  \"x\\ty\",\n  []\n]",
        compact_utf8: r#"[{"b":1,"a":[1.0,-2,3e-07]},"x\ty",[]]"#,
        checksum: r#"[{"a":[1.0,-2,3e-07],"b":1},"x\ty",[]]"#,
    },
    Case {
        input: r#"{"it's": "a\"b", "k\\": ["\u00e9", "'"]}"#,
        python_default: r#"{"it's": "a\"b", "k\\": ["\u00e9", "'"]}"#,
        indent2: "{\n  \"it's\": \"a\\\"b\",\n  \"k\\\\\": [\n    \"\\u00e9\",\n    \"'\"\n  ]\n}",
        compact_utf8: r#"{"it's":"a\"b","k\\":["é","'"]}"#,
        checksum: r#"{"it's":"a\"b","k\\":["\u00e9","'"]}"#,
    },
];

#[test]
fn matches_cpython_presets() {
    for case in CASES {
        let value: Value = serde_json::from_str(case.input).expect("valid JSON");
        let presets = [
            (DumpOptions::python_default(), case.python_default),
            (DumpOptions::indent2(), case.indent2),
            (DumpOptions::compact_utf8(), case.compact_utf8),
            (DumpOptions::checksum(), case.checksum),
        ];
        for (opts, expected) in presets {
            assert_eq!(
                dumps(&value, &opts).as_deref(),
                Ok(expected),
                "{opts:?} of {}",
                case.input
            );
        }
    }
}

#[test]
fn default_is_python_default() {
    assert_eq!(DumpOptions::default(), DumpOptions::python_default());
}

#[test]
fn other_indents_match_cpython() {
    let value: Value = serde_json::from_str(r#"{"a": [1, {}], "é": "中"}"#).expect("valid JSON");
    let indent0 = DumpOptions {
        indent: Some(0),
        ..DumpOptions::indent2()
    };
    let indent4_utf8 = DumpOptions {
        indent: Some(4),
        ensure_ascii: false,
        ..DumpOptions::indent2()
    };
    // json.dumps(v, indent=0)
    assert_eq!(
        dumps(&value, &indent0).as_deref(),
        Ok("{\n\"a\": [\n1,\n{}\n],\n\"\\u00e9\": \"\\u4e2d\"\n}")
    );
    // json.dumps(v, indent=4, ensure_ascii=False)
    assert_eq!(
        dumps(&value, &indent4_utf8).as_deref(),
        Ok("{\n    \"a\": [\n        1,\n        {}\n    ],\n    \"é\": \"中\"\n}")
    );
}

#[test]
fn dump_to_appends() {
    let mut out = String::from("data: ");
    let value: Value = serde_json::from_str(r#"{"k": [true, null]}"#).expect("valid JSON");
    assert_eq!(
        vakra_pytext::dump_to(&mut out, &value, &DumpOptions::compact_utf8()),
        Ok(())
    );
    assert_eq!(out, r#"data: {"k":[true,null]}"#);
}

#[test]
fn non_finite_floats_follow_allow_nan() {
    // json.dumps([float("nan"), float("inf"), -float("inf"), 1e-7])
    let texts: Vec<_> = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-7]
        .into_iter()
        .map(|x| float_to_json(x, true))
        .collect();
    assert_eq!(
        texts,
        [
            Ok("NaN".to_owned()),
            Ok("Infinity".to_owned()),
            Ok("-Infinity".to_owned()),
            Ok("1e-07".to_owned())
        ]
    );
    let err = float_to_json(f64::NAN, false).expect_err("NaN is refused");
    assert!(matches!(err, DumpError::OutOfRangeFloat(x) if x.is_nan()));
    // json.dumps(float("nan"), allow_nan=False) raises this ValueError.
    assert_eq!(
        err.to_string(),
        "Out of range float values are not JSON compliant"
    );
    assert_eq!(float_to_json(2.5, false), Ok("2.5".to_owned()));
}

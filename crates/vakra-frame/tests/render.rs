//! The texts of results (§5): peeks, lists, scalars, and the handle suffix.

use crate::common;

use std::sync::Arc;

use common::{f, i, nan, none, s, table};
use vakra_frame::{Cell, Dtype, RenderError, Table, handle_suffix, peek, python_str, render_list};

#[test]
fn peek_with_a_dtype_sidecar() {
    let t = table(&[
        ("BrandID", vec![i(10001), i(10002), i(10003), i(10004)]),
        (
            "BrandName",
            vec![s("A&W"), s("A.J. Stephans"), s("Abita"), s("Barq's")],
        ),
        ("FacebookPage", vec![none(), none(), none(), none()]),
        ("WholesaleCost", vec![f(0.42), f(0.98), f(1.13), nan()]),
    ])
    .with_dtypes(vec![
        Dtype::Int64,
        Dtype::Object,
        Dtype::Object,
        Dtype::Float64,
    ]);
    assert_eq!(
        peek(&t, "retrieved_data_1").unwrap(),
        r#"{"handle": "retrieved_data_1", "num_records": 4, "key_details": [{"name": "BrandID", "dtype": "int64", "first_3_values": [10001, 10002, 10003]}, {"name": "BrandName", "dtype": "object", "first_3_values": ["A&W", "A.J. Stephans", "Abita"]}, {"name": "FacebookPage", "dtype": "object", "first_3_values": [null, null, null]}, {"name": "WholesaleCost", "dtype": "float64", "first_3_values": [0.42, 0.98, 1.13]}]}"#
    );
}

#[test]
fn peek_without_a_sidecar_shows_python_type_names() {
    let t = table(&[
        ("a", vec![s("x")]),
        ("b", vec![i(1)]),
        ("c", vec![f(1.5)]),
        ("d", vec![none()]),
        ("e", vec![Cell::Bool(true)]),
        ("m", vec![i(5)]),
    ]);
    let text = peek(&t, "transformed_data_1").unwrap();
    for dtype in [
        "\"str\"",
        "\"int\"",
        "\"float\"",
        "\"NoneType\"",
        "\"bool\"",
    ] {
        assert!(text.contains(dtype), "{text}");
    }
    let empty = table(&[("a", vec![])]);
    assert_eq!(
        peek(&empty, "retrieved_data_4").unwrap(),
        r#"{"handle": "retrieved_data_4", "num_records": 0, "key_details": [{"name": "a", "dtype": "unknown", "first_3_values": []}]}"#
    );
    assert_eq!(
        peek(&Table::default(), "retrieved_data_2").unwrap(),
        r#"{"handle": "retrieved_data_2", "num_records": 0, "key_details": []}"#
    );
}

#[test]
fn json_and_float_formatting() {
    let t = table(&[
        ("r", vec![f(1e-05), f(1e16), f(9007199254741002.0)]),
        ("x", vec![nan(), f(f64::INFINITY), f(f64::NEG_INFINITY)]),
        (
            "w",
            vec![s("her\u{f2}dot"), s("\u{1F600} smile"), s("q\"\\\n")],
        ),
        (
            "Percent_%_Eligible",
            vec![f(3.0), f(0.1 + 0.2), i(9007199254740993)],
        ),
    ]);
    assert_eq!(
        peek(&t, "h").unwrap(),
        r#"{"handle": "h", "num_records": 3, "key_details": [{"name": "r", "dtype": "float", "first_3_values": [1e-05, 1e+16, 9007199254741002.0]}, {"name": "x", "dtype": "float", "first_3_values": [NaN, Infinity, -Infinity]}, {"name": "w", "dtype": "str", "first_3_values": ["her\u00f2dot", "\ud83d\ude00 smile", "q\"\\\n"]}, {"name": "Percent_%_Eligible", "dtype": "float", "first_3_values": [3.0, 0.30000000000000004, 9007199254740993]}]}"#
    );
}

#[test]
fn bytes_cannot_be_written_as_json() {
    let blob = Cell::Bytes(Arc::from(&b"\x00a'"[..]));
    assert_eq!(render_list(std::slice::from_ref(&blob)), Err(RenderError));
    assert_eq!(
        peek(&table(&[("b", vec![blob.clone()])]), "h")
            .unwrap_err()
            .to_string(),
        "Object of type bytes is not JSON serializable"
    );
    assert_eq!(python_str(&blob), "b\"\\x00a'\"");
}

#[test]
fn lists_and_scalars() {
    assert_eq!(
        render_list(&[nan(), f(2.0), none(), Cell::Bool(false)]).unwrap(),
        "[NaN, 2.0, null, false]"
    );
    assert_eq!(render_list(&[]).unwrap(), "[]");
    let cases = [
        (none(), "None"),
        (Cell::Bool(true), "True"),
        (i(6), "6"),
        (f(2.5), "2.5"),
        (f(6.0), "6.0"),
        (f(94256.66666666667), "94256.66666666667"),
        (nan(), "nan"),
        (f(f64::INFINITY), "inf"),
        (f(-0.0), "-0.0"),
        (Cell::UInt(1 << 63), "9223372036854775808"),
        (s("x y"), "x y"),
    ];
    for (cell, text) in cases {
        assert_eq!(python_str(&cell), text);
    }
}

#[test]
fn handle_suffixes() {
    let suffix = |name: &str| handle_suffix(&table(&[(name, vec![i(1)])]));
    assert_eq!(suffix("characters_movie_title"), "characters");
    assert_eq!(suffix("movies_total_gross_movie_title"), "movies");
    assert_eq!(suffix("All_Null"), "All");
    assert_eq!(suffix("BrandID"), "data");
    assert_eq!(suffix("_private"), "");
    assert_eq!(handle_suffix(&Table::default()), "data");
}

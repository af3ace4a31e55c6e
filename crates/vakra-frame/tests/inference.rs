//! pandas 2's dtype inference: from SQLite result sets (`read_sql_query`), from Python lists
//! (`pd.DataFrame(dict)`), and when concatenating (`pd.concat`). Expectations were produced
//! with pandas 2.3.3.

use crate::common;

use common::{f, i, nan, none, out_table, s, table};
use vakra_frame::Pandas;
use vakra_frame::{Cell, Dtype, Table, concatenate_data, render_list};
use vakra_sql::SqlValue;

fn column_text(t: &Table, name: &str) -> String {
    render_list(t.column(name).expect("column")).expect("json")
}

#[test]
fn read_sql_query_dtypes() {
    use SqlValue::{Blob, Integer as I, Null, Real as R, Text as T};
    let cases: Vec<(Vec<SqlValue>, Dtype, &str)> = vec![
        (vec![I(1), I(2)], Dtype::Int64, "[1, 2]"),
        (vec![R(0.5), I(2)], Dtype::Float64, "[0.5, 2.0]"),
        (vec![I(94256), Null], Dtype::Float64, "[94256.0, NaN]"),
        (vec![R(1.25), Null], Dtype::Float64, "[1.25, NaN]"),
        (vec![T("a".into()), Null], Dtype::Object, "[\"a\", null]"),
        (
            vec![I(5), T("five".into()), R(7.5), Null],
            Dtype::Object,
            "[5, \"five\", 7.5, null]",
        ),
        (vec![Null, Null], Dtype::Object, "[null, null]"),
        (
            vec![I(9007199254740993)],
            Dtype::Int64,
            "[9007199254740993]",
        ),
    ];
    for (values, dtype, text) in cases {
        let rows = values.into_iter().map(|v| vec![v]).collect();
        let t = Table::from_sql(vec!["c".into()], rows, Pandas::V2);
        assert_eq!(t.dtype("c"), Some(dtype), "{text}");
        assert_eq!(column_text(&t, "c"), text);
    }
    let blob = Table::from_sql(vec!["b".into()], vec![vec![Blob(vec![1, 2])]], Pandas::V2);
    assert_eq!(blob.dtype("b"), Some(Dtype::Object));
    assert_eq!(
        blob.column("b").expect("b")[0].python_repr(),
        "b'\\x01\\x02'"
    );
    let empty = Table::from_sql(vec!["x".into(), "y".into()], vec![], Pandas::V2);
    assert_eq!(
        (empty.dtype("x"), empty.dtype("y"), empty.num_rows()),
        (Some(Dtype::Object), Some(Dtype::Object), 0)
    );
}

#[test]
fn duplicate_names_keep_the_first_position_and_the_last_values() {
    let t = Table::from_sql(
        vec!["a".into(), "b".into(), "a".into()],
        vec![vec![
            SqlValue::Integer(1),
            SqlValue::Text("x".into()),
            SqlValue::Real(2.5),
        ]],
        Pandas::V2,
    );
    assert_eq!(t.column_names().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(
        (t.dtype("a"), column_text(&t, "a")),
        (Some(Dtype::Float64), "[2.5]".to_owned())
    );
}

#[test]
fn dataframe_from_lists() {
    let cases: Vec<(Vec<Cell>, Dtype, &str)> = vec![
        (vec![], Dtype::Float64, "[]"),
        (vec![i(1), i(2)], Dtype::Int64, "[1, 2]"),
        (vec![i(1), f(2.5)], Dtype::Float64, "[1.0, 2.5]"),
        (vec![i(1), none()], Dtype::Float64, "[1.0, NaN]"),
        (vec![s("a"), none()], Dtype::Object, "[\"a\", null]"),
        (vec![none(), none()], Dtype::Object, "[null, null]"),
        (
            vec![Cell::Bool(true), Cell::Bool(false)],
            Dtype::Bool,
            "[true, false]",
        ),
        (
            vec![Cell::Bool(true), none()],
            Dtype::Object,
            "[true, null]",
        ),
        (vec![i(1), Cell::Bool(true)], Dtype::Object, "[1, true]"),
        (vec![f(1.5), Cell::Bool(true)], Dtype::Object, "[1.5, true]"),
        (
            vec![Cell::UInt(1 << 63)],
            Dtype::UInt64,
            "[9223372036854775808]",
        ),
        (
            vec![Cell::UInt(1 << 63), i(1)],
            Dtype::UInt64,
            "[9223372036854775808, 1]",
        ),
        (
            vec![Cell::UInt(1 << 63), i(-1)],
            Dtype::Object,
            "[9223372036854775808, -1]",
        ),
        (vec![nan(), none()], Dtype::Float64, "[NaN, NaN]"),
        (vec![none(), f(1.5)], Dtype::Float64, "[NaN, 1.5]"),
    ];
    for (values, dtype, text) in cases {
        let t = table(&[("a", values)]).reinfer(Pandas::V2);
        assert_eq!(
            (t.dtype("a"), column_text(&t, "a")),
            (Some(dtype), text.to_owned())
        );
    }
}

#[test]
fn concatenation_dtypes() {
    let cases: Vec<(Vec<Cell>, Vec<Cell>, &str, &str)> = vec![
        (vec![i(1), i(2)], vec![i(1), i(2)], "int64", "[1, 2, 1, 2]"),
        (
            vec![i(1), i(2)],
            vec![f(1.5), nan()],
            "float64",
            "[1.0, 2.0, 1.5, NaN]",
        ),
        (vec![i(1), i(2)], vec![nan()], "float64", "[1.0, 2.0, NaN]"),
        (
            vec![i(1), i(2)],
            vec![s("a"), none()],
            "object",
            "[1, 2, \"a\", null]",
        ),
        (vec![i(1), i(2)], vec![none()], "object", "[1, 2, null]"),
        (
            vec![i(1), i(2)],
            vec![Cell::Bool(true)],
            "int64",
            "[1, 2, 1]",
        ),
        (
            vec![i(1), i(2)],
            vec![Cell::UInt(1 << 63)],
            "float64",
            "[1.0, 2.0, 9.223372036854776e+18]",
        ),
        (vec![i(1), i(2)], vec![], "float64", "[1.0, 2.0]"),
        (
            vec![i(1), i(2)],
            vec![i(1), s("a")],
            "object",
            "[1, 2, 1, \"a\"]",
        ),
        (
            vec![f(1.5), nan()],
            vec![i(1), i(2)],
            "float64",
            "[1.5, NaN, 1.0, 2.0]",
        ),
        (
            vec![f(1.5), nan()],
            vec![f(1.5), nan()],
            "float64",
            "[1.5, NaN, 1.5, NaN]",
        ),
        (
            vec![f(1.5), nan()],
            vec![nan()],
            "float64",
            "[1.5, NaN, NaN]",
        ),
        (
            vec![f(1.5), nan()],
            vec![s("a"), none()],
            "object",
            "[1.5, NaN, \"a\", null]",
        ),
        (
            vec![f(1.5), nan()],
            vec![none()],
            "float64",
            "[1.5, NaN, NaN]",
        ),
        (
            vec![f(1.5), nan()],
            vec![Cell::Bool(true)],
            "float64",
            "[1.5, NaN, 1.0]",
        ),
        (
            vec![f(1.5), nan()],
            vec![Cell::UInt(1 << 63)],
            "float64",
            "[1.5, NaN, 9.223372036854776e+18]",
        ),
        (vec![f(1.5), nan()], vec![], "float64", "[1.5, NaN]"),
        (
            vec![f(1.5), nan()],
            vec![i(1), s("a")],
            "object",
            "[1.5, NaN, 1, \"a\"]",
        ),
        (vec![nan()], vec![i(1), i(2)], "float64", "[NaN, 1.0, 2.0]"),
        (
            vec![nan()],
            vec![f(1.5), nan()],
            "float64",
            "[NaN, 1.5, NaN]",
        ),
        (vec![nan()], vec![nan()], "float64", "[NaN, NaN]"),
        (
            vec![nan()],
            vec![s("a"), none()],
            "object",
            "[NaN, \"a\", null]",
        ),
        (vec![nan()], vec![none()], "object", "[NaN, null]"),
        (vec![nan()], vec![Cell::Bool(true)], "object", "[NaN, 1.0]"),
        (
            vec![nan()],
            vec![Cell::UInt(1 << 63)],
            "float64",
            "[NaN, 9.223372036854776e+18]",
        ),
        (vec![nan()], vec![], "float64", "[NaN]"),
        (vec![nan()], vec![i(1), s("a")], "object", "[NaN, 1, \"a\"]"),
        (
            vec![s("a"), none()],
            vec![i(1), i(2)],
            "object",
            "[\"a\", null, 1, 2]",
        ),
        (
            vec![s("a"), none()],
            vec![f(1.5), nan()],
            "object",
            "[\"a\", null, 1.5, NaN]",
        ),
        (
            vec![s("a"), none()],
            vec![nan()],
            "object",
            "[\"a\", null, NaN]",
        ),
        (
            vec![s("a"), none()],
            vec![s("a"), none()],
            "object",
            "[\"a\", null, \"a\", null]",
        ),
        (
            vec![s("a"), none()],
            vec![none()],
            "object",
            "[\"a\", null, null]",
        ),
        (
            vec![s("a"), none()],
            vec![Cell::Bool(true)],
            "object",
            "[\"a\", null, true]",
        ),
        (
            vec![s("a"), none()],
            vec![Cell::UInt(1 << 63)],
            "object",
            "[\"a\", null, 9223372036854775808]",
        ),
        (vec![s("a"), none()], vec![], "object", "[\"a\", null]"),
        (
            vec![s("a"), none()],
            vec![i(1), s("a")],
            "object",
            "[\"a\", null, 1, \"a\"]",
        ),
        (vec![none()], vec![i(1), i(2)], "object", "[null, 1, 2]"),
        (
            vec![none()],
            vec![f(1.5), nan()],
            "float64",
            "[NaN, 1.5, NaN]",
        ),
        (vec![none()], vec![nan()], "object", "[null, NaN]"),
        (
            vec![none()],
            vec![s("a"), none()],
            "object",
            "[null, \"a\", null]",
        ),
        (vec![none()], vec![none()], "object", "[null, null]"),
        (
            vec![none()],
            vec![Cell::Bool(true)],
            "object",
            "[null, true]",
        ),
        (
            vec![none()],
            vec![Cell::UInt(1 << 63)],
            "object",
            "[null, 9223372036854775808]",
        ),
        (vec![none()], vec![], "object", "[null]"),
        (
            vec![none()],
            vec![i(1), s("a")],
            "object",
            "[null, 1, \"a\"]",
        ),
        (
            vec![Cell::Bool(true)],
            vec![i(1), i(2)],
            "int64",
            "[1, 1, 2]",
        ),
        (
            vec![Cell::Bool(true)],
            vec![f(1.5), nan()],
            "object",
            "[1.0, 1.5, NaN]",
        ),
        (vec![Cell::Bool(true)], vec![nan()], "object", "[1.0, NaN]"),
        (
            vec![Cell::Bool(true)],
            vec![s("a"), none()],
            "object",
            "[true, \"a\", null]",
        ),
        (
            vec![Cell::Bool(true)],
            vec![none()],
            "object",
            "[true, null]",
        ),
        (
            vec![Cell::Bool(true)],
            vec![Cell::Bool(true)],
            "bool",
            "[true, true]",
        ),
        (
            vec![Cell::Bool(true)],
            vec![Cell::UInt(1 << 63)],
            "uint64",
            "[1, 9223372036854775808]",
        ),
        (vec![Cell::Bool(true)], vec![], "object", "[1.0]"),
        (
            vec![Cell::Bool(true)],
            vec![i(1), s("a")],
            "object",
            "[true, 1, \"a\"]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![i(1), i(2)],
            "float64",
            "[9.223372036854776e+18, 1.0, 2.0]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![f(1.5), nan()],
            "float64",
            "[9.223372036854776e+18, 1.5, NaN]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![nan()],
            "float64",
            "[9.223372036854776e+18, NaN]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![s("a"), none()],
            "object",
            "[9223372036854775808, \"a\", null]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![none()],
            "object",
            "[9223372036854775808, null]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![Cell::Bool(true)],
            "uint64",
            "[9223372036854775808, 1]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![Cell::UInt(1 << 63)],
            "uint64",
            "[9223372036854775808, 9223372036854775808]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![],
            "float64",
            "[9.223372036854776e+18]",
        ),
        (
            vec![Cell::UInt(1 << 63)],
            vec![i(1), s("a")],
            "object",
            "[9223372036854775808, 1, \"a\"]",
        ),
        (vec![], vec![i(1), i(2)], "float64", "[1.0, 2.0]"),
        (vec![], vec![f(1.5), nan()], "float64", "[1.5, NaN]"),
        (vec![], vec![nan()], "float64", "[NaN]"),
        (vec![], vec![s("a"), none()], "object", "[\"a\", null]"),
        (vec![], vec![none()], "object", "[null]"),
        (vec![], vec![Cell::Bool(true)], "object", "[1.0]"),
        (
            vec![],
            vec![Cell::UInt(1 << 63)],
            "float64",
            "[9.223372036854776e+18]",
        ),
        (vec![], vec![], "float64", "[]"),
        (vec![], vec![i(1), s("a")], "object", "[1, \"a\"]"),
        (
            vec![i(1), s("a")],
            vec![i(1), i(2)],
            "object",
            "[1, \"a\", 1, 2]",
        ),
        (
            vec![i(1), s("a")],
            vec![f(1.5), nan()],
            "object",
            "[1, \"a\", 1.5, NaN]",
        ),
        (vec![i(1), s("a")], vec![nan()], "object", "[1, \"a\", NaN]"),
        (
            vec![i(1), s("a")],
            vec![s("a"), none()],
            "object",
            "[1, \"a\", \"a\", null]",
        ),
        (
            vec![i(1), s("a")],
            vec![none()],
            "object",
            "[1, \"a\", null]",
        ),
        (
            vec![i(1), s("a")],
            vec![Cell::Bool(true)],
            "object",
            "[1, \"a\", true]",
        ),
        (
            vec![i(1), s("a")],
            vec![Cell::UInt(1 << 63)],
            "object",
            "[1, \"a\", 9223372036854775808]",
        ),
        (vec![i(1), s("a")], vec![], "object", "[1, \"a\"]"),
        (
            vec![i(1), s("a")],
            vec![i(1), s("a")],
            "object",
            "[1, \"a\", 1, \"a\"]",
        ),
    ];
    for (a, b, dtype, text) in cases {
        let (ta, tb) = (table(&[("c", a.clone())]), table(&[("c", b.clone())]));
        let t = out_table(concatenate_data(&ta, &tb, Pandas::V2));
        assert_eq!(
            (t.dtype("c").map(Dtype::as_str), column_text(&t, "c")),
            (Some(dtype), text.to_owned()),
            "{a:?} + {b:?}"
        );
    }
}

//! What changes between pandas 2.3.3 and pandas 3.1.1 (the default), on the project's own
//! data: each case run under both, with the texts each pandas gives.

use crate::common;

use common::{f, i, none, out_table, s, table, text};
use vakra_frame::{
    Cell, FilterCondition, KeyName, Pandas, Table, ToolValue, concatenate_data, filter_data, peek,
    retrieve_data, sort_data,
};
use vakra_sql::SqlValue::{self, Blob, Integer, Null, Text};

fn sql(columns: &[&str], rows: Vec<Vec<SqlValue>>, pandas: Pandas) -> Table {
    Table::from_sql(
        columns.iter().map(|c| (*c).to_owned()).collect(),
        rows,
        pandas,
    )
}

fn t(v: &str) -> SqlValue {
    Text(v.to_owned())
}

fn peek_of(table: &Table) -> String {
    peek(table, "h").unwrap()
}

#[test]
fn sql_text_with_nulls_is_str_with_nan_under_pandas_3() {
    let rows = || {
        vec![
            vec![t("Zürich"), Null, t("a"), t("x"), Null],
            vec![Null, Null, Integer(1), t("z"), Null],
            vec![t("東京"), Null, t("b"), t("y"), Null],
            vec![t("d"), Null, t("c"), Blob(vec![1]), Null],
        ]
    };
    let names = ["city", "none", "mixed", "blob", "empty"];
    let peek3 = peek_of(&sql(&names, rows(), Pandas::V3));
    assert!(
        peek3.contains("{\"name\": \"city\", \"dtype\": \"str\", \"first_3_values\": [\"Z\\u00fcrich\", NaN, \"\\u6771\\u4eac\"]}"),
        "{peek3}"
    );
    let peek2 = peek_of(&sql(&names, rows(), Pandas::V2));
    assert!(
        peek2.contains("{\"name\": \"city\", \"dtype\": \"object\", \"first_3_values\": [\"Z\\u00fcrich\", null, \"\\u6771\\u4eac\"]}"),
        "{peek2}"
    );
    let v3 = sql(&names, rows(), Pandas::V3);
    let v2 = sql(&names, rows(), Pandas::V2);
    let dtypes = |t: &Table| names.map(|n| t.dtype(n).unwrap().as_str());
    assert_eq!(dtypes(&v3), ["str", "object", "object", "object", "object"]);
    assert_eq!(dtypes(&v2), ["object"; 5]);
    assert!(matches!(v3.column("city").unwrap()[1], Cell::Float(x) if x.is_nan()));
    assert_eq!(v2.column("city").unwrap()[1], Cell::None);
    // No rows: object under both.
    assert_eq!(
        sql(&["c"], vec![], Pandas::V3).dtype("c").unwrap().as_str(),
        "object"
    );
}

#[test]
fn lists_of_strings_become_str_under_pandas_3() {
    let dtype = |cells: Vec<Cell>, pandas| {
        let t = table(&[("a", cells)]).reinfer(pandas);
        (t.dtype("a").unwrap().as_str(), peek_of(&t))
    };
    let (d, p) = dtype(vec![s("x"), none(), f(f64::NAN)], Pandas::V3);
    assert_eq!(d, "str");
    assert!(p.contains("[\"x\", NaN, NaN]"), "{p}");
    let (d, p) = dtype(vec![s("x"), none()], Pandas::V2);
    assert_eq!(d, "object");
    assert!(p.contains("[\"x\", null]"), "{p}");
    for pandas in [Pandas::V2, Pandas::V3] {
        assert_eq!(dtype(vec![s("x"), i(1)], pandas).0, "object");
        assert_eq!(dtype(vec![s("x"), Cell::Bool(true)], pandas).0, "object");
        assert_eq!(dtype(vec![none(), none()], pandas).0, "object");
        assert_eq!(dtype(vec![f(f64::NAN)], pandas).0, "float64");
        assert_eq!(dtype(vec![], pandas).0, "float64");
    }
}

fn names() -> Table {
    table(&[
        ("id", vec![i(1), i(2), i(3), i(4)]),
        ("name", vec![s("beta"), none(), s("Alpha"), s("gamma")]),
    ])
}

#[test]
fn like_skips_missing_strings_under_pandas_3() {
    let like = |pandas| {
        text(filter_data(
            &names(),
            "name",
            &s("%a"),
            FilterCondition::Like,
            pandas,
        ))
    };
    assert_eq!(
        like(Pandas::V2),
        Err("expected string or bytes-like object, got 'NoneType'".to_owned())
    );
    let v3 = like(Pandas::V3).unwrap();
    assert!(v3.contains("\"num_records\": 3"), "{v3}");
    assert!(
        v3.contains("{\"name\": \"name\", \"dtype\": \"str\""),
        "{v3}"
    );
}

#[test]
fn other_filters_agree_but_name_the_dtype() {
    for (value, condition, rows) in [
        (s("beta"), FilterCondition::EqualTo, 1),
        (s("beta"), FilterCondition::NotEqualTo, 3),
        (s("b"), FilterCondition::GreaterThan, 2),
        (s("A"), FilterCondition::Contains, 3),
        (none(), FilterCondition::EqualTo, 1),
        (i(5), FilterCondition::EqualTo, 0),
    ] {
        let v2 = text(filter_data(&names(), "name", &value, condition, Pandas::V2)).unwrap();
        let v3 = text(filter_data(&names(), "name", &value, condition, Pandas::V3)).unwrap();
        assert!(v2.contains(&format!("\"num_records\": {rows}")), "{v2}");
        assert_eq!(
            v2.replace("\"object\"", "\"str\"").replace("null", "NaN"),
            v3
        );
    }
    // An int compared with strings stays an int when the first value is missing.
    let missing_first = table(&[("name", vec![none(), s("beta")])]);
    for pandas in [Pandas::V2, Pandas::V3] {
        assert_eq!(
            text(filter_data(
                &missing_first,
                "name",
                &i(5),
                FilterCondition::GreaterThan,
                pandas
            )),
            Err("'>' not supported between instances of 'str' and 'int'".to_owned())
        );
    }
}

#[test]
fn the_str_accessor_error_names_the_inferred_dtype_under_pandas_3() {
    let data = table(&[
        ("f", vec![f(1.5), f(2.0)]),
        ("i", vec![i(1), i(2)]),
        ("b", vec![Cell::Bool(true), none()]),
    ]);
    for (key, inferred) in [("f", "floating"), ("i", "integer"), ("b", "boolean")] {
        let contains = |pandas| {
            text(filter_data(
                &data,
                key,
                &s("1"),
                FilterCondition::Contains,
                pandas,
            ))
        };
        assert_eq!(
            contains(Pandas::V2),
            Err("Can only use .str accessor with string values!".to_owned())
        );
        assert_eq!(
            contains(Pandas::V3),
            Err(format!(
                "Can only use .str accessor with string values, not {inferred}"
            ))
        );
    }
}

#[test]
fn sorting_puts_missing_strings_last_in_both() {
    for ascending in [true, false] {
        let v3 = out_table(sort_data(&names(), "name", ascending, None, Pandas::V3));
        let order: Vec<Cell> = v3.column("id").unwrap().to_vec();
        let want = if ascending {
            vec![i(3), i(1), i(4), i(2)]
        } else {
            vec![i(4), i(1), i(3), i(2)]
        };
        assert_eq!(order, want);
        assert!(matches!(v3.column("name").unwrap()[3], Cell::Float(x) if x.is_nan()));
        let v2 = out_table(sort_data(&names(), "name", ascending, None, Pandas::V2));
        assert_eq!(v2.column("id").unwrap(), &want[..]);
        assert_eq!(v2.column("name").unwrap()[3], Cell::None);
    }
}

#[test]
fn concatenation_keeps_str_only_next_to_str() {
    let words = table(&[("a", vec![s("x"), none()]), ("b", vec![s("y"), s("z")])]);
    let other = table(&[("a", vec![s("q")]), ("b", vec![i(1)])]);
    let nulls = table(&[("a", vec![none()]), ("b", vec![s("w")])]);
    let result = |x: &Table, y: &Table, pandas| match concatenate_data(x, y, pandas).unwrap() {
        ToolValue::Table(t) => t,
        other => panic!("{other:?}"),
    };
    let t = result(&words, &other, Pandas::V3);
    assert_eq!(t.dtype("a").unwrap().as_str(), "str");
    assert_eq!(t.dtype("b").unwrap().as_str(), "object");
    let t = result(&nulls, &words, Pandas::V3);
    assert_eq!(t.dtype("a").unwrap().as_str(), "object");
    // The object side keeps None, the str side its NaN.
    let a = t.column("a").unwrap();
    assert_eq!(a[0], Cell::None);
    assert!(matches!(a[2], Cell::Float(x) if x.is_nan()));
    let t = result(&words, &other, Pandas::V2);
    assert_eq!(t.dtype("a").unwrap().as_str(), "object");
}

#[test]
fn distinct_keeps_one_missing_string_as_python_does_with_np_nan() {
    let rows = vec![vec![t("x")], vec![Null], vec![t("y")], vec![Null]];
    for pandas in [Pandas::V2, Pandas::V3] {
        let data = sql(&["w"], rows.clone(), pandas);
        let got = out_table(retrieve_data(&data, &KeyName::One("w".into()), true, -1));
        assert_eq!(got.column("w").unwrap(), &[s("x"), none(), s("y")][..]);
    }
    // A float column's NaNs are distinct objects: all kept.
    let floats = sql(
        &["v"],
        vec![vec![SqlValue::Real(1.5)], vec![Null], vec![Null]],
        Pandas::V3,
    );
    let got = out_table(retrieve_data(&floats, &KeyName::One("v".into()), true, -1));
    assert_eq!(got.column("v").unwrap(), &[f(1.5), none(), none()][..]);
}

#[test]
fn very_long_and_non_ascii_strings_are_plain_str() {
    let long = "Ω".to_owned() + &"long-text-".repeat(600);
    let data = table(&[("w", vec![s(&long), s("é"), none()])]);
    let v3 = out_table(filter_data(
        &data,
        "w",
        &s("É"),
        FilterCondition::Contains,
        Pandas::V3,
    ));
    assert_eq!(v3.column("w").unwrap(), &[s("é")][..]);
    assert_eq!(v3.dtype("w").unwrap().as_str(), "str");
}

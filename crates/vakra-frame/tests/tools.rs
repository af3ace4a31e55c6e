//! Tool behaviour not covered by the reference cases: list tools on JSON input, argument types,
//! views against copies, and robustness on hostile input.

use crate::common;

use std::sync::Arc;
use vakra_frame::Pandas;

use common::{f, i, nan, none, out_table, s, table, text};
use serde_json::json;
use vakra_frame::{
    AggregationOperation, CalcOperand, CalculatorOperation, Cell, FilterCondition, KeyName, Table,
    TransformOperation, aggregate_data, calculator, concatenate_data, filter_data, getter, peek,
    retrieve_data, select_unique_values, sort_data, transform_data,
    transform_data_to_absolute_value, transform_data_to_datetime_part, transform_data_to_substring,
    truncate,
};

#[test]
fn truncate_lists_only() {
    assert_eq!(
        text(truncate(&json!(["x", "y"]), 5)),
        Ok("[\"x\", \"y\"]".to_owned())
    );
    assert_eq!(
        text(truncate(&json!([5, 4, 3, 2]), 2)),
        Ok("[5, 4]".to_owned())
    );
    assert_eq!(
        text(truncate(&json!([[1, 2], {"a": 1.5}]), 1)),
        Ok("[[1, 2]]".to_owned())
    );
    assert_eq!(text(truncate(&json!([1]), 0)), Ok("[]".to_owned()));
    assert_eq!(
        text(truncate(&json!({"a": [1, 2, 3]}), 2)),
        Err("unhashable type: 'slice'".to_owned())
    );
}

#[test]
fn unique_values_of_json() {
    let unique = |v: serde_json::Value| text(select_unique_values(v.as_array().unwrap()));
    assert_eq!(
        unique(json!([1, 1.0, true, "1"])),
        Ok("[1, \"1\"]".to_owned())
    );
    assert_eq!(
        unique(json!(["a", "b", "a"])),
        Ok("[\"a\", \"b\"]".to_owned())
    );
    assert_eq!(
        unique(json!([{"a": 1}, {"a": 1}])),
        Err("unhashable type: 'dict'".to_owned())
    );
    assert_eq!(
        unique(json!([1, [2]])),
        Err("unhashable type: 'list'".to_owned())
    );
}

#[test]
fn argument_types_parse_from_json() {
    assert_eq!(
        "max".parse::<AggregationOperation>(),
        Ok(AggregationOperation::Max)
    );
    assert_eq!(
        AggregationOperation::Max.python_member(),
        "AggregationOperation.MAX"
    );
    assert_eq!(FilterCondition::ALL.len(), 8);
    assert_eq!(
        serde_json::from_value::<FilterCondition>(json!("greater_than_equal_to")).unwrap(),
        FilterCondition::GreaterThanEqualTo
    );
    assert!("eq".parse::<FilterCondition>().is_err());
    assert_eq!(
        serde_json::from_value::<KeyName>(json!(["a", "b"])).unwrap(),
        KeyName::Many(vec!["a".into(), "b".into()])
    );
    assert_eq!(
        serde_json::from_value::<KeyName>(json!("a")).unwrap(),
        KeyName::One("a".into())
    );
    assert_eq!(
        CalcOperand::from_json(&json!([1, null, 2.5])),
        Some(CalcOperand::List(vec![i(1), none(), f(2.5)]))
    );
    assert_eq!(
        CalcOperand::from_json(&json!(7)),
        Some(CalcOperand::Scalar(i(7)))
    );
    assert_eq!(CalcOperand::from_json(&json!("6")), None);
}

#[test]
fn calculator_keeps_python_ints() {
    let calc = |a: serde_json::Value, b: serde_json::Value, op| {
        text(calculator(
            &CalcOperand::from_json(&a).unwrap(),
            &CalcOperand::from_json(&b).unwrap(),
            op,
        ))
    };
    assert_eq!(
        calc(
            json!(9223372036854775807i64),
            json!(9223372036854775807i64),
            CalculatorOperation::Multiply
        ),
        Ok("85070591730234615847396907784232501249".to_owned())
    );
    assert_eq!(
        calc(
            json!(-9223372036854775808i64),
            json!(1),
            CalculatorOperation::Subtract
        ),
        Ok("-9223372036854775809".to_owned())
    );
    assert_eq!(
        calc(json!([2, 3]), json!(2), CalculatorOperation::Multiply),
        Ok("[4, 6]".to_owned())
    );
    assert_eq!(
        calc(json!([2, 3]), json!(2), CalculatorOperation::Divide),
        Ok("[1.0, 1.5]".to_owned())
    );
    assert_eq!(
        calc(json!(1), json!(3), CalculatorOperation::Divide),
        Ok("0.3333333333333333".to_owned())
    );
}

#[test]
fn getters_return_whole_columns() {
    let t = table(&[("customers_ZipCode", vec![f(10.0), nan(), f(30.0), f(40.0)])]);
    assert_eq!(
        text(getter(&t, "customers_ZipCode")),
        Ok("[10.0, null, 30.0, 40.0]".to_owned())
    );
    assert_eq!(
        text(getter(&t, "customers_Email")),
        Err("'customers_Email'".to_owned())
    );
    let blob = table(&[("b", vec![Cell::Bytes(Arc::from(&b"x"[..]))])]);
    assert_eq!(
        text(getter(&blob, "b")),
        Err("Object of type bytes is not JSON serializable".to_owned())
    );
}

/// A table whose cells are copies, to compare views against.
fn materialized(t: &Table) -> Table {
    Table::from_columns(
        t.columns()
            .iter()
            .map(|c| (c.name().to_owned(), c.cells().to_vec())),
    )
}

#[test]
fn views_behave_like_copies() {
    let n = 500;
    let data = table(&[
        ("id", (0..n).map(i).collect()),
        (
            "score",
            (0..n)
                .map(|k| {
                    if k % 7 == 0 {
                        nan()
                    } else {
                        f(((k * 37) % 101) as f64)
                    }
                })
                .collect(),
        ),
        (
            "name",
            (0..n)
                .map(|k| s(&format!("n{:03}", (k * 13) % 50)))
                .collect(),
        ),
        (
            "when",
            (0..n)
                .map(|k| s(&format!("20{:02}-0{}-1{}", k % 30, 1 + k % 9, k % 10)))
                .collect(),
        ),
    ]);
    let filtered = out_table(filter_data(
        &data,
        "score",
        &f(40.0),
        FilterCondition::GreaterThan,
        Pandas::V2,
    ));
    let sorted = out_table(sort_data(&filtered, "name", true, None, Pandas::V2));
    let copy = materialized(&sorted);
    for key in ["id", "score", "name", "when"] {
        assert_eq!(sorted.column(key), copy.column(key));
        for op in [
            AggregationOperation::Sum,
            AggregationOperation::Count,
            AggregationOperation::Argmax,
        ] {
            assert_eq!(
                text(aggregate_data(&sorted, key, op, true, 100)),
                text(aggregate_data(&copy, key, op, true, 100))
            );
        }
    }
    let keys = KeyName::Many(vec!["score".into(), "when".into()]);
    assert_eq!(
        text(retrieve_data(&sorted, &keys, false, 10)),
        text(retrieve_data(&copy, &keys, false, 10))
    );
    let resorted = out_table(sort_data(&sorted, "score", false, None, Pandas::V2));
    assert_eq!(
        text(Ok(vakra_frame::ToolValue::Table(resorted.clone()))),
        text(sort_data(&copy, "score", false, None, Pandas::V2))
    );
    assert_eq!(
        text(transform_data(
            &resorted,
            "when",
            TransformOperation::Datetime,
            None
        )),
        text(transform_data(
            &materialized(&resorted),
            "when",
            TransformOperation::Datetime,
            None
        ))
    );
    assert_eq!(
        text(concatenate_data(&sorted, &filtered, Pandas::V2)),
        text(concatenate_data(
            &copy,
            &materialized(&filtered),
            Pandas::V2
        ))
    );
}

#[test]
fn inputs_are_never_changed() {
    let data = table(&[
        ("a", vec![i(-1), none(), i(3)]),
        ("b", vec![s("x"), s("y"), s("z")]),
    ]);
    let before = peek(&data, "h").unwrap();
    let _ = transform_data_to_absolute_value(&data, "a");
    let _ = transform_data_to_substring(&data, "b", 0, 1);
    let _ = sort_data(&data, "a", true, None, Pandas::V2);
    let _ = filter_data(&data, "a", &i(0), FilterCondition::GreaterThan, Pandas::V2);
    assert_eq!(peek(&data, "h").unwrap(), before);
}

/// Every tool on awkward tables and arguments: errors are fine, panics are not.
#[test]
fn hostile_input_never_panics() {
    let tables = vec![
        Table::default(),
        table(&[("a", vec![])]),
        table(&[("a", vec![nan()])]),
        table(&[("a", vec![i(i64::MIN), i(i64::MAX), Cell::UInt(u64::MAX)])]),
        table(&[(
            "a",
            vec![f(f64::MAX), f(f64::MIN_POSITIVE), f(-0.0), f(f64::INFINITY)],
        )]),
        table(&[(
            "a",
            vec![s(""), s("\u{10FFFF}\u{0}"), s(&"x".repeat(10_000))],
        )]),
        table(&[(
            "a",
            vec![
                Cell::Bytes(Arc::from(&b"\xff\x00"[..])),
                none(),
                Cell::Bool(true),
            ],
        )]),
        table(&[("a", vec![i(1), i(2)]), ("b", vec![i(1)])]),
    ];
    let patterns = [
        "(".repeat(500),
        "a{99999}".to_owned(),
        "(a*)*$".to_owned(),
        "(?<=a*)b".to_owned(),
        "\\".to_owned(),
        "[".to_owned(),
        "(?P<a>x)(?P=a)(?(a)b|c)".to_owned(),
        "%_%_%".to_owned(),
        "(x+x+)+y".to_owned(),
    ];
    let values = [
        none(),
        i(i64::MIN),
        f(f64::NAN),
        s("1e999"),
        s("9".repeat(5000).as_str()),
        s("٣"),
    ];
    for t in &tables {
        for cond in FilterCondition::ALL {
            for v in values.iter().cloned().chain(patterns.iter().map(|p| s(p))) {
                let _ = filter_data(t, "a", &v, *cond, Pandas::V2);
            }
        }
        for op in AggregationOperation::ALL {
            for limit in [-1, 0, 1, i64::MAX] {
                let _ = aggregate_data(t, "a", *op, true, limit);
                let _ = aggregate_data(t, "", *op, false, limit);
            }
        }
        let _ = sort_data(t, "a", false, None, Pandas::V2);
        let _ = sort_data(t, "a", true, Some(&[i(1), f(0.5), none()]), Pandas::V2);
        let _ = retrieve_data(t, &KeyName::One("A".into()), true, i64::MIN);
        let _ = transform_data_to_substring(t, "a", i64::MIN, i64::MAX);
        let _ = transform_data_to_absolute_value(t, "a");
        let _ = transform_data_to_datetime_part(t, "a", "%Y");
        let args = json!({"start_index": 1e300, "end_index": -1e300})
            .as_object()
            .cloned();
        let _ = transform_data(t, "a", TransformOperation::Substring, args.as_ref());
        let _ = getter(t, "a");
        for other in &tables {
            let _ = concatenate_data(t, other, Pandas::V2);
        }
        let _ = peek(t, "h");
    }
    let catastrophic = table(&[("w", vec![s(&format!("{}!", "x".repeat(40)))])]);
    let result = filter_data(
        &catastrophic,
        "w",
        &s("(x+x+)+y"),
        FilterCondition::Contains,
        Pandas::V2,
    );
    assert!(result.is_ok() || result.is_err());
}

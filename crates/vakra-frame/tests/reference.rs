//! Cases checked against the reference's own tool functions (IBM/vakra at a44036ad, run with
//! pandas 2.3.3, numpy 2.2.6, pydantic 2 and CPython 3.11.7, through the same pydantic
//! wrappers the server uses): `spec_cases.jsonl` holds one case per rule of §7–§8 of the spec,
//! `fuzz_cases.jsonl` random tables and arguments.
//!
//! Each line is `{"rule", "tool", "table", "args", "expected"}`; cells are written
//! `{"t": "i"|"f"|"s"|"b"|"n", "v": ...}` (NaN as the string `"nan"`), and `expected` is
//! `T:<peek under handle "h">`, `L:<json list>`, `S:<str()>`, `E:<exception text>`, or
//! `F:<column=json list;...>` for cases that compare whole tables.

use serde_json::Value;
use vakra_frame::Pandas;
use vakra_frame::{
    CalcOperand, Cell, KeyName, Table, ToolError, ToolValue, aggregate_data, calculator,
    concatenate_data, filter_data, getter, peek, render_list, retrieve_data, select_unique_values,
    sort_data, transform_data, transform_data_to_datetime_part,
};

fn cell(v: &Value) -> Cell {
    match v["t"].as_str().unwrap_or_default() {
        "n" => Cell::None,
        "b" => Cell::Bool(v["v"].as_bool().unwrap_or_default()),
        "i" => match (v["v"].as_i64(), v["v"].as_u64()) {
            (Some(i), _) => Cell::Int(i),
            (None, Some(u)) => Cell::UInt(u),
            _ => panic!("bad int {v}"),
        },
        "f" => Cell::Float(match &v["v"] {
            Value::String(s) => s.parse().expect("float text"),
            x => x.as_f64().expect("float"),
        }),
        "s" => Cell::from(v["v"].as_str().unwrap_or_default()),
        other => panic!("unknown cell type {other}"),
    }
}

fn table(v: &Value) -> Table {
    Table::from_columns(v["cols"].as_array().expect("cols").iter().map(|c| {
        let cells: Vec<Cell> = c[1].as_array().expect("cells").iter().map(cell).collect();
        (c[0].as_str().expect("name").to_owned(), cells)
    }))
}

fn answer(result: Result<ToolValue, ToolError>, full: bool) -> String {
    match result {
        Err(e) => format!("E:{}", e.message()),
        Ok(ToolValue::Table(t)) if full => {
            let mut out = String::from("F:");
            for c in t.columns() {
                out.push_str(c.name());
                out.push('=');
                out.push_str(&render_list(c.cells()).expect("json"));
                out.push(';');
            }
            out
        }
        Ok(ToolValue::Table(t)) => match peek(&t, "h") {
            Ok(text) => format!("T:{text}"),
            Err(e) => format!("R:{e}"),
        },
        Ok(other) => match other.text().expect("not a table") {
            Ok(text) if matches!(other, ToolValue::Scalar(_)) => format!("S:{text}"),
            Ok(text) => format!("L:{text}"),
            Err(e) => format!("R:{e}"),
        },
    }
}

fn parse<T: std::str::FromStr>(args: &Value, name: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    args[name]
        .as_str()
        .expect("enum")
        .parse()
        .expect("enum value")
}

fn run(case: &Value) -> String {
    let a = &case["args"];
    let data = table(&case["table"]);
    let key = a["key"].as_str().unwrap_or_default();
    let result = match case["tool"].as_str().expect("tool") {
        "filter" => filter_data(&data, key, &cell(&a["value"]), parse(a, "cond"), Pandas::V2),
        "sort" => {
            let ranking: Option<Vec<Cell>> = a
                .get("rank")
                .and_then(Value::as_array)
                .map(|r| r.iter().map(cell).collect());
            sort_data(
                &data,
                key,
                a["asc"].as_bool().unwrap_or_default(),
                ranking.as_deref(),
                Pandas::V2,
            )
        }
        "agg" => aggregate_data(
            &data,
            key,
            parse(a, "op"),
            a["distinct"].as_bool().unwrap_or_default(),
            a["limit"].as_i64().unwrap_or(-1),
        ),
        "retrieve" => {
            let keys: KeyName = serde_json::from_value(a["keys"].clone()).expect("keys");
            retrieve_data(
                &data,
                &keys,
                a["distinct"].as_bool().unwrap_or_default(),
                a["limit"].as_i64().unwrap_or(-1),
            )
        }
        "transform" => transform_data(
            &data,
            key,
            parse(a, "op"),
            a.get("opargs").and_then(Value::as_object),
        ),
        "concat" => concatenate_data(&data, &table(&a["other"]), Pandas::V2),
        "dtpart" => {
            transform_data_to_datetime_part(&data, key, a["pattern"].as_str().unwrap_or_default())
        }
        "getter" => getter(&data, key),
        "calc" => calculator(
            &CalcOperand::from_json(&a["i1"]).expect("operand"),
            &CalcOperand::from_json(&a["i2"]).expect("operand"),
            parse(a, "op"),
        ),
        "unique" => select_unique_values(a["arr"].as_array().expect("array")),
        other => panic!("unknown tool {other}"),
    };
    answer(result, case.get("full").is_some())
}

fn check(file: &str) {
    let text = std::fs::read_to_string(format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR")))
        .expect("read cases");
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("case json");
        let expected = case["expected"].as_str().expect("expected");
        let actual = run(&case);
        count += 1;
        if actual != expected {
            failures.push(format!(
                "{}\n  case     {}\n  expected {expected}\n  actual   {actual}",
                case["rule"], line
            ));
        }
    }
    assert!(count > 0, "no cases in {file}");
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn spec_rules_match_the_reference() {
    check("spec_cases.jsonl");
}

#[test]
fn random_cases_match_the_reference() {
    check("fuzz_cases.jsonl");
}

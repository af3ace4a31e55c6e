//! Times a chain of five tools on a synthetic 1,000,000-row table (ints, floats with NaN,
//! strings): filter → sort → retrieve → aggregate → transform, as an agent would chain them.
//!
//! Run with `cargo run --release -p vakra-frame --example chain_bench`.

use std::time::{Duration, Instant};
use vakra_frame::Pandas;

use vakra_frame::{
    AggregationOperation, Cell, FilterCondition, KeyName, Table, ToolValue, TransformOperation,
    aggregate_data, filter_data, peek, retrieve_data, sort_data, transform_data,
};

const ROWS: usize = 1_000_000;

/// A small deterministic generator, so runs are comparable.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

fn synthetic_table() -> Table {
    let mut rng = Lcg(42);
    let names = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
    ];
    let mut ids = Vec::with_capacity(ROWS);
    let mut scores = Vec::with_capacity(ROWS);
    let mut labels = Vec::with_capacity(ROWS);
    let mut dates = Vec::with_capacity(ROWS);
    for i in 0..ROWS {
        ids.push(Cell::Int(i as i64));
        let r = rng.next();
        scores.push(Cell::Float(if r.is_multiple_of(10) {
            f64::NAN
        } else {
            (r % 10_000) as f64 / 100.0
        }));
        let name = names[(rng.next() % names.len() as u64) as usize];
        labels.push(Cell::from(format!("{name}-{}", rng.next() % 1000)));
        dates.push(Cell::from(format!(
            "20{:02}-{:02}-{:02}",
            rng.next() % 25,
            1 + rng.next() % 12,
            1 + rng.next() % 28
        )));
    }
    Table::from_columns([
        ("sales_id", ids),
        ("sales_score", scores),
        ("sales_label", labels),
        ("sales_date", dates),
    ])
    .reinfer(Pandas::default())
}

fn table(value: ToolValue) -> Table {
    match value {
        ToolValue::Table(t) => t,
        other => panic!("expected a table, got {other:?}"),
    }
}

fn step<T>(name: &str, timings: &mut Vec<(String, Duration)>, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    timings.push((name.to_owned(), start.elapsed()));
    out
}

fn main() {
    let build = Instant::now();
    let data = synthetic_table();
    println!("built {ROWS} rows in {:?}", build.elapsed());

    for round in 1..=3 {
        let mut timings = Vec::new();
        let filtered = step("filter_data(score > 50)", &mut timings, || {
            table(
                filter_data(
                    &data,
                    "sales_score",
                    &Cell::Float(50.0),
                    FilterCondition::GreaterThan,
                    Pandas::default(),
                )
                .expect("filter"),
            )
        });
        let sorted = step("sort_data(score, descending)", &mut timings, || {
            table(
                sort_data(&filtered, "sales_score", false, None, Pandas::default()).expect("sort"),
            )
        });
        let keys = KeyName::Many(vec!["sales_score".into(), "sales_label".into()]);
        let retrieved = step("retrieve_data([score, label])", &mut timings, || {
            table(retrieve_data(&sorted, &keys, false, -1).expect("retrieve"))
        });
        let mean = step("aggregate_data(score, mean)", &mut timings, || {
            aggregate_data(
                &retrieved,
                "sales_score",
                AggregationOperation::Mean,
                false,
                -1,
            )
            .expect("aggregate")
        });
        let transformed = step("transform_data(date, datetime %Y)", &mut timings, || {
            table(
                transform_data(&sorted, "sales_date", TransformOperation::Datetime, None)
                    .expect("transform"),
            )
        });
        let peek_text = step("peek of the last table", &mut timings, || {
            peek(&transformed, "transformed_sales_1").expect("peek")
        });
        println!("round {round}:");
        for (name, elapsed) in &timings {
            println!("  {name:<36} {:>9.2} ms", elapsed.as_secs_f64() * 1000.0);
        }
        println!(
            "  rows: filtered {}, mean {:?}, peek {} bytes",
            filtered.num_rows(),
            mean.text(),
            peek_text.len()
        );
    }
}

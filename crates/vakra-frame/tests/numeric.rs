//! numpy's reductions bit for bit on long arrays (pairwise summation within 8192-value
//! buffers), checked against numpy 2.2.6 on the same generated data.

use crate::common;

use common::table;
use vakra_frame::{AggregationOperation, Cell, aggregate_data};

/// The generator the expectations were computed with (`x = x * a + c mod 2**64`).
fn values(n: usize, seed: u64, nan: bool, ints: bool) -> Vec<Cell> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if ints {
                Cell::Int(((x >> 33) % 2_000_000) as i64 - 1_000_000)
            } else if nan && (x >> 60) == 0 {
                Cell::Float(f64::NAN)
            } else {
                Cell::Float((x >> 11) as f64 / 9_007_199_254_740_992.0 * 2e6 - 1e6)
            }
        })
        .collect()
}

/// (length, seed, with NaN, ints, [sum, mean, std, min, max] as numpy prints them)
const CASES: &[(usize, u64, bool, bool, [&str; 5])] = &[
    (
        7,
        1,
        false,
        false,
        [
            "627467.5831787804",
            "89638.2261683972",
            "259509.66218787435",
            "-234273.21898347978",
            "590895.4985070641",
        ],
    ),
    (
        8,
        2,
        false,
        false,
        [
            "384568.138073982",
            "48071.01725924775",
            "584455.3592044003",
            "-942479.2558136459",
            "834232.2509412966",
        ],
    ),
    (
        129,
        3,
        true,
        false,
        [
            "6390477.457177736",
            "51536.1085256269",
            "511763.18665334943",
            "-858102.383967092",
            "972404.8114420548",
        ],
    ),
    (
        1000,
        4,
        false,
        false,
        [
            "-17045168.98419663",
            "-17045.16898419663",
            "587740.615008524",
            "-999672.5659098984",
            "998102.2999485082",
        ],
    ),
    (
        8191,
        5,
        false,
        false,
        [
            "-26546292.506004244",
            "-3240.909840801397",
            "581190.5286633879",
            "-999930.7997387227",
            "999482.5654638398",
        ],
    ),
    (
        8192,
        6,
        true,
        false,
        [
            "399880291.1958764",
            "51932.50535011382",
            "541291.9552153039",
            "-874620.4924180039",
            "999974.141729356",
        ],
    ),
    (
        8193,
        7,
        false,
        false,
        [
            "33772691.40177721",
            "4122.139802487149",
            "577729.3412992645",
            "-999924.3340293176",
            "999989.3867567605",
        ],
    ),
    (
        20000,
        8,
        true,
        false,
        [
            "1161015770.4531174",
            "61957.18930856061",
            "539567.107241297",
            "-874979.5176659971",
            "999823.3925113583",
        ],
    ),
    (
        20000,
        9,
        false,
        true,
        [
            "106866110.0",
            "5343.3055",
            "576102.9460389989",
            "-999980.0",
            "999906.0",
        ],
    ),
    (
        100000,
        10,
        false,
        false,
        [
            "298396451.9588112",
            "2983.964519588112",
            "576463.0662118036",
            "-999994.7929957898",
            "999984.5696709815",
        ],
    ),
];

#[test]
fn reductions_match_numpy() {
    let ops = [
        AggregationOperation::Sum,
        AggregationOperation::Mean,
        AggregationOperation::Std,
        AggregationOperation::Min,
        AggregationOperation::Max,
    ];
    for (n, seed, nan, ints, expected) in CASES {
        let data = table(&[("v", values(*n, *seed, *nan, *ints))]);
        for (op, want) in ops.iter().zip(expected) {
            let got = aggregate_data(&data, "v", *op, false, -1).expect("reduces");
            assert_eq!(
                got.text().expect("scalar").expect("text"),
                *want,
                "{op} of {n} values (seed {seed})"
            );
        }
    }
}

//! `float_repr` against CPython 3.11 `repr(float)`; every expected string was
//! produced by CPython.

use vakra_pytext::float_repr;

#[test]
fn matches_cpython_repr() {
    let cases: &[(f64, &str)] = &[
        (0.1, "0.1"),
        (2.0, "2.0"),
        (-1.5, "-1.5"),
        (123.456, "123.456"),
        (1.2345e16, "1.2345e+16"),
        (0.30000000000000004, "0.30000000000000004"),
        (1e-05, "1e-05"),
        (1e+16, "1e+16"),
        (1e+22, "1e+22"),
        (123456789.123, "123456789.123"),
        (5e-324, "5e-324"),
        (1.7976931348623157e+308, "1.7976931348623157e+308"),
        (-0.0, "-0.0"),
        (0.0, "0.0"),
        (2.5, "2.5"),
        (100.0, "100.0"),
        (1000000000000000.0, "1000000000000000.0"),
        (9999999999999998.0, "9999999999999998.0"),
        (1.5e-07, "1.5e-07"),
        (0.0001, "0.0001"),
        (0.00012, "0.00012"),
        (20.0, "20.0"),
        (0.055, "0.055"),
        (123456789012345.0, "123456789012345.0"),
        (1234567890123456.0, "1234567890123456.0"),
        (1.2345678901234567e+19, "1.2345678901234567e+19"),
        (-1e-300, "-1e-300"),
        (2.2250738585072014e-308, "2.2250738585072014e-308"),
        (0.3333333333333333, "0.3333333333333333"),
        (0.6666666666666666, "0.6666666666666666"),
        (1e+100, "1e+100"),
        (1.1, "1.1"),
        (-3.75, "-3.75"),
        (0.3, "0.3"),
        (4.35, "4.35"),
        (9007199254740992.0, "9007199254740992.0"),
        (9.999999999999999e-05, "9.999999999999999e-05"),
        (1e-07, "1e-07"),
        (1e+23, "1e+23"),
        (-1234.5, "-1234.5"),
        (0.30000000000000004, "0.30000000000000004"),
        (0.00030000000000000003, "0.00030000000000000003"),
    ];
    for &(x, expected) in cases {
        assert_eq!(float_repr(x), expected, "bits {:016x}", x.to_bits());
    }
}

#[test]
fn non_finite_like_python() {
    assert_eq!(float_repr(f64::NAN), "nan");
    assert_eq!(float_repr(f64::INFINITY), "inf");
    assert_eq!(float_repr(f64::NEG_INFINITY), "-inf");
}

/// `tests/data/float_repr.txt`: "<bits as hex> <CPython repr>" per line, for
/// random bit patterns, random magnitudes and short decimals.
#[test]
fn matches_cpython_fixture() {
    let fixture = include_str!("data/float_repr.txt");
    let mut checked = 0;
    for line in fixture.lines() {
        let (bits, expected) = line.split_once(' ').expect("fixture line");
        let bits = u64::from_str_radix(bits, 16).expect("fixture bits");
        assert_eq!(
            float_repr(f64::from_bits(bits)),
            expected,
            "bits {bits:016x}"
        );
        checked += 1;
    }
    assert_eq!(checked, 500);
}

#[test]
fn round_trips_random_bit_patterns() {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..5000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = f64::from_bits(state);
        if !x.is_finite() {
            continue;
        }
        let text = float_repr(x);
        assert_eq!(
            text.parse::<f64>().map(f64::to_bits),
            Ok(x.to_bits()),
            "{text}"
        );
        assert!(text.contains('.') || text.contains('e'), "{text}");
    }
}

#[test]
// The literals are exact binary values on purpose: they sit on decimal rounding ties.
#[allow(clippy::excessive_precision)]
fn ties_at_the_shortest_length_round_like_python() {
    // expected texts are CPython 3.11's repr
    assert_eq!(
        vakra_pytext::float_repr(1249999999999998.25),
        "1249999999999998.2"
    );
    assert_eq!(
        vakra_pytext::float_repr(99.99880981445312),
        "99.99880981445312"
    );
}

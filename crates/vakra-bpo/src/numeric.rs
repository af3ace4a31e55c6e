//! The reference's roundings, which differ by the type of the value rounded: numpy floats round
//! by scaling (`np.round`), Python floats by exact decimal value, and both break ties to even.

/// Python's `round(x)` and numpy's `round(x)` / `.round(0)`: nearest integer, ties to even.
pub fn round_half_even(x: f64) -> f64 {
    x.round_ties_even()
}

/// `round(x)` converted with `int()`, as the reference does for percentages. Saturates outside
/// the `i64` range, which the reference's values never reach.
pub fn round_to_int(x: f64) -> i64 {
    round_half_even(x) as i64
}

/// `round(np.float64(x), 1)`: numpy scales by ten, rounds ties to even and scales back, which
/// can differ from Python's decimal rounding in the last digit.
pub fn np_round1(x: f64) -> f64 {
    round_half_even(x * 10.0) / 10.0
}

/// `round(x, 1)` on a Python float: the exact binary value rounded to one decimal, ties to
/// even; Rust's fixed-precision formatting rounds the same exact value the same way.
pub fn py_round1(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.1}").parse().unwrap_or(x)
}

/// `f"{x:.1f}"`: the exact binary value rounded to one decimal, ties to even.
pub fn format_1f(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    format!("{x:.1}")
}

/// `int(x)` of a float: truncation toward zero. Saturates outside the `i64` range.
pub fn trunc_to_int(x: f64) -> i64 {
    x.trunc() as i64
}

/// Whole days between two instants in nanoseconds, floored as `Timedelta.days` is.
pub fn days_between(later_ns: i64, earlier_ns: i64) -> i64 {
    const DAY_NS: i128 = 86_400_000_000_000;
    (i128::from(later_ns) - i128::from(earlier_ns)).div_euclid(DAY_NS) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_to_even() {
        assert_eq!(round_to_int(0.5), 0);
        assert_eq!(round_to_int(1.5), 2);
        assert_eq!(round_to_int(2.5), 2);
        assert_eq!(round_to_int(-0.5), 0);
    }

    #[test]
    fn python_and_numpy_roundings_differ_where_python_says() {
        // Python: round(0.25, 1) == 0.2, round(0.35, 1) == 0.3 (0.35 is below the tie),
        // round(2.675, 1) == 2.7; numpy: np.round(0.35, 1) == 0.4 (0.35 * 10 == 3.5).
        assert_eq!(py_round1(0.25), 0.2);
        assert_eq!(py_round1(0.35), 0.3);
        assert_eq!(np_round1(0.35), 0.4);
        assert_eq!(format_1f(0.25), "0.2");
        assert_eq!(format_1f(1.45), "1.4");
        assert_eq!(format_1f(80.5), "80.5");
    }

    #[test]
    fn days_floor_like_timedelta() {
        let day = 86_400_000_000_000;
        assert_eq!(days_between(day * 2 - 1, 0), 1);
        assert_eq!(days_between(0, 1), -1);
    }
}

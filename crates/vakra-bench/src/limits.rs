//! Validation of the numeric options, so that every run stays bounded.

use std::time::Duration;

use anyhow::{Result, ensure};

/// The longest time any single option may ask for (one hour).
const MAX_SECONDS: f64 = 3600.0;

/// Turns a `--NAME SECONDS` option into a duration, refusing non-finite, non-positive or
/// over-long values.
pub fn seconds(name: &str, value: f64) -> Result<Duration> {
    ensure!(
        value.is_finite() && value > 0.0 && value <= MAX_SECONDS,
        "--{name} must be a number of seconds in (0, {MAX_SECONDS}], not {value}"
    );
    Ok(Duration::from_secs_f64(value))
}

/// Checks that a `--NAME N` count option lies in `min..=max`.
pub fn count(name: &str, value: u64, min: u64, max: u64) -> Result<()> {
    ensure!(
        (min..=max).contains(&value),
        "--{name} must be between {min} and {max}, not {value}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_bounded() {
        assert_eq!(seconds("d", 1.5).unwrap(), Duration::from_millis(1500));
        assert!(seconds("d", 0.0).is_err());
        assert!(seconds("d", -1.0).is_err());
        assert!(seconds("d", f64::NAN).is_err());
        assert!(seconds("d", f64::INFINITY).is_err());
        assert!(seconds("d", 3601.0).is_err());
    }

    #[test]
    fn counts_are_bounded() {
        assert!(count("n", 1, 1, 10).is_ok());
        assert!(count("n", 0, 1, 10).is_err());
        assert!(count("n", 11, 1, 10).is_err());
    }
}

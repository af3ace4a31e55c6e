//! The `VAKRA_REQUIRE_*` switches: whether a test whose input is missing is skipped or failed.

use std::ffi::OsStr;
use std::io::Write;

/// Whether the switch `name` is on: set to anything but an empty string or `0`.
pub fn required(name: &str) -> bool {
    is_on(std::env::var_os(name).as_deref())
}

fn is_on(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// A test's input is missing (`why`): fails the test when the switch `name` is on, else says
/// `skipped: <test>: <why> (<name>=1 makes this a failure)` on stderr and returns, for the caller
/// to return too. The line is written past the test harness's capture, so that `cargo test`
/// shows what it skipped.
#[track_caller]
pub fn skip_or_fail(name: &str, why: &str) {
    assert!(!required(name), "{name} is set but {why}");
    let thread = std::thread::current();
    let test = thread
        .name()
        .filter(|n| *n != "main")
        .map(|n| format!("{n}: "));
    let line = format!(
        "skipped: {}{why} ({name}=1 makes this a failure)\n",
        test.unwrap_or_default()
    );
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_on_unless_unset_empty_or_zero() {
        for (value, on) in [(None, false), (Some(""), false), (Some("0"), false)] {
            assert_eq!(is_on(value.map(OsStr::new)), on, "{value:?}");
        }
        for value in ["1", "yes", "00", "true"] {
            assert!(is_on(Some(OsStr::new(value))), "{value}");
        }
    }
}

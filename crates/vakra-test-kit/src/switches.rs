//! The `VAKRA_REQUIRE_*` switches and `VAKRA_REF`: whether a test whose input is missing is
//! skipped or failed.

use std::ffi::OsStr;
use std::path::PathBuf;

/// Whether the switch `name` is on: set to anything but an empty string or `0`.
pub fn required(name: &str) -> bool {
    is_on(std::env::var_os(name).as_deref())
}

fn is_on(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// A test's input is missing (`why`): fails the test when the switch `name` is on, else says
/// `skipped: <why>` on stderr and returns, for the caller to return too.
#[track_caller]
pub fn skip_or_fail(name: &str, why: &str) {
    assert!(!required(name), "{name} is set but {why}");
    eprintln!("skipped: {why}");
}

/// The reference checkout that `VAKRA_REF` names, for `what`. Without it: `None`, after
/// [`skip_or_fail`] under `VAKRA_REQUIRE_REF`. A `VAKRA_REF` that is not a folder fails.
#[track_caller]
pub fn reference_checkout(what: &str) -> Option<PathBuf> {
    match std::env::var_os("VAKRA_REF").map(PathBuf::from) {
        Some(path) if path.is_dir() => Some(path),
        Some(path) => panic!("VAKRA_REF={} is not a folder", path.display()),
        None => {
            skip_or_fail(
                "VAKRA_REQUIRE_REF",
                &format!("VAKRA_REF does not name a reference checkout ({what})"),
            );
            None
        }
    }
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

//! Which pandas the reference runs with, and the one value that depends on it.
//!
//! The reference's requirement is unpinned, so an image built today runs pandas 3 (3.1.1);
//! pandas 2 (2.3.3) is the other behaviour agents may have seen. The differences all follow
//! from pandas 3's string dtype: a column of strings (with missing values) is `str` instead of
//! `object`, and its missing values are numpy's `nan` object instead of `None`
//! (docs/compatibility.md lists what agents see change).

use std::fmt;
use std::str::FromStr;

/// The environment variable that chooses the pandas version (`2` or `3`).
pub const PANDAS_ENV: &str = "VAKRA_PANDAS";

/// The pandas release whose semantics capability 1 reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Pandas {
    /// pandas 2.3.3: text columns are `object`, their missing values `None`.
    V2,
    /// pandas 3.1.1 (the default): text columns are `str`, their missing values `nan`.
    #[default]
    V3,
}

impl Pandas {
    /// The exact release the recordings were made with.
    pub fn release(self) -> &'static str {
        match self {
            Pandas::V2 => "2.3.3",
            Pandas::V3 => "3.1.1",
        }
    }

    /// The major version, as the switch spells it.
    pub fn major(self) -> u8 {
        match self {
            Pandas::V2 => 2,
            Pandas::V3 => 3,
        }
    }

    /// The value of [`PANDAS_ENV`], if set (an invalid value is an error, not a silent default).
    pub fn from_env() -> Result<Option<Pandas>, ParsePandasError> {
        match std::env::var(PANDAS_ENV) {
            Ok(v) if v.trim().is_empty() => Ok(None),
            Ok(v) => v.parse().map(Some),
            Err(_) => Ok(None),
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            Pandas::V2 => 0,
            Pandas::V3 => 1,
        }
    }
}

impl fmt::Display for Pandas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.release())
    }
}

/// A pandas version that is neither 2 nor 3.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown pandas version {0:?}: expected 2 or 3")]
pub struct ParsePandasError(String);

impl FromStr for Pandas {
    type Err = ParsePandasError;

    /// `2`, `3`, or a release of either (`2.3.3`, `3.1.1`, `3.0`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        match s.split('.').next() {
            Some("2") => Ok(Pandas::V2),
            Some("3") => Ok(Pandas::V3),
            _ => Err(ParsePandasError(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_switch() {
        assert_eq!("2".parse::<Pandas>(), Ok(Pandas::V2));
        assert_eq!(" 3 ".parse::<Pandas>(), Ok(Pandas::V3));
        assert_eq!("2.3.3".parse::<Pandas>(), Ok(Pandas::V2));
        assert_eq!("3.1.1".parse::<Pandas>(), Ok(Pandas::V3));
        assert_eq!(
            "1".parse::<Pandas>().unwrap_err().to_string(),
            "unknown pandas version \"1\": expected 2 or 3"
        );
        assert!("".parse::<Pandas>().is_err());
        assert_eq!(Pandas::default(), Pandas::V3);
        assert_eq!(Pandas::V2.to_string(), "2.3.3");
    }
}

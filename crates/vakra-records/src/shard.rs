//! Which samples a shard of a run owns: the one rule `vakra eval --shard` (and any other sharded
//! command) follows, so that N shards cover every sample exactly once and on any machine.
//!
//! A sample belongs to shard `I` of `N` when the FNV-1a 64-bit hash of its uuid's UTF-8 bytes,
//! modulo `N`, is `I`. The index is 0-based, as Kubernetes' `JOB_COMPLETION_INDEX` is.

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (`0 <= index < count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// Why a shard could not be read from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("shard {0:?}: expected I/N, e.g. 0/4 (I from 0 to N-1)")]
    Format(String),
    #[error("shard {0:?}: the count N must be at least 1")]
    ZeroCount(String),
    #[error("shard {text:?}: the index must be below the count (0 to {last})")]
    IndexTooLarge { text: String, last: u64 },
}

impl Shard {
    /// Shard `index` of `count`.
    pub fn new(index: u64, count: u64) -> Result<Self, ShardError> {
        let text = format!("{index}/{count}");
        if count == 0 {
            return Err(ShardError::ZeroCount(text));
        }
        if index >= count {
            return Err(ShardError::IndexTooLarge {
                text,
                last: count - 1,
            });
        }
        Ok(Self { index, count })
    }

    pub fn index(&self) -> u64 {
        self.index
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Whether the sample with this uuid belongs to this shard.
    pub fn contains(&self, uuid: &str) -> bool {
        fnv1a64(uuid.as_bytes()) % self.count == self.index
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let format = || ShardError::Format(text.to_owned());
        let (index, count) = text.trim().split_once('/').ok_or_else(format)?;
        let number = |s: &str| {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format());
            }
            s.parse::<u64>().map_err(|_| format())
        };
        let (index, count) = (number(index)?, number(count)?);
        Self::new(index, count).map_err(|e| match e {
            ShardError::ZeroCount(_) => ShardError::ZeroCount(text.to_owned()),
            ShardError::IndexTooLarge { last, .. } => ShardError::IndexTooLarge {
                text: text.to_owned(),
                last,
            },
            other => other,
        })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// FNV-1a, 64 bits.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_test_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn parses_and_prints_i_of_n() {
        let shard: Shard = "2/3".parse().unwrap();
        assert_eq!((shard.index(), shard.count()), (2, 3));
        assert_eq!(shard.to_string(), "2/3");
        assert_eq!(" 0/1 ".parse::<Shard>().unwrap(), Shard::new(0, 1).unwrap());
    }

    #[test]
    fn bad_input_gets_a_clear_error() {
        for text in [
            "", "3", "a/3", "1/b", "-1/3", "1/3/4", "/3", "1/", "+1/3", "1.0/3",
        ] {
            let error = text.parse::<Shard>().unwrap_err();
            assert_eq!(error, ShardError::Format(text.into()), "{text}");
            assert!(error.to_string().contains("expected I/N"), "{error}");
        }
        assert_eq!(
            "0/0".parse::<Shard>().unwrap_err().to_string(),
            "shard \"0/0\": the count N must be at least 1"
        );
        assert_eq!(
            "3/3".parse::<Shard>().unwrap_err().to_string(),
            "shard \"3/3\": the index must be below the count (0 to 2)"
        );
        assert!(matches!(
            "99999999999999999999999/3".parse::<Shard>(),
            Err(ShardError::Format(_))
        ));
    }

    #[test]
    fn every_uuid_is_in_exactly_one_shard() {
        let shards: Vec<Shard> = (0..5).map(|i| Shard::new(i, 5).unwrap()).collect();
        let mut sizes = [0usize; 5];
        for n in 0..1000 {
            let uuid = format!("sample-{n}");
            let owners: Vec<usize> = (0..5).filter(|&i| shards[i].contains(&uuid)).collect();
            assert_eq!(owners.len(), 1, "{uuid}: {owners:?}");
            sizes[owners[0]] += 1;
        }
        // The hash spreads: no shard is empty or holds most of the samples.
        assert!(sizes.iter().all(|&s| (100..=300).contains(&s)), "{sizes:?}");
        assert!(Shard::new(0, 1).unwrap().contains("anything"));
    }
}

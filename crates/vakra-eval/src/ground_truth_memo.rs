//! Ground-truth replays kept for samples that are judged again and again (the RL episodes
//! judge every trajectory of a sample against the same ground truth). A replay is kept only
//! when every call got an answer — a timeout or a broken session is tried again next time —
//! and only up to a total size, past which replays are simply not kept. Only for servers whose
//! answers depend on nothing but the calls (the project's own, whose data is read-only).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::records::Record;
use crate::replayed::Replayed;

/// The default bound on the kept replays' text, in bytes.
pub const DEFAULT_MEMO_BYTES: usize = 256 << 20;

/// Ground-truth replays by sample.
pub struct GroundTruthMemo {
    limit: usize,
    kept: Mutex<Kept>,
}

/// A sample's place: capability, domain and uuid.
type Place = (u8, String, String);

#[derive(Default)]
struct Kept {
    bytes: usize,
    /// The records replayed at each place (a split may repeat a uuid with another record)
    /// and their replays.
    replays: HashMap<Place, Vec<(Record, Arc<Replayed>)>>,
}

impl Default for GroundTruthMemo {
    fn default() -> Self {
        Self::with_limit(DEFAULT_MEMO_BYTES)
    }
}

impl GroundTruthMemo {
    /// A memo keeping at most `limit` bytes of replayed text.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            kept: Mutex::default(),
        }
    }

    /// The kept replay of exactly this record, if any.
    pub(crate) fn get(&self, capability: u8, domain: &str, gt: &Record) -> Option<Arc<Replayed>> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.replays
            .get(&(capability, domain.to_owned(), gt.uuid.clone()))?
            .iter()
            .find(|(record, _)| record == gt)
            .map(|(_, replayed)| Arc::clone(replayed))
    }

    /// Keeps a replay if every call got an answer and it fits.
    pub(crate) fn keep(&self, capability: u8, domain: &str, gt: &Record, replayed: &Arc<Replayed>) {
        if replayed.counts.failures > 0 {
            return;
        }
        let size = replayed.size();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.bytes + size > self.limit {
            return;
        }
        let entries = kept
            .replays
            .entry((capability, domain.to_owned(), gt.uuid.clone()))
            .or_default();
        if entries.iter().any(|(record, _)| record == gt) {
            return;
        }
        entries.push((gt.clone(), Arc::clone(replayed)));
        kept.bytes += size;
    }

    /// How many replays are kept.
    pub fn len(&self) -> usize {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.replays.values().map(Vec::len).sum()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::report::ReplayCounts;

    fn record(uuid: &str, answer: &str) -> Record {
        Record {
            uuid: uuid.into(),
            domain: "d".into(),
            additional_instructions: String::new(),
            turns: vec![crate::records::Turn {
                turn_id: Some(0),
                query: "q".into(),
                answer: Value::String(answer.into()),
                calls: Vec::new(),
                stored_responses: Vec::new(),
                unnamed_calls: 0,
                lists_calls: true,
            }],
            trial: None,
            tokens: None,
            duration_s: None,
        }
    }

    fn replayed(text: &str, failures: usize) -> Arc<Replayed> {
        Arc::new(Replayed {
            calls: vec![Vec::new()],
            responses: vec![vec![Value::String(text.into())]],
            retrieved: Vec::new(),
            problems: Vec::new(),
            counts: ReplayCounts {
                calls: 1,
                failures,
                ..ReplayCounts::default()
            },
        })
    }

    #[test]
    fn a_replay_is_found_only_for_the_same_record() {
        let memo = GroundTruthMemo::default();
        let gt = record("u", "a");
        memo.keep(2, "d", &gt, &replayed("r", 0));
        assert!(memo.get(2, "d", &gt).is_some());
        assert!(memo.get(3, "d", &gt).is_none(), "another capability");
        assert!(memo.get(2, "e", &gt).is_none(), "another domain");
        assert!(
            memo.get(2, "d", &record("u", "b")).is_none(),
            "the same uuid with another record"
        );
        memo.keep(2, "d", &record("u", "b"), &replayed("s", 0));
        assert_eq!(memo.len(), 2);
        let other = memo.get(2, "d", &record("u", "b")).unwrap();
        assert_eq!(other.responses[0][0], "s");
    }

    #[test]
    fn failed_replays_and_replays_past_the_bound_are_not_kept() {
        let memo = GroundTruthMemo::with_limit(10);
        memo.keep(2, "d", &record("u", "a"), &replayed("timeout", 1));
        assert!(
            memo.is_empty(),
            "a replay with a failed call is tried again"
        );
        memo.keep(2, "d", &record("v", "a"), &replayed("12345678", 0));
        memo.keep(2, "d", &record("w", "a"), &replayed("12345678", 0));
        assert_eq!(memo.len(), 1, "the second would pass 10 bytes");
        assert!(memo.get(2, "d", &record("v", "a")).is_some());
    }
}

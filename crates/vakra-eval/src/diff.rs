//! Run against run: two reports of `vakra eval` compared — the samples whose verdict changed,
//! the score deltas per capability and domain, and the error categories that moved. What a
//! researcher looks at after changing an agent.
//!
//! Reports are read leniently (only the fields compared here; unknown fields ignored), so a
//! report of another vakra version compares as long as it has those fields.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::intervals::{Pair, Paired, paired};
use crate::report::percent;

/// Why a report could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("{path}: {message}")]
    Read { path: String, message: String },
    #[error("{path}: not a vakra eval report: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
}

/// The fields of a report that are compared.
#[derive(Debug, Deserialize)]
pub struct ReportView {
    pub leaderboard_score: f64,
    pub capabilities: BTreeMap<String, CapabilityView>,
}

#[derive(Debug, Deserialize)]
pub struct CapabilityView {
    pub score: f64,
    pub samples: Vec<SampleView>,
}

#[derive(Debug, Deserialize)]
pub struct SampleView {
    pub uuid: String,
    pub domain: String,
    pub score: f64,
    /// 2 for capability-4 multi-source samples; 1 when the report does not say.
    #[serde(default = "one")]
    pub weight: u32,
    #[serde(default)]
    pub error_stage: Option<String>,
    #[serde(default)]
    pub decided_by: Option<DecidedView>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct DecidedView {
    pub judge: String,
    pub method: String,
}

/// Reads a report for comparison.
pub fn read_report(path: &Path) -> Result<ReportView, DiffError> {
    let text = crate::records::read_text(path).map_err(|message| DiffError::Read {
        path: path.display().to_string(),
        message,
    })?;
    serde_json::from_str(&text).map_err(|source| DiffError::Parse {
        path: path.display().to_string(),
        source,
    })
}

/// The comparison of report A (before) with report B (after).
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub a: String,
    pub b: String,
    pub leaderboard_score: Delta,
    /// The paired difference of the leaderboard score on the samples both runs scored (the
    /// capabilities' paired differences averaged over four), its interval and tests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    /// Samples in both reports: how many kept, gained and lost their pass.
    pub summary: Summary,
    /// Per capability in either report.
    pub capabilities: BTreeMap<String, CapabilityDiff>,
    /// Samples in both whose verdict changed, failures first (capability, then uuid order).
    pub changed: Vec<ChangedSample>,
    /// Samples scored in one report only.
    pub only_in_a: Vec<SampleKey>,
    pub only_in_b: Vec<SampleKey>,
}

/// A number before and after.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Delta {
    pub a: f64,
    pub b: f64,
    pub delta: f64,
}

impl Delta {
    fn new(a: f64, b: f64) -> Self {
        Self { a, b, delta: b - a }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Failed in A, passed in B.
    pub fixed: usize,
    /// Passed in A, failed in B.
    pub broken: usize,
    pub unchanged: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct CapabilityDiff {
    /// The capability's score (percent; weighted for capability 4); 0 where a report lacks it.
    pub score: Delta,
    pub n_samples: (usize, usize),
    /// The paired difference on the samples both runs scored, its interval and tests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
    /// Percent correct per domain.
    pub domains: BTreeMap<String, Delta>,
    /// Failed samples per error category, in A and B; only categories whose count moved.
    pub errors: BTreeMap<String, Delta>,
}

/// A sample by capability and uuid.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SampleKey {
    pub capability: String,
    pub uuid: String,
}

/// One sample whose verdict changed.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedSample {
    pub capability: String,
    pub uuid: String,
    pub domain: String,
    /// `fixed` (fail → pass) or `broken` (pass → fail).
    pub change: String,
    pub a: Verdict,
    pub b: Verdict,
}

/// A sample's verdict in one report.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub score: f64,
    pub error_stage: Option<String>,
    pub decided_by: Option<DecidedView>,
}

impl Verdict {
    fn of(sample: &SampleView) -> Self {
        Self {
            score: sample.score,
            error_stage: sample.error_stage.clone(),
            decided_by: sample.decided_by.clone(),
        }
    }
}

/// Compares two reports.
pub fn diff(a_name: &str, a: &ReportView, b_name: &str, b: &ReportView) -> Diff {
    let mut out = Diff {
        a: a_name.to_owned(),
        b: b_name.to_owned(),
        leaderboard_score: Delta::new(a.leaderboard_score, b.leaderboard_score),
        paired: None,
        summary: Summary::default(),
        capabilities: BTreeMap::new(),
        changed: Vec::new(),
        only_in_a: Vec::new(),
        only_in_b: Vec::new(),
    };
    let empty = Vec::new();
    let mut all_pairs: Vec<Vec<Pair>> = Vec::new();
    let keys: BTreeSet<&String> = a.capabilities.keys().chain(b.capabilities.keys()).collect();
    for capability in keys {
        let (ca, cb) = (
            a.capabilities.get(capability),
            b.capabilities.get(capability),
        );
        let samples_a = ca.map_or(&empty, |c| &c.samples);
        let samples_b = cb.map_or(&empty, |c| &c.samples);
        let pairs = pairs(samples_a, samples_b);
        let capability_paired = paired(&[&pairs], 1.0);
        all_pairs.push(pairs);
        out.capabilities.insert(
            capability.clone(),
            CapabilityDiff {
                score: Delta::new(ca.map_or(0.0, |c| c.score), cb.map_or(0.0, |c| c.score)),
                n_samples: (samples_a.len(), samples_b.len()),
                paired: capability_paired,
                domains: domain_deltas(samples_a, samples_b),
                errors: error_deltas(samples_a, samples_b),
            },
        );
        let by_uuid_b: BTreeMap<&str, &SampleView> =
            samples_b.iter().map(|s| (s.uuid.as_str(), s)).collect();
        let uuids_a: BTreeSet<&str> = samples_a.iter().map(|s| s.uuid.as_str()).collect();
        for sample in samples_a {
            let key = SampleKey {
                capability: capability.clone(),
                uuid: sample.uuid.clone(),
            };
            let Some(after) = by_uuid_b.get(sample.uuid.as_str()) else {
                out.only_in_a.push(key);
                continue;
            };
            let (passed_a, passed_b) = (sample.score == 1.0, after.score == 1.0);
            if passed_a == passed_b {
                out.summary.unchanged += 1;
                continue;
            }
            if passed_b {
                out.summary.fixed += 1;
            } else {
                out.summary.broken += 1;
            }
            out.changed.push(ChangedSample {
                capability: capability.clone(),
                uuid: sample.uuid.clone(),
                domain: after.domain.clone(),
                change: if passed_b { "fixed" } else { "broken" }.into(),
                a: Verdict::of(sample),
                b: Verdict::of(after),
            });
        }
        out.only_in_b.extend(
            samples_b
                .iter()
                .filter(|s| !uuids_a.contains(s.uuid.as_str()))
                .map(|s| SampleKey {
                    capability: capability.clone(),
                    uuid: s.uuid.clone(),
                }),
        );
    }
    let groups: Vec<&[Pair]> = all_pairs.iter().map(Vec::as_slice).collect();
    out.paired = paired(&groups, 4.0);
    out.changed.sort_by(|x, y| {
        (x.change != "broken", &x.capability, &x.uuid).cmp(&(
            y.change != "broken",
            &y.capability,
            &y.uuid,
        ))
    });
    out
}

/// The samples of one capability that both runs scored, in A's order: each sample's weight and
/// its score in each run (the mean of its trials when it has several).
fn pairs(a: &[SampleView], b: &[SampleView]) -> Vec<Pair> {
    let ((order, sums_a), (_, sums_b)) = (trial_sums(a), trial_sums(b));
    order
        .into_iter()
        .filter_map(|uuid| {
            let (sum_a, n_a, weight) = sums_a[uuid];
            let (sum_b, n_b, _) = sums_b.get(uuid)?;
            Some(Pair {
                weight: f64::from(weight),
                a: sum_a / n_a,
                b: sum_b / n_b,
            })
        })
        .collect()
}

/// Per sample: its summed score, its number of trials and its weight.
type TrialSums<'a> = BTreeMap<&'a str, (f64, f64, u32)>;

/// Each sample's [`TrialSums`], and the samples in first-seen order.
fn trial_sums(samples: &[SampleView]) -> (Vec<&str>, TrialSums<'_>) {
    let mut order: Vec<&str> = Vec::new();
    let mut sums: BTreeMap<&str, (f64, f64, u32)> = BTreeMap::new();
    for s in samples {
        let entry = sums.entry(&s.uuid).or_insert_with(|| {
            order.push(&s.uuid);
            (0.0, 0.0, s.weight)
        });
        entry.0 += s.score;
        entry.1 += 1.0;
    }
    (order, sums)
}

/// Percent correct per domain, before and after.
fn domain_deltas(a: &[SampleView], b: &[SampleView]) -> BTreeMap<String, Delta> {
    let tally = |samples: &[SampleView]| {
        let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for s in samples {
            let entry = counts.entry(s.domain.clone()).or_default();
            entry.0 += usize::from(s.score == 1.0);
            entry.1 += 1;
        }
        counts
    };
    let (ta, tb) = (tally(a), tally(b));
    let domains: BTreeSet<&String> = ta.keys().chain(tb.keys()).collect();
    domains
        .into_iter()
        .map(|d| {
            let score = |t: &BTreeMap<String, (usize, usize)>| {
                t.get(d)
                    .map_or(0.0, |(ok, n)| percent(*ok as f64, *n as f64))
            };
            (d.clone(), Delta::new(score(&ta), score(&tb)))
        })
        .collect()
}

/// Failed samples per error category, before and after; categories whose count moved.
fn error_deltas(a: &[SampleView], b: &[SampleView]) -> BTreeMap<String, Delta> {
    let tally = |samples: &[SampleView]| {
        let mut counts: BTreeMap<String, f64> = BTreeMap::new();
        for stage in samples.iter().filter_map(|s| s.error_stage.as_ref()) {
            *counts.entry(stage.clone()).or_default() += 1.0;
        }
        counts
    };
    let (ta, tb) = (tally(a), tally(b));
    let stages: BTreeSet<&String> = ta.keys().chain(tb.keys()).collect();
    stages
        .into_iter()
        .map(|s| {
            let count = |t: &BTreeMap<String, f64>| t.get(s).copied().unwrap_or(0.0);
            (s.clone(), Delta::new(count(&ta), count(&tb)))
        })
        .filter(|(_, d)| d.delta != 0.0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(samples: serde_json::Value) -> ReportView {
        serde_json::from_value(json!({"leaderboard_score": 10.0, "capabilities": {"2": {
            "score": 50.0, "samples": samples, "unknown": "ignored"}}, "other": 1}))
        .unwrap()
    }

    #[test]
    fn verdicts_domains_and_error_categories_move() {
        let a = report(json!([
            {"uuid": "u1", "domain": "d1", "score": 1.0},
            {"uuid": "u2", "domain": "d1", "score": 0.0, "error_stage": "tool_selection"},
            {"uuid": "u3", "domain": "d2", "score": 0.0, "error_stage": "final_answer"},
            {"uuid": "gone", "domain": "d2", "score": 1.0},
        ]));
        let b = report(json!([
            {"uuid": "u1", "domain": "d1", "score": 0.0, "error_stage": "argument_values",
             "decided_by": {"judge": "answer", "method": "deterministic"}},
            {"uuid": "u2", "domain": "d1", "score": 1.0},
            {"uuid": "u3", "domain": "d2", "score": 0.0, "error_stage": "final_answer"},
            {"uuid": "new", "domain": "d3", "score": 1.0},
        ]));
        let d = diff("A", &a, "B", &b);
        assert_eq!(
            d.summary,
            Summary {
                fixed: 1,
                broken: 1,
                unchanged: 1
            }
        );
        let uuids: Vec<(&str, &str)> = d
            .changed
            .iter()
            .map(|c| (c.uuid.as_str(), c.change.as_str()))
            .collect();
        assert_eq!(uuids, [("u1", "broken"), ("u2", "fixed")]);
        assert_eq!(
            d.changed[0].b.error_stage.as_deref(),
            Some("argument_values")
        );
        let c = &d.capabilities["2"];
        assert_eq!(c.domains["d1"], Delta::new(50.0, 50.0));
        assert_eq!(c.domains["d2"], Delta::new(50.0, 0.0));
        assert_eq!(c.domains["d3"], Delta::new(0.0, 100.0));
        let moved: Vec<&String> = c.errors.keys().collect();
        assert_eq!(moved, ["argument_values", "tool_selection"]);
        assert_eq!(c.errors["tool_selection"], Delta::new(1.0, 0.0));
        assert_eq!(d.only_in_a[0].uuid, "gone");
        assert_eq!(d.only_in_b[0].uuid, "new");
        // Paired on u1–u3: one broken, one fixed, one unchanged.
        let p = c.paired.as_ref().unwrap();
        assert_eq!((p.n_pairs, p.difference), (3, 0.0));
        let m = p.mcnemar.unwrap();
        assert_eq!((m.fixed, m.broken, m.p), (1, 1, 1.0));
        let board = d.paired.as_ref().unwrap();
        assert_eq!((board.n_pairs, board.difference), (3, 0.0));
    }

    #[test]
    fn trials_are_averaged_per_sample_and_weights_kept() {
        let a = report(json!([
            {"uuid": "u1", "domain": "d", "score": 0.0, "weight": 2},
            {"uuid": "u1", "domain": "d", "score": 0.0, "weight": 2},
            {"uuid": "u2", "domain": "d", "score": 1.0},
            {"uuid": "u2", "domain": "d", "score": 1.0},
        ]));
        let b = report(json!([
            {"uuid": "u1", "domain": "d", "score": 1.0, "weight": 2},
            {"uuid": "u1", "domain": "d", "score": 0.0, "weight": 2},
            {"uuid": "u2", "domain": "d", "score": 1.0},
            {"uuid": "u2", "domain": "d", "score": 1.0},
        ]));
        let p = diff("A", &a, "B", &b).capabilities["2"]
            .paired
            .clone()
            .unwrap();
        // u1 moves by 50 points with weight 2, u2 by 0 with weight 1: 100 / 3.
        assert_eq!(p.n_pairs, 2);
        assert!((p.difference - 100.0 / 3.0).abs() < 1e-9, "{p:?}");
        assert_eq!(p.mcnemar, None, "scores of 0.5 are no pass/fail");
        // The leaderboard averages over four capabilities.
        let board = diff("A", &a, "B", &b).paired.unwrap();
        assert!((board.difference - 100.0 / 12.0).abs() < 1e-9, "{board:?}");
    }

    #[test]
    fn a_file_that_is_not_a_report_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        std::fs::write(&path, "[1, 2]").unwrap();
        let error = read_report(&path).unwrap_err().to_string();
        assert!(error.contains("not a vakra eval report"), "{error}");
        let error = read_report(&dir.path().join("missing.json"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("missing.json"), "{error}");
    }
}

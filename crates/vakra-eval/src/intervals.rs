//! Error bars and significance (formulas in docs/evaluator.md, "Intervals and significance"):
//! seeded percentile-bootstrap 95 % intervals of a score over its samples (and over trials too,
//! when samples have several), the paired difference of two runs with its bootstrap interval and
//! p-value, McNemar's exact test on the samples whose verdict changed, and how many samples a
//! difference of one point would need. Everything is reproducible: the resampling generator is
//! SplitMix64 with a fixed seed, and samples are taken in report order.

use serde::{Deserialize, Serialize};

/// Resamples of every bootstrap.
pub const RESAMPLES: usize = 2000;
/// The generator's seed.
pub const SEED: u64 = 0x5641_4b52_4132_3032;
/// The intervals' coverage.
pub const LEVEL: f64 = 0.95;
/// z for a two-sided 95 % interval.
const Z_95: f64 = 1.959_963_984_540_054;
/// z for 80 % power.
const Z_80: f64 = 0.841_621_233_572_914_3;

/// A two-sided percentile interval, in score points (percent).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

/// How the report's intervals were computed, so that a reader can reproduce them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// `percentile bootstrap`.
    pub method: String,
    pub level: f64,
    pub resamples: usize,
    pub seed: u64,
}

impl Default for Method {
    fn default() -> Self {
        Self {
            method: "percentile bootstrap".into(),
            level: LEVEL,
            resamples: RESAMPLES,
            seed: SEED,
        }
    }
}

/// A score's intervals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScoreInterval {
    /// Over samples (a sample's trials kept together).
    pub samples: Interval,
    /// Over samples and, within each, over its trials: when samples have several trials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<Interval>,
}

/// Both intervals of [`score_interval`]; `None` without a scored sample.
pub fn score_intervals(groups: &[&[Unit]], divisor: f64) -> Option<ScoreInterval> {
    Some(ScoreInterval {
        samples: score_interval(groups, divisor, false)?,
        trials: score_interval(groups, divisor, true),
    })
}

/// One ground-truth sample: its weight and the score (0 or 1) of each of its trials.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub weight: f64,
    pub trials: Vec<f64>,
}

/// SplitMix64: small, fast and fully specified, so that intervals are the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// Σ weight × score / Σ weight over the units' trials, in percent (the capability score).
fn weighted(units: &[Unit]) -> Option<(f64, f64)> {
    let (mut sum, mut weights) = (0.0, 0.0);
    for unit in units {
        for score in &unit.trials {
            sum += unit.weight * score;
            weights += unit.weight;
        }
    }
    (weights > 0.0).then_some((sum, weights))
}

/// One bootstrap replicate of a group: its units drawn with replacement (and, with `trials`,
/// each drawn unit's trials drawn with replacement too); Σ w·s and Σ w.
fn replicate(units: &[Unit], trials: bool, rng: &mut Rng) -> (f64, f64) {
    let (mut sum, mut weights) = (0.0, 0.0);
    for _ in 0..units.len() {
        let unit = &units[rng.below(units.len())];
        let n = unit.trials.len();
        for i in 0..n {
            let score = if trials {
                unit.trials[rng.below(n)]
            } else {
                unit.trials[i]
            };
            sum += unit.weight * score;
            weights += unit.weight;
        }
    }
    (sum, weights)
}

/// The percentile interval of `values` (sorted here).
fn percentile(mut values: Vec<f64>) -> Interval {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    let tail = (1.0 - LEVEL) / 2.0;
    Interval {
        low: at(tail),
        high: at(1.0 - tail),
    }
}

/// The interval of the mean of the groups' scores over `divisor` groups (a capability: one group,
/// divisor 1; the leaderboard: the evaluated capabilities, divisor 4, the others counting 0).
/// Groups are resampled independently (stratified); with `trials`, trials within samples too.
/// `None` when no group has a scored sample, or with `trials` when no sample has two trials.
pub fn score_interval(groups: &[&[Unit]], divisor: f64, trials: bool) -> Option<Interval> {
    if groups.iter().all(|g| weighted(g).is_none()) {
        return None;
    }
    if trials && !groups.iter().any(|g| g.iter().any(|u| u.trials.len() > 1)) {
        return None;
    }
    let mut rng = Rng(SEED);
    let values = (0..RESAMPLES)
        .map(|_| {
            let total: f64 = groups
                .iter()
                .map(|g| {
                    let (sum, weights) = replicate(g, trials, &mut rng);
                    if weights > 0.0 {
                        100.0 * sum / weights
                    } else {
                        0.0
                    }
                })
                .sum();
            total / divisor
        })
        .collect();
    Some(percentile(values))
}

/// How many samples a 95 % interval of ±1 point needs at this spread: ⌈(z₀.₉₇₅ · σ)²⌉ with σ the
/// weighted standard deviation of the samples' scores in points (trials averaged per sample).
/// `None` when every sample scored the same (σ = 0).
pub fn samples_for_one_point(units: &[Unit]) -> Option<u64> {
    let scores: Vec<(f64, f64)> = units
        .iter()
        .filter(|u| !u.trials.is_empty())
        .map(|u| {
            let mean = u.trials.iter().sum::<f64>() / u.trials.len() as f64;
            (u.weight, 100.0 * mean)
        })
        .collect();
    needed(&scores, Z_95)
}

/// ⌈(z · σ / 1 point)²⌉ for the weighted standard deviation σ of `(weight, value)` pairs.
fn needed(values: &[(f64, f64)], z: f64) -> Option<u64> {
    let weights: f64 = values.iter().map(|(w, _)| w).sum();
    if weights <= 0.0 {
        return None;
    }
    let mean = values.iter().map(|(w, v)| w * v).sum::<f64>() / weights;
    let variance = values
        .iter()
        .map(|(w, v)| w * (v - mean).powi(2))
        .sum::<f64>()
        / weights;
    (variance > 1e-12).then(|| (z * variance.sqrt()).powi(2).ceil() as u64)
}

/// One sample in both runs: its weight and its score in each (trials averaged).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub weight: f64,
    pub a: f64,
    pub b: f64,
}

/// The paired comparison of two runs on the samples they share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// Samples in both runs.
    pub n_pairs: usize,
    /// B − A in points: the weighted mean of the per-sample differences (per capability), or the
    /// mean of the capabilities' differences over four (the leaderboard).
    pub difference: f64,
    /// Its 95 % percentile-bootstrap interval (pairs resampled, per capability).
    pub interval: Interval,
    /// Two-sided p of the paired bootstrap: the share of centred replicates at least as far from
    /// 0 as the difference, (k + 1) / (R + 1).
    pub bootstrap_p: f64,
    /// McNemar's exact test on the samples whose pass/fail changed; absent when some sample has
    /// a score other than 0 or 1 (several trials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcnemar: Option<McNemar>,
    /// Samples a paired comparison needs to find a difference of 1 point with 80 % power at the
    /// 5 % level, at the spread of these differences: ⌈((z₀.₉₇₅ + z₀.₈) · σ_d)²⌉. Absent when no
    /// sample changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_for_one_point: Option<u64>,
}

/// McNemar's exact (binomial) test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct McNemar {
    /// Failed in A, passed in B.
    pub fixed: usize,
    /// Passed in A, failed in B.
    pub broken: usize,
    /// Two-sided: min(1, 2 · P(X ≤ min(fixed, broken))), X ~ Binomial(fixed + broken, ½).
    pub p: f64,
}

/// McNemar's exact test for `fixed` and `broken` discordant pairs.
pub fn mcnemar(fixed: usize, broken: usize) -> McNemar {
    let n = fixed + broken;
    let k = fixed.min(broken);
    // ln C(n, i) − n ln 2, summed for i = 0..=k without overflow.
    let mut log_choose = 0.0f64;
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            log_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (log_choose - n as f64 * std::f64::consts::LN_2).exp();
    }
    McNemar {
        fixed,
        broken,
        p: (2.0 * tail).min(1.0),
    }
}

/// The paired comparison of groups of pairs (capabilities), the difference being the mean of the
/// groups' weighted mean differences over `divisor`. `None` without any pair.
pub fn paired(groups: &[&[Pair]], divisor: f64) -> Option<Paired> {
    let n_pairs: usize = groups.iter().map(|g| g.len()).sum();
    if n_pairs == 0 {
        return None;
    }
    let mean = |pairs: &mut dyn Iterator<Item = &Pair>| {
        let (mut sum, mut weights) = (0.0, 0.0);
        for p in pairs {
            sum += p.weight * 100.0 * (p.b - p.a);
            weights += p.weight;
        }
        if weights > 0.0 { sum / weights } else { 0.0 }
    };
    let difference = groups.iter().map(|g| mean(&mut g.iter())).sum::<f64>() / divisor;
    let mut rng = Rng(SEED);
    let replicates: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            groups
                .iter()
                .map(|g| mean(&mut (0..g.len()).map(|_| &g[rng.below(g.len())])))
                .sum::<f64>()
                / divisor
        })
        .collect();
    let far = replicates
        .iter()
        .filter(|r| (*r - difference).abs() >= difference.abs() - 1e-12)
        .count();
    let bootstrap_p = (far + 1) as f64 / (RESAMPLES + 1) as f64;
    let all: Vec<&Pair> = groups.iter().flat_map(|g| g.iter()).collect();
    let binary = all
        .iter()
        .all(|p| [p.a, p.b].iter().all(|s| *s == 0.0 || *s == 1.0));
    let mcnemar_test = binary.then(|| {
        let fixed = all.iter().filter(|p| p.a == 0.0 && p.b == 1.0).count();
        let broken = all.iter().filter(|p| p.a == 1.0 && p.b == 0.0).count();
        mcnemar(fixed, broken)
    });
    let differences: Vec<(f64, f64)> = all
        .iter()
        .map(|p| (p.weight, 100.0 * (p.b - p.a)))
        .collect();
    Some(Paired {
        n_pairs,
        difference,
        interval: percentile(replicates),
        bootstrap_p,
        mcnemar: mcnemar_test,
        samples_for_one_point: needed(&differences, Z_95 + Z_80),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(passed: usize, failed: usize) -> Vec<Unit> {
        (0..passed + failed)
            .map(|i| Unit {
                weight: 1.0,
                trials: vec![if i < passed { 1.0 } else { 0.0 }],
            })
            .collect()
    }

    #[test]
    fn a_proportions_interval_is_near_the_normal_one_and_reproducible() {
        // 60 of 100: the normal approximation gives 60 ± 1.96 · √(0.24 / 100) · 100 = ±9.6.
        let u = units(60, 40);
        let i = score_interval(&[&u], 1.0, false).unwrap();
        assert!(
            (i.low - 50.4).abs() < 1.6 && (i.high - 69.6).abs() < 1.6,
            "{i:?}"
        );
        assert_eq!(score_interval(&[&u], 1.0, false), Some(i), "seeded");
        // A larger sample narrows it.
        let big = units(600, 400);
        let j = score_interval(&[&big], 1.0, false).unwrap();
        assert!(j.high - j.low < (i.high - i.low) / 2.5, "{j:?}");
        // No trials: no trial interval; all passed: a point.
        assert_eq!(score_interval(&[&u], 1.0, true), None);
        let all = units(5, 0);
        let point = score_interval(&[&all], 1.0, false).unwrap();
        assert_eq!((point.low, point.high), (100.0, 100.0));
        assert_eq!(score_interval(&[&[]], 1.0, false), None);
    }

    #[test]
    fn the_leaderboard_interval_counts_missing_capabilities_as_zero() {
        let u = units(50, 50);
        let one = score_interval(&[&u], 1.0, false).unwrap();
        let board = score_interval(&[&u], 4.0, false).unwrap();
        assert!(
            (board.low - one.low / 4.0).abs() < 1e-9,
            "{board:?} {one:?}"
        );
    }

    #[test]
    fn resampling_trials_widens_the_interval_of_noisy_samples() {
        // Every sample passes half its trials: over samples alone the score never moves.
        let u: Vec<Unit> = (0..40)
            .map(|_| Unit {
                weight: 1.0,
                trials: vec![1.0, 0.0, 1.0, 0.0],
            })
            .collect();
        let samples = score_interval(&[&u], 1.0, false).unwrap();
        assert_eq!((samples.low, samples.high), (50.0, 50.0));
        let trials = score_interval(&[&u], 1.0, true).unwrap();
        assert!(trials.low < 45.0 && trials.high > 55.0, "{trials:?}");
    }

    #[test]
    fn samples_for_one_point_follow_the_spread() {
        // σ = 50 points at 50 %: ⌈(1.96 · 50)²⌉ = 9604.
        assert_eq!(samples_for_one_point(&units(10, 10)), Some(9604));
        assert_eq!(samples_for_one_point(&units(10, 0)), None);
    }

    #[test]
    fn mcnemar_is_the_exact_binomial_test() {
        // 10 fixed, 2 broken: 2 · (C(12,0) + C(12,1) + C(12,2)) / 2¹² = 2 · 79 / 4096.
        let m = mcnemar(10, 2);
        assert!((m.p - 158.0 / 4096.0).abs() < 1e-12, "{m:?}");
        assert_eq!(mcnemar(0, 0).p, 1.0);
        assert_eq!(mcnemar(3, 3).p, 1.0);
        // Large counts stay finite: 600 vs 400 is far beyond 5 %.
        let big = mcnemar(600, 400);
        assert!(big.p > 0.0 && big.p < 1e-9, "{big:?}");
    }

    #[test]
    fn a_paired_difference_has_an_interval_and_tests() {
        let pair = |a: f64, b: f64| Pair { weight: 1.0, a, b };
        let mut pairs = vec![pair(1.0, 1.0); 50];
        pairs.extend(vec![pair(0.0, 1.0); 12]);
        pairs.extend(vec![pair(1.0, 0.0); 2]);
        pairs.extend(vec![pair(0.0, 0.0); 36]);
        let p = paired(&[&pairs], 1.0).unwrap();
        assert_eq!(p.n_pairs, 100);
        assert!((p.difference - 10.0).abs() < 1e-9);
        assert!(
            p.interval.low > 0.0 && p.interval.high > p.difference,
            "{p:?}"
        );
        assert!(p.bootstrap_p < 0.05, "{p:?}");
        let m = p.mcnemar.unwrap();
        assert_eq!((m.fixed, m.broken), (12, 2));
        assert!(m.p < 0.05);
        assert!(p.samples_for_one_point.unwrap() > 1000);
        // No change: the difference is 0 and nothing is significant.
        let same = vec![pair(1.0, 1.0), pair(0.0, 0.0)];
        let q = paired(&[&same], 1.0).unwrap();
        assert_eq!((q.difference, q.bootstrap_p), (0.0, 1.0));
        assert_eq!(q.samples_for_one_point, None);
        // Trials averaged: no McNemar.
        let r = paired(&[&[pair(0.5, 1.0)]], 1.0).unwrap();
        assert_eq!(r.mcnemar, None);
        assert_eq!(paired(&[&[]], 1.0), None);
    }
}

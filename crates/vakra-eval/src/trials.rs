//! Repeated trials and what a run cost. `vakra run --trials K` writes every sample K times
//! (each record's `trial`); the report then gives, per capability, τ²-bench's pass^k — the
//! chance that all of k trials of a sample succeed, C(c, k) / C(n, k) averaged over samples
//! with n trials of which c succeeded — and pass@k, the chance that at least one does,
//! 1 − C(n − c, k) / C(n, k). A sample with fewer records than the most trials of its
//! capability counts its missing trials as failures. Token counts come from the records'
//! `usage` (written by `vakra run`), and cost from prices per million tokens.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use vakra_records::Tokens;

/// The time the run spent on samples (the records' `duration_s`): how many records said, and
/// their sum and mean in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub samples: usize,
    pub total_s: f64,
    pub mean_s: f64,
}

impl Latency {
    pub fn add(&mut self, other: Latency) {
        self.samples += other.samples;
        self.total_s += other.total_s;
        self.mean_s = if self.samples > 0 {
            self.total_s / self.samples as f64
        } else {
            0.0
        };
    }

    /// One record's seconds.
    pub fn of(seconds: f64) -> Self {
        Self {
            samples: 1,
            total_s: seconds,
            mean_s: seconds,
        }
    }

    /// The sum of `latencies`, or `None` when there are none.
    pub fn total(latencies: impl Iterator<Item = Latency>) -> Option<Latency> {
        latencies.reduce(|mut all, l| {
            all.add(l);
            all
        })
    }
}

/// pass^k and pass@k of one capability, for k = 1 … the most trials.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TrialsReport {
    /// The most trials of any sample.
    pub trials: usize,
    /// k → pass^k, in percent.
    pub pass_hat_k: BTreeMap<usize, f64>,
    /// k → pass@k, in percent.
    pub pass_at_k: BTreeMap<usize, f64>,
}

/// From each sample's successes (one bool per trial it has), or `None` when no sample has
/// more than one trial.
pub fn trials_report(samples: &[Vec<bool>]) -> Option<TrialsReport> {
    let trials = samples.iter().map(Vec::len).max()?;
    if trials < 2 {
        return None;
    }
    let mut pass_hat_k = BTreeMap::new();
    let mut pass_at_k = BTreeMap::new();
    for k in 1..=trials {
        let (mut hat, mut at) = (0.0, 0.0);
        for outcomes in samples {
            let c = outcomes.iter().filter(|ok| **ok).count();
            let all = choose(trials, k);
            hat += choose(c, k) / all;
            at += 1.0 - choose(trials - c, k) / all;
        }
        let n = samples.len() as f64;
        pass_hat_k.insert(k, 100.0 * hat / n);
        pass_at_k.insert(k, 100.0 * at / n);
    }
    Some(TrialsReport {
        trials,
        pass_hat_k,
        pass_at_k,
    })
}

/// C(n, k) as a float (0 when k > n).
fn choose(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_hat_k_and_pass_at_k_follow_their_definitions() {
        // Sample A: 2 of 4 trials succeed; sample B: 4 of 4; sample C: only 3 records, 1 success.
        let report = trials_report(&[
            vec![true, false, true, false],
            vec![true; 4],
            vec![false, true, false],
        ])
        .unwrap();
        assert_eq!(report.trials, 4);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // k = 1: mean success rate over 4 trials each: (2 + 4 + 1) / 12.
        assert!(close(report.pass_hat_k[&1], 100.0 * 7.0 / 12.0));
        assert!(close(report.pass_at_k[&1], 100.0 * 7.0 / 12.0));
        // k = 2: pass^2 = (C(2,2) + C(4,2) + C(1,2)) / C(4,2) / 3 = (1/6 + 1 + 0) / 3.
        assert!(close(
            report.pass_hat_k[&2],
            100.0 * (1.0 / 6.0 + 1.0) / 3.0
        ));
        // pass@2 = 1 − C(4−c, 2)/6: A 1 − 1/6, B 1, C 1 − 3/6.
        assert!(close(
            report.pass_at_k[&2],
            100.0 * (5.0 / 6.0 + 1.0 + 0.5) / 3.0
        ));
        assert!(close(report.pass_hat_k[&4], 100.0 / 3.0));
        assert!(close(report.pass_at_k[&4], 100.0));
        assert_eq!(trials_report(&[vec![true], vec![false]]), None);
        assert_eq!(trials_report(&[]), None);
    }

    #[test]
    fn cost_is_per_million_tokens() {
        let tokens = Tokens {
            input_tokens: 2_000_000,
            output_tokens: 500_000,
        };
        assert!((tokens.cost((0.5, 2.0)) - 2.0).abs() < 1e-12);
    }
}

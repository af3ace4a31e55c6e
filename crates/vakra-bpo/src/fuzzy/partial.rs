//! rapidfuzz's `partial_ratio`: the best `ratio` of the shorter string against the windows of
//! the longer one (full-length windows, and shorter ones at both ends).
//!
//! rapidfuzz finds the best full-length window by a pruned bisection that its fuzz tests check
//! against an exhaustive search; the minimum distance is what matters, so it is found here
//! exhaustively, skipping windows whose character counts cannot beat the best so far. This keeps
//! a huge query linear in its length. The bisection is kept in the tests as the reference.

use super::lcs::Pattern;
use super::{norm_sim_to_norm_dist, normalized_similarity};

/// `fuzz.partial_ratio(s1, s2, score_cutoff=...)`.
pub(super) fn partial_ratio(s1: &[u32], s2: &[u32], score_cutoff: f64) -> f64 {
    if s1.len() > s2.len() {
        return partial_ratio(s2, s1, score_cutoff);
    }
    if score_cutoff > 100.0 {
        return 0.0;
    }
    if s1.is_empty() || s2.is_empty() {
        return if s1.len() == s2.len() { 100.0 } else { 0.0 };
    }
    let score = partial_ratio_impl(s1, s2, score_cutoff);
    if score != 100.0 && s1.len() == s2.len() {
        let score2 = partial_ratio_impl(s2, s1, score_cutoff.max(score));
        if score2 > score {
            return score2;
        }
    }
    score
}

/// The distinct characters of the needle and how often each occurs, with a direct index for
/// ASCII.
struct Needle {
    chars: Vec<(u32, u32)>,
    ascii: [u8; 128],
}

impl Needle {
    fn new(s1: &[u32]) -> Self {
        let mut sorted = s1.to_vec();
        sorted.sort_unstable();
        let mut chars: Vec<(u32, u32)> = Vec::new();
        for c in sorted {
            match chars.last_mut() {
                Some((last, n)) if *last == c => *n += 1,
                _ => chars.push((c, 1)),
            }
        }
        let mut ascii = [0u8; 128];
        for (i, (c, _)) in chars.iter().enumerate() {
            if *c < 128 && i < usize::from(u8::MAX) {
                ascii[*c as usize] = i as u8 + 1;
            }
        }
        Self { chars, ascii }
    }

    fn index(&self, c: u32) -> Option<usize> {
        if c < 128 && self.chars.len() < usize::from(u8::MAX) {
            return self.ascii[c as usize].checked_sub(1).map(usize::from);
        }
        self.chars.binary_search_by_key(&c, |(k, _)| *k).ok()
    }

    fn contains(&self, c: u32) -> bool {
        self.index(c).is_some()
    }
}

/// The smallest Indel distance between `s1` and a window `s2[i..i + len(s1)]`, for
/// `i < len(s2) - len(s1)` (the last full window belongs to the suffix windows). A window's
/// common subsequence cannot exceed the characters it shares with `s1` counted with
/// multiplicity, so windows whose count is no better than the best so far are skipped.
fn min_window_distance(pattern: &Pattern, needle: &Needle, s1: &[u32], s2: &[u32]) -> usize {
    let len1 = s1.len();
    let windows = s2.len() - len1;
    let mut have = vec![0u32; needle.chars.len()];
    let mut bound = 0usize;
    for &c in &s2[..len1] {
        if let Some(i) = needle.index(c) {
            bound += usize::from(have[i] < needle.chars[i].1);
            have[i] += 1;
        }
    }
    let mut best_lcs = 0usize;
    let mut evaluated = false;
    for i in 0..windows {
        if i > 0 {
            if let Some(out) = needle.index(s2[i - 1]) {
                have[out] -= 1;
                bound -= usize::from(have[out] < needle.chars[out].1);
            }
            if let Some(j) = needle.index(s2[i + len1 - 1]) {
                bound += usize::from(have[j] < needle.chars[j].1);
                have[j] += 1;
            }
        }
        if bound > best_lcs || !evaluated {
            evaluated = true;
            best_lcs = best_lcs.max(pattern.lcs(&s2[i..i + len1]));
            if best_lcs == len1 {
                break;
            }
        }
    }
    2 * len1 - 2 * best_lcs
}

/// rapidfuzz's `partial_ratio_impl` for `len(s1) <= len(s2)`.
fn partial_ratio_impl(s1: &[u32], s2: &[u32], mut score_cutoff: f64) -> f64 {
    let (len1, len2) = (s1.len(), s2.len());
    let pattern = Pattern::new(s1);
    let needle = Needle::new(s1);
    let mut best = 0.0f64;
    if len2 > len1 {
        let maximum = len1 * 2;
        let cutoff_dist =
            (maximum as f64 * norm_sim_to_norm_dist(score_cutoff / 100.0)).ceil() as usize;
        let best_dist = min_window_distance(&pattern, &needle, s1, s2);
        if best_dist < cutoff_dist {
            if best_dist == 0 {
                return 100.0;
            }
            let score = (1.0 - best_dist as f64 / maximum as f64) * 100.0;
            if score >= score_cutoff {
                score_cutoff = score;
                best = score;
            }
        }
    }
    let prefixes = (1..len1)
        .filter(|&i| needle.contains(s2[i - 1]))
        .map(|i| &s2[..i]);
    let suffixes = (len2 - len1..len2)
        .filter(|&i| needle.contains(s2[i]))
        .map(|i| &s2[i..]);
    for window in prefixes.chain(suffixes) {
        let r = normalized_similarity(
            len1 + window.len(),
            pattern.indel_distance(window),
            score_cutoff / 100.0,
        ) * 100.0;
        if r > best {
            score_cutoff = r;
            best = r;
            if best == 100.0 {
                return best;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::{Needle, Pattern, min_window_distance};
    use crate::fuzzy::norm_sim_to_norm_dist;

    /// rapidfuzz's pruned bisection over the full-length windows, as in its C++ source: the
    /// best distance below the cutoff, or `usize::MAX`.
    fn bisection(s1: &[u32], s2: &[u32], score_cutoff: f64) -> usize {
        let (len1, len2) = (s1.len(), s2.len());
        let pattern = Pattern::new(s1);
        let maximum = len1 * 2;
        let mut cutoff_dist =
            (maximum as f64 * norm_sim_to_norm_dist(score_cutoff / 100.0)).ceil() as usize;
        let mut best_dist = usize::MAX;
        let mut scores = vec![usize::MAX; len2 - len1];
        let mut windows = vec![(0usize, len2 - len1 - 1)];
        while !windows.is_empty() {
            let mut next = Vec::new();
            for &(first, second) in &windows {
                for pos in [first, second] {
                    if scores[pos] == usize::MAX {
                        scores[pos] = pattern.indel_distance(&s2[pos..pos + len1]);
                        if scores[pos] < cutoff_dist {
                            cutoff_dist = scores[pos];
                            best_dist = scores[pos];
                            if best_dist == 0 {
                                return 0;
                            }
                        }
                    }
                }
                let cell_diff = second - first;
                if cell_diff == 1 {
                    continue;
                }
                let known_edits = scores[first].abs_diff(scores[second]);
                let max_improvement = (cell_diff - known_edits / 2) / 2 * 2;
                let min_score = scores[first].min(scores[second]) as i64 - max_improvement as i64;
                if min_score < cutoff_dist as i64 {
                    let center = cell_diff / 2;
                    next.push((first, first + center));
                    next.push((first + center, second));
                }
            }
            windows = next;
        }
        best_dist
    }

    #[test]
    fn exhaustive_search_agrees_with_rapidfuzz_bisection() {
        let mut seed = 11u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let alphabet = [48u32, 49, 50, 66, 82, 32, 0xe9];
        for _ in 0..20_000 {
            let len1 = 1 + next(10) as usize;
            let len2 = len1 + 1 + next(40) as usize;
            let k = 2 + next(6) as usize;
            let s1: Vec<u32> = (0..len1)
                .map(|_| alphabet[next(k as u64) as usize])
                .collect();
            let s2: Vec<u32> = (0..len2)
                .map(|_| alphabet[next(k as u64) as usize])
                .collect();
            let cutoff = [0.0, 30.0, 55.0, 80.0][next(4) as usize];
            let expected = bisection(&s1, &s2, cutoff);
            let exhaustive = min_window_distance(&Pattern::new(&s1), &Needle::new(&s1), &s1, &s2);
            let cutoff_dist =
                (2.0 * len1 as f64 * norm_sim_to_norm_dist(cutoff / 100.0)).ceil() as usize;
            let actual = if exhaustive < cutoff_dist {
                exhaustive
            } else {
                usize::MAX
            };
            assert_eq!(actual, expected, "{s1:?} {s2:?} cutoff {cutoff}");
        }
    }
}

//! rapidfuzz 3.x's `process.extract(query, choices, scorer=fuzz.WRatio, limit=n)` without a
//! processor, which the reference uses to suggest requisition ids for an unknown one.
//!
//! Scores are computed as rapidfuzz's C++ scorers compute them, including their score cutoffs
//! and floating-point formulas, because the suggestions are the top scores with ties broken by
//! choice order: a score that differed in its last bit could reorder them.

mod lcs;
mod partial;
mod tokens;

use lcs::{Pattern, indel_distance};
use partial::partial_ratio;
use tokens::{Tokens, decompose};

/// A string as rapidfuzz sees a Python `str`: code points, plus whether the string needs more
/// than one byte per character (which changes what counts as whitespace).
struct FuzzyString {
    chars: Vec<u32>,
    tokens: Tokens,
    /// The sorted words joined by spaces.
    sorted: Vec<u32>,
}

impl FuzzyString {
    fn new(text: &str) -> Self {
        let chars: Vec<u32> = text.chars().map(u32::from).collect();
        let tokens = Tokens::split(&chars);
        let sorted = tokens.join();
        Self {
            chars,
            tokens,
            sorted,
        }
    }
}

/// `fuzz.WRatio(query, choice)` with no processor and no cutoff.
pub fn wratio(query: &str, choice: &str) -> f64 {
    Query::new(query).wratio(&FuzzyString::new(choice))
}

/// The choices, prepared once for every query.
pub struct Choices {
    items: Vec<FuzzyString>,
}

impl Choices {
    /// Prepares `choices` in the order that breaks ties.
    pub fn new<'a>(choices: impl IntoIterator<Item = &'a str>) -> Self {
        Self {
            items: choices.into_iter().map(FuzzyString::new).collect(),
        }
    }

    /// Indices of the best `limit` choices for `query`: highest WRatio first, ties in choice
    /// order.
    pub fn extract(&self, query: &str, limit: usize) -> Vec<usize> {
        let query = Query::new(query);
        let mut scored: Vec<(f64, usize)> = self
            .items
            .iter()
            .enumerate()
            // A stopped call's answer is discarded by the server: the rest is not scored.
            .take_while(|_| !vakra_interrupt::stopped())
            .map(|(i, choice)| (query.wratio(choice), i))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().take(limit).map(|(_, i)| i).collect()
    }
}

/// The query, with a reusable bit pattern when it fits in one machine word (longer queries are
/// compared using the shorter choice as the pattern) and its distinct characters.
struct Query {
    s: FuzzyString,
    pattern: Option<Pattern>,
    distinct: Vec<u32>,
}

impl Query {
    fn new(text: &str) -> Self {
        let s = FuzzyString::new(text);
        let pattern = (s.chars.len() <= 64).then(|| Pattern::new(&s.chars));
        let mut distinct = s.chars.clone();
        distinct.sort_unstable();
        distinct.dedup();
        Self {
            s,
            pattern,
            distinct,
        }
    }

    /// Whether the choice shares no character with the query.
    fn disjoint(&self, choice: &FuzzyString) -> bool {
        choice
            .chars
            .iter()
            .all(|c| self.distinct.binary_search(c).is_err())
    }

    /// Indel distance to `other`. For a long query the pattern is `other` without the
    /// characters the query lacks (they cannot be in a common subsequence), so the scan of the
    /// query stops as soon as all of the rest is matched.
    fn indel_distance(&self, other: &[u32]) -> usize {
        if let Some(pattern) = &self.pattern {
            return pattern.indel_distance(other);
        }
        let shared: Vec<u32> = other
            .iter()
            .copied()
            .filter(|c| self.distinct.binary_search(c).is_ok())
            .collect();
        self.s.chars.len() + other.len() - 2 * Pattern::new(&shared).lcs(&self.s.chars)
    }

    /// `fuzz.WRatio(query, choice)` with `score_cutoff=0`.
    fn wratio(&self, choice: &FuzzyString) -> f64 {
        const UNBASE_SCALE: f64 = 0.95;
        let (s1, s2) = (&self.s.chars, &choice.chars);
        let (len1, len2) = (s1.len(), s2.len());
        if len1 == 0 || len2 == 0 {
            return 0.0;
        }
        let len_ratio = if len1 > len2 {
            len1 as f64 / len2 as f64
        } else {
            len2 as f64 / len1 as f64
        };
        let mut cutoff = 0.0f64;
        let disjoint = self.disjoint(choice);
        let dist = if disjoint {
            len1 + len2
        } else {
            self.indel_distance(s2)
        };
        let mut end_ratio = normalized_similarity(len1 + len2, dist, cutoff / 100.0) * 100.0;
        if len_ratio < 1.5 {
            cutoff = cutoff.max(end_ratio) / UNBASE_SCALE;
            let r = self.token_ratio(choice, cutoff);
            return end_ratio.max(r * UNBASE_SCALE);
        }
        if disjoint && choice.tokens.word_count() == 1 {
            // No window and no word can share a character with a one-word choice: every
            // partial score is 0 (and a long query would make them slow to compute).
            return end_ratio;
        }
        let partial_scale = if len_ratio <= 8.0 { 0.9 } else { 0.6 };
        cutoff = cutoff.max(end_ratio) / partial_scale;
        end_ratio = end_ratio.max(partial_ratio(s1, s2, cutoff) * partial_scale);
        cutoff = cutoff.max(end_ratio) / UNBASE_SCALE;
        let r = self.partial_token_ratio(choice, cutoff);
        end_ratio.max(r * UNBASE_SCALE * partial_scale)
    }

    fn token_ratio(&self, choice: &FuzzyString, cutoff: f64) -> f64 {
        if cutoff > 100.0 {
            return 0.0;
        }
        let parts = decompose(&self.s.tokens, &choice.tokens);
        if !parts.intersection.is_empty() && (parts.diff_ab.is_empty() || parts.diff_ba.is_empty())
        {
            return 100.0;
        }
        let diff_ab = parts.diff_ab.join();
        let diff_ba = parts.diff_ba.join();
        let (ab_len, ba_len) = (diff_ab.len(), diff_ba.len());
        let sect_len = parts.intersection.length();
        let mut result = ratio(&self.s.sorted, &choice.sorted, cutoff);
        let sect_ab_len = sect_len + usize::from(sect_len > 0) + ab_len;
        let sect_ba_len = sect_len + usize::from(sect_len > 0) + ba_len;
        let lensum = sect_ab_len + sect_ba_len;
        let cutoff_distance = score_cutoff_to_distance(cutoff, lensum);
        let dist = indel_distance(&diff_ab, &diff_ba);
        if dist <= cutoff_distance {
            result = result.max(norm_distance(dist, lensum, cutoff));
        }
        if sect_len == 0 {
            return result;
        }
        let sect_ab = norm_distance(1 + ab_len, sect_len + sect_ab_len, cutoff);
        let sect_ba = norm_distance(1 + ba_len, sect_len + sect_ba_len, cutoff);
        result.max(sect_ab).max(sect_ba)
    }

    fn partial_token_ratio(&self, choice: &FuzzyString, cutoff: f64) -> f64 {
        if cutoff > 100.0 {
            return 0.0;
        }
        let parts = decompose(&self.s.tokens, &choice.tokens);
        if !parts.intersection.is_empty() {
            return 100.0;
        }
        let result = partial_ratio(&self.s.sorted, &choice.sorted, cutoff);
        if self.s.tokens.word_count() == parts.diff_ab.word_count()
            && choice.tokens.word_count() == parts.diff_ba.word_count()
        {
            return result;
        }
        let cutoff = cutoff.max(result);
        result.max(partial_ratio(
            &parts.diff_ab.join(),
            &parts.diff_ba.join(),
            cutoff,
        ))
    }
}

/// rapidfuzz's `NormSim_to_NormDist`, with its small allowance for imprecision.
fn norm_sim_to_norm_dist(score_cutoff: f64) -> f64 {
    (1.0 - score_cutoff + 0.00001).min(1.0)
}

/// Indel `normalized_similarity` in [0, 1] for a known distance, with rapidfuzz's cutoffs.
fn normalized_similarity(maximum: usize, dist: usize, score_cutoff: f64) -> f64 {
    let cutoff_dist_norm = norm_sim_to_norm_dist(score_cutoff);
    let cutoff_distance = (maximum as f64 * cutoff_dist_norm).ceil() as usize;
    let dist = if dist <= cutoff_distance {
        dist
    } else {
        cutoff_distance + 1
    };
    let norm_dist = if maximum == 0 {
        0.0
    } else {
        dist as f64 / maximum as f64
    };
    let norm_dist = if norm_dist <= cutoff_dist_norm {
        norm_dist
    } else {
        1.0
    };
    let norm_sim = 1.0 - norm_dist;
    if norm_sim >= score_cutoff {
        norm_sim
    } else {
        0.0
    }
}

/// `fuzz.ratio` with a score cutoff in [0, 100].
fn ratio(s1: &[u32], s2: &[u32], score_cutoff: f64) -> f64 {
    normalized_similarity(
        s1.len() + s2.len(),
        indel_distance(s1, s2),
        score_cutoff / 100.0,
    ) * 100.0
}

/// The token scorers' `norm_distance`, whose formula differs from `ratio`'s in the last bits.
fn norm_distance(dist: usize, lensum: usize, score_cutoff: f64) -> f64 {
    let score = if lensum > 0 {
        100.0 - 100.0 * dist as f64 / lensum as f64
    } else {
        100.0
    };
    if score >= score_cutoff { score } else { 0.0 }
}

fn score_cutoff_to_distance(score_cutoff: f64, lensum: usize) -> usize {
    (lensum as f64 * (1.0 - score_cutoff / 100.0)).ceil() as usize
}

#[cfg(test)]
mod tests {
    use super::Choices;

    #[test]
    fn empty_query_keeps_choice_order() {
        let choices = Choices::new(["b", "a", "c"]);
        assert_eq!(choices.extract("", 2), [0, 1]);
    }

    #[test]
    fn exact_match_first() {
        let choices = Choices::new(["05952BR", "05958BR", "REQ00558"]);
        assert_eq!(choices.extract("05958BR", 1), [1]);
    }
}

//! Longest common subsequence by bit-parallel counting (Hyyrö), the basis of rapidfuzz's Indel
//! distance. A pattern is built once and matched against many texts, so comparing one string
//! with many candidate windows stays linear in the text.

/// Bit masks of where each code point occurs in a pattern, 64 positions per word.
pub struct Pattern {
    len: usize,
    words: usize,
    ascii: Vec<u64>,
    other: Vec<(u32, Vec<u64>)>,
}

impl Pattern {
    pub fn new(chars: &[u32]) -> Self {
        let words = chars.len().div_ceil(64).max(1);
        let mut ascii = vec![0u64; 128 * words];
        let mut other: Vec<(u32, Vec<u64>)> = Vec::new();
        for (i, &c) in chars.iter().enumerate() {
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            if c < 128 {
                ascii[c as usize * words + word] |= bit;
            } else {
                match other.binary_search_by_key(&c, |(k, _)| *k) {
                    Ok(at) => other[at].1[word] |= bit,
                    Err(at) => {
                        let mut masks = vec![0u64; words];
                        masks[word] = bit;
                        other.insert(at, (c, masks));
                    }
                }
            }
        }
        Self {
            len: chars.len(),
            words,
            ascii,
            other,
        }
    }

    fn mask(&self, c: u32, word: usize) -> u64 {
        if c < 128 {
            self.ascii[c as usize * self.words + word]
        } else {
            match self.other.binary_search_by_key(&c, |(k, _)| *k) {
                Ok(at) => self.other[at].1[word],
                Err(_) => 0,
            }
        }
    }

    /// Length of the longest common subsequence of the pattern and `text`.
    pub fn lcs(&self, text: &[u32]) -> usize {
        if self.len == 0 || text.is_empty() {
            return 0;
        }
        if self.words == 1 {
            let valid = if self.len == 64 {
                u64::MAX
            } else {
                (1u64 << self.len) - 1
            };
            let mut s = u64::MAX;
            for &c in text {
                let u = s & self.mask(c, 0);
                s = s.wrapping_add(u) | s.wrapping_sub(u);
                if s & valid == 0 {
                    break;
                }
            }
            return (!s & valid).count_ones() as usize;
        }
        let mut s = vec![u64::MAX; self.words];
        for &c in text {
            let mut carry = false;
            for (word, sv) in s.iter_mut().enumerate() {
                let u = *sv & self.mask(c, word);
                let (sum, c1) = sv.overflowing_add(u);
                let (sum, c2) = sum.overflowing_add(u64::from(carry));
                carry = c1 || c2;
                *sv = sum | sv.wrapping_sub(u);
            }
        }
        s.iter()
            .enumerate()
            .map(|(word, sv)| {
                let bits = (self.len - word * 64).min(64);
                let valid = if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                (!sv & valid).count_ones() as usize
            })
            .sum()
    }

    /// Indel distance (insertions and deletions only) between the pattern and `text`.
    pub fn indel_distance(&self, text: &[u32]) -> usize {
        self.len + text.len() - 2 * self.lcs(text)
    }
}

/// Indel distance of two strings, using the shorter one as the pattern.
pub fn indel_distance(a: &[u32], b: &[u32]) -> usize {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    Pattern::new(short).indel_distance(long)
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn dp_lcs(a: &[u32], b: &[u32]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for &x in a {
            let mut diag = 0;
            for (j, &y) in b.iter().enumerate() {
                let up = row[j + 1];
                row[j + 1] = if x == y {
                    diag + 1
                } else {
                    row[j + 1].max(row[j])
                };
                diag = up;
            }
        }
        row[b.len()]
    }

    #[test]
    fn matches_dynamic_programming() {
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as u32
        };
        for _ in 0..300 {
            let la = (next() % 150) as usize;
            let lb = (next() % 150) as usize;
            let alphabet = [b'a' as u32, b'b' as u32, b'c' as u32, 0xe9, 0x1f600];
            let a: Vec<u32> = (0..la).map(|_| alphabet[(next() % 5) as usize]).collect();
            let b: Vec<u32> = (0..lb).map(|_| alphabet[(next() % 5) as usize]).collect();
            assert_eq!(Pattern::new(&a).lcs(&b), dp_lcs(&a, &b), "{a:?} {b:?}");
        }
    }
}

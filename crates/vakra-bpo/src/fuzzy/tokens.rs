//! rapidfuzz's word handling: split on whitespace, sort, deduplicate, and split two sentences
//! into their shared and their own words.

/// Whitespace as rapidfuzz sees it: strings stored with one byte per character (all code
/// points below 256) only split on ASCII whitespace and the information separators; wider
/// strings also on the Unicode spaces.
fn is_space(c: u32, wide: bool) -> bool {
    match c {
        0x09..=0x0d | 0x1c..=0x20 => true,
        0x85 | 0xa0 | 0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000 => wide,
        _ => false,
    }
}

/// A sentence's words in sorted order, duplicates kept.
pub struct Tokens {
    words: Vec<Vec<u32>>,
}

impl Tokens {
    pub fn split(chars: &[u32]) -> Self {
        let wide = chars.iter().any(|&c| c > 0xff);
        let mut words: Vec<Vec<u32>> = chars
            .split(|&c| is_space(c, wide))
            .filter(|w| !w.is_empty())
            .map(<[u32]>::to_vec)
            .collect();
        words.sort();
        Self { words }
    }

    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// The words joined by single spaces.
    pub fn join(&self) -> Vec<u32> {
        join(self.words.iter().map(Vec::as_slice))
    }
}

/// A list of words borrowed from [`Tokens`].
pub struct Words<'a>(Vec<&'a [u32]>);

impl Words<'_> {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn word_count(&self) -> usize {
        self.0.len()
    }

    /// Length of the joined words.
    pub fn length(&self) -> usize {
        if self.0.is_empty() {
            return 0;
        }
        self.0.len() - 1 + self.0.iter().map(|w| w.len()).sum::<usize>()
    }

    pub fn join(&self) -> Vec<u32> {
        join(self.0.iter().copied())
    }
}

fn join<'a>(words: impl Iterator<Item = &'a [u32]>) -> Vec<u32> {
    let mut out = Vec::new();
    for (i, word) in words.enumerate() {
        if i > 0 {
            out.push(0x20);
        }
        out.extend_from_slice(word);
    }
    out
}

/// The deduplicated words of two sentences: shared, only in `a`, only in `b`.
pub struct Decomposition<'a> {
    pub intersection: Words<'a>,
    pub diff_ab: Words<'a>,
    pub diff_ba: Words<'a>,
}

pub fn decompose<'a>(a: &'a Tokens, b: &'a Tokens) -> Decomposition<'a> {
    let mut a_words: Vec<&[u32]> = a.words.iter().map(Vec::as_slice).collect();
    a_words.dedup();
    let mut diff_ba: Vec<&[u32]> = b.words.iter().map(Vec::as_slice).collect();
    diff_ba.dedup();
    let mut intersection = Vec::new();
    let mut diff_ab = Vec::new();
    for word in a_words {
        match diff_ba.iter().position(|w| *w == word) {
            Some(at) => {
                diff_ba.remove(at);
                intersection.push(word);
            }
            None => diff_ab.push(word),
        }
    }
    Decomposition {
        intersection: Words(intersection),
        diff_ab: Words(diff_ab),
        diff_ba: Words(diff_ba),
    }
}

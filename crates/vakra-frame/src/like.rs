//! `filter_data`'s `like`: the reference turns the SQL pattern into a regex with string
//! replacements (`%` → `.*`, `_` → `.`, `re.escape`, then every `\.` unescaped, so a literal
//! `.` becomes a wildcard) and applies it with `re.match` anchored by `^…$`. The result is
//! matched here directly: literals, `.` (any character but a newline) and `.*`.

use crate::error::ToolError;

/// The regex text the reference builds from a LIKE pattern (without the `^`/`$` anchors).
fn reference_regex(pattern: &str) -> String {
    let replaced = pattern.replace('%', ".*").replace('_', ".");
    let mut escaped = String::with_capacity(replaced.len() * 2);
    for c in replaced.chars() {
        if "()[]{}?*+-|^$\\.&~# \t\n\r\u{b}\u{c}".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
        .replace("\\.\\*", ".*")
        .replace("\\.", ".")
        .replace("\\%", ".*")
        .replace("\\_", ".")
}

/// One element of the translated regex: a literal character or `.` (any character but a
/// newline), possibly repeated by a following `*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token {
    any: bool,
    literal: char,
    star: bool,
}

impl Token {
    fn accepts(self, c: char) -> bool {
        if self.any {
            c != '\n'
        } else {
            c == self.literal
        }
    }
}

/// A compiled LIKE pattern.
pub(crate) struct LikePattern {
    tokens: Vec<Token>,
}

impl LikePattern {
    /// The reference's translation of `pattern`. After its replacements only `.` and `*` are
    /// unescaped, and a `*` always follows an atom (`\\.*`, say, repeats a literal dot).
    pub(crate) fn new(pattern: &str) -> LikePattern {
        let regex: Vec<char> = reference_regex(pattern).chars().collect();
        let mut tokens: Vec<Token> = Vec::with_capacity(regex.len());
        let mut i = 0;
        while i < regex.len() {
            let (any, literal, width) = match regex[i] {
                '\\' if i + 1 < regex.len() => (false, regex[i + 1], 2),
                '.' => (true, '.', 1),
                '*' if !tokens.is_empty() => {
                    if let Some(last) = tokens.last_mut() {
                        last.star = true;
                    }
                    i += 1;
                    continue;
                }
                c => (false, c, 1),
            };
            tokens.push(Token {
                any,
                literal,
                star: false,
            });
            i += width;
        }
        LikePattern { tokens }
    }

    /// `re.match('^' + regex + '$', text)`: the whole text, or the text without one final
    /// newline (`$` also matches there).
    pub(crate) fn matches(&self, text: &str) -> bool {
        let m = self.tokens.len();
        let mut states = vec![false; m + 1];
        let mut next = vec![false; m + 1];
        states[0] = true;
        self.close(&mut states);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\n' && chars.peek().is_none() && states[m] {
                return true;
            }
            next.iter_mut().for_each(|s| *s = false);
            let mut any = false;
            for (i, token) in self.tokens.iter().enumerate() {
                if states[i] && token.accepts(c) {
                    next[if token.star { i } else { i + 1 }] = true;
                    any = true;
                }
            }
            if !any {
                return false;
            }
            self.close(&mut next);
            std::mem::swap(&mut states, &mut next);
        }
        states[m]
    }

    /// Adds the states reachable by letting starred tokens match nothing.
    fn close(&self, states: &mut [bool]) {
        for (i, token) in self.tokens.iter().enumerate() {
            if states[i] && token.star {
                states[i + 1] = true;
            }
        }
    }
}

/// `_process_pattern_to_regex(value)` needs a string: anything else has no `.replace`.
pub(crate) fn not_a_pattern(type_name: &str) -> ToolError {
    ToolError::new(format!("'{type_name}' object has no attribute 'replace'"))
}

//! The `skills` column holds Python list literals (`"['AWS', 'Firewalls']"`), which the reference
//! parses with `ast.literal_eval`. This parser accepts the list-of-strings subset of that syntax;
//! anything else counts as no skills, as the reference's parse failures do.

/// The strings of a Python list literal, or an empty list when the text is not a list of
/// string literals.
pub fn parse_skill_list(text: &str) -> Vec<String> {
    Parser {
        chars: text.chars().collect(),
        pos: 0,
    }
    .list()
    .unwrap_or_default()
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0c')
        {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn list(&mut self) -> Option<Vec<String>> {
        self.skip_space();
        if !self.eat('[') {
            return None;
        }
        let mut items = Vec::new();
        self.skip_space();
        if !self.eat(']') {
            loop {
                items.push(self.string_item()?);
                self.skip_space();
                if self.eat(']') {
                    break;
                }
                if !self.eat(',') {
                    return None;
                }
                self.skip_space();
                if self.eat(']') {
                    break;
                }
            }
        }
        self.skip_space();
        (self.pos == self.chars.len()).then_some(items)
    }

    /// One item: adjacent string literals concatenate, as in Python.
    fn string_item(&mut self) -> Option<String> {
        let mut out = self.string_literal()?;
        loop {
            let save = self.pos;
            self.skip_space();
            match self.peek() {
                Some('\'' | '"' | 'r' | 'R' | 'u' | 'U') => out.push_str(&self.string_literal()?),
                _ => {
                    self.pos = save;
                    return Some(out);
                }
            }
        }
    }

    fn string_literal(&mut self) -> Option<String> {
        let mut raw = false;
        match self.peek()? {
            'r' | 'R' => {
                raw = true;
                self.pos += 1;
            }
            'u' | 'U' => self.pos += 1,
            _ => {}
        }
        let quote = self.peek().filter(|c| *c == '\'' || *c == '"')?;
        self.pos += 1;
        let triple = self.chars.get(self.pos) == Some(&quote)
            && self.chars.get(self.pos + 1) == Some(&quote);
        if triple {
            self.pos += 2;
        }
        let mut out = String::new();
        loop {
            let c = self.peek()?;
            self.pos += 1;
            if c == quote {
                if !triple {
                    return Some(out);
                }
                if self.chars.get(self.pos) == Some(&quote)
                    && self.chars.get(self.pos + 1) == Some(&quote)
                {
                    self.pos += 2;
                    return Some(out);
                }
                out.push(c);
            } else if c == '\n' && !triple {
                return None;
            } else if c == '\\' {
                if raw {
                    out.push('\\');
                    out.push(self.peek()?);
                    self.pos += 1;
                } else {
                    self.escape(&mut out)?;
                }
            } else {
                out.push(c);
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Option<()> {
        let c = self.peek()?;
        self.pos += 1;
        match c {
            '\n' => {}
            '\\' | '\'' | '"' => out.push(c),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut value = c.to_digit(8)?;
                for _ in 0..2 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            self.pos += 1;
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value)?);
            }
            'x' => out.push(self.hex(2)?),
            'u' => out.push(self.hex(4)?),
            'U' => out.push(self.hex(8)?),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
        Some(())
    }

    fn hex(&mut self, digits: usize) -> Option<char> {
        let mut value = 0u32;
        for _ in 0..digits {
            value = value.checked_mul(16)? + self.peek()?.to_digit(16)?;
            self.pos += 1;
        }
        char::from_u32(value)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_skill_list;

    #[test]
    fn python_list_literals() {
        assert_eq!(
            parse_skill_list("['AWS', 'Firewalls']"),
            ["AWS", "Firewalls"]
        );
        assert_eq!(parse_skill_list("[]"), Vec::<String>::new());
        assert_eq!(parse_skill_list(" [\"it's\", 'a' 'b',] "), ["it's", "ab"]);
        assert_eq!(parse_skill_list(r"['\u00e9\x41\n']"), ["éA\n"]);
        assert_eq!(parse_skill_list(r"[r'\d']"), [r"\d"]);
    }

    #[test]
    fn anything_else_is_no_skills() {
        for text in ["", "AWS", "['a'", "['a'] x", "[1]", "('a',)", "['a\nb']"] {
            assert!(parse_skill_list(text).is_empty(), "{text:?}");
        }
    }
}

//! Numeric literals: decimal, hexadecimal, octal and binary integers with
//! underscores, and floats with exponents. Imaginary literals are rejected.

use crate::ast::{Constant, Pos};
use crate::error::ParseError;
use crate::token::{Tokenizer, is_ident_continue};

/// Keywords CPython accepts directly after a number (`1if x else 2`).
const KEYWORDS_AFTER_NUMBER: [&str; 8] = ["and", "else", "for", "if", "in", "is", "not", "or"];

impl Tokenizer<'_> {
    /// Reads a numeric literal starting at `start` (a digit, or `.` and a
    /// digit).
    pub(crate) fn number(&mut self, start: Pos) -> Result<Constant, ParseError> {
        if self.byte(0) == Some(b'0') {
            let radix = match self.byte(1) {
                Some(b'x' | b'X') => Some((16, "hexadecimal")),
                Some(b'o' | b'O') => Some((8, "octal")),
                Some(b'b' | b'B') => Some((2, "binary")),
                _ => None,
            };
            if let Some((radix, kind)) = radix {
                self.bump();
                self.bump();
                return self.radix_integer(radix, kind);
            }
        }
        let mut text = if self.byte(0) == Some(b'.') {
            String::new()
        } else {
            self.digits(10, false, "decimal")?
        };
        let mut is_float = false;
        if self.byte(0) == Some(b'.') {
            is_float = true;
            self.bump();
            text.push('.');
            if self.byte(0).is_some_and(|b| b.is_ascii_digit()) {
                text.push_str(&self.digits(10, false, "decimal")?);
            }
        }
        if matches!(self.byte(0), Some(b'e' | b'E')) {
            let signed = matches!(self.byte(1), Some(b'+' | b'-'));
            let digit_at = if signed { 2 } else { 1 };
            if self.byte(digit_at).is_some_and(|b| b.is_ascii_digit()) {
                is_float = true;
                self.bump();
                text.push('e');
                if signed {
                    text.extend(self.bump());
                }
                text.push_str(&self.digits(10, false, "decimal")?);
            }
        }
        if matches!(self.byte(0), Some(b'j' | b'J')) {
            return Err(self.error(start, "imaginary literals are not supported"));
        }
        self.check_number_end("decimal")?;
        if is_float {
            return text
                .parse::<f64>()
                .map(Constant::Float)
                .map_err(|_| self.error(start, "invalid decimal literal"));
        }
        if text.starts_with('0') && text.bytes().any(|b| b != b'0') {
            return Err(self.error(
                start,
                "leading zeros in decimal integer literals are not permitted; \
                 use an 0o prefix for octal integers",
            ));
        }
        Ok(integer(&text, 10))
    }

    fn radix_integer(&mut self, radix: u32, kind: &str) -> Result<Constant, ParseError> {
        let digits = self.digits(radix, true, kind)?;
        if digits.is_empty() {
            return Err(self.error(self.here(), format!("invalid {kind} literal")));
        }
        if let Some(c) = self.peek().filter(char::is_ascii_digit) {
            return Err(self.error(
                self.here(),
                format!("invalid digit '{c}' in {kind} literal"),
            ));
        }
        self.check_number_end(kind)?;
        Ok(integer(&digits, radix))
    }

    /// Reads digits of `radix` separated by single underscores and returns
    /// them without the underscores.
    fn digits(
        &mut self,
        radix: u32,
        leading_underscore: bool,
        kind: &str,
    ) -> Result<String, ParseError> {
        let mut out = String::new();
        loop {
            let underscore = self.byte(0) == Some(b'_') && (leading_underscore || !out.is_empty());
            if underscore {
                self.bump();
            }
            match self.peek().filter(|c| c.is_digit(radix)) {
                Some(c) => {
                    self.bump();
                    out.push(c);
                }
                None if underscore => {
                    return Err(self.error(self.here(), format!("invalid {kind} literal")));
                }
                None => return Ok(out),
            }
        }
    }

    /// Rejects a number running into an identifier (`1abc`), except for the
    /// keywords CPython still tolerates there.
    fn check_number_end(&self, kind: &str) -> Result<(), ParseError> {
        if !self.peek().is_some_and(is_ident_continue) {
            return Ok(());
        }
        let rest = self.rest();
        if KEYWORDS_AFTER_NUMBER.iter().any(|kw| rest.starts_with(kw)) {
            return Ok(());
        }
        Err(self.error(self.here(), format!("invalid {kind} literal")))
    }
}

/// Builds the constant for validated `digits` in `radix`, falling back to
/// decimal text when the value does not fit in `i64`.
fn integer(digits: &str, radix: u32) -> Constant {
    match i64::from_str_radix(digits, radix) {
        Ok(value) => Constant::Int(value),
        Err(_) if radix == 10 => Constant::BigInt(digits.to_owned()),
        Err(_) => Constant::BigInt(to_decimal(digits, radix)),
    }
}

/// Converts validated digits of any radix to decimal text, using base 10^9
/// limbs.
fn to_decimal(digits: &str, radix: u32) -> String {
    const BASE: u64 = 1_000_000_000;
    let mut limbs: Vec<u64> = vec![0];
    for digit in digits.chars().filter_map(|c| c.to_digit(radix)) {
        let mut carry = u64::from(digit);
        for limb in &mut limbs {
            let value = *limb * u64::from(radix) + carry;
            *limb = value % BASE;
            carry = value / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
    }
    let mut out = String::new();
    let mut iter = limbs.iter().rev();
    if let Some(first) = iter.next() {
        out.push_str(&first.to_string());
    }
    for limb in iter {
        out.push_str(&format!("{limb:09}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::to_decimal;

    #[test]
    fn converts_large_literals_to_decimal() {
        assert_eq!(
            to_decimal("ffffffffffffffffffff", 16),
            "1208925819614629174706175"
        );
        assert_eq!(to_decimal("1", 2), "1");
        assert_eq!(to_decimal("0000", 8), "0");
    }
}

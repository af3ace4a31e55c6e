//! The model's token counts a prediction record carries (`usage`, written by `vakra run`).

use serde::{Deserialize, Serialize};

/// Tokens reported by the model endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Tokens {
    pub fn add(&mut self, other: Tokens) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }

    /// The sum of `counts`, or `None` when there are none.
    pub fn total(counts: impl Iterator<Item = Tokens>) -> Option<Tokens> {
        counts.reduce(|mut all, t| {
            all.add(t);
            all
        })
    }

    /// Dollars at prices per million input and output tokens.
    pub fn cost(&self, (price_in, price_out): (f64, f64)) -> f64 {
        (self.input_tokens as f64 * price_in + self.output_tokens as f64 * price_out) / 1e6
    }
}

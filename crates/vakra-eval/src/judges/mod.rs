//! The judges of the waterfall, one module each, in the order a turn meets them: the policy
//! judge, exact match, then the answer's correctness (the LLM judge, or with no LLM configured
//! the deterministic answer match) and its groundedness (the LLM judge, or the deterministic
//! one: with no LLM configured, or when chosen).

pub mod answer;
pub mod exact;
pub mod grounded;
pub mod llm;
pub mod policy;

/// Which groundedness judge runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroundednessMode {
    /// The LLM judge (needs an LLM configured).
    Llm,
    /// The deterministic judge ([`grounded`]).
    Deterministic,
}

impl std::str::FromStr for GroundednessMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "llm" => Ok(GroundednessMode::Llm),
            "deterministic" => Ok(GroundednessMode::Deterministic),
            other => Err(format!(
                "groundedness judge must be llm or deterministic; got {other:?}"
            )),
        }
    }
}

impl GroundednessMode {
    pub fn as_str(self) -> &'static str {
        match self {
            GroundednessMode::Llm => "llm",
            GroundednessMode::Deterministic => "deterministic",
        }
    }
}

/// One judge's verdict on a turn.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Verdict {
    /// 1.0 or 0.0.
    pub score: f64,
    pub explanation: String,
}

impl Verdict {
    pub fn pass(explanation: impl Into<String>) -> Self {
        Self {
            score: 1.0,
            explanation: explanation.into(),
        }
    }

    pub fn fail(explanation: impl Into<String>) -> Self {
        Self {
            score: 0.0,
            explanation: explanation.into(),
        }
    }

    pub fn passed(&self) -> bool {
        self.score == 1.0
    }
}

pub use vakra_records::answer_text;

/// Strip, Unicode lower-case and collapse whitespace runs, as the reference's judges normalise.
pub fn normalize_text(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_collapses_unicode_whitespace() {
        assert_eq!(
            normalize_text("  Ünïcode\u{3000}TEXT\n\tx "),
            "ünïcode text x"
        );
    }
}

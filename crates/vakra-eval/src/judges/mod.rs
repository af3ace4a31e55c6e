//! The judges of the waterfall, one module each, in the order a turn meets them: the policy
//! judge, exact match, then the answer's correctness (the LLM judge, or with no LLM configured
//! the deterministic answer match) and its groundedness (the LLM judge, or the deterministic
//! one: with no LLM configured, or when chosen).

pub mod answer;
pub mod exact;
pub mod grounded;
pub mod llm;
pub mod policy;

use serde_json::Value;

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

/// The reference's text of an answer (spec §3): lists joined by `", "`, an inner list standing
/// for its first element only, everything else Python's `str()`.
pub fn answer_text(answer: &Value) -> String {
    match answer {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::Array(inner) => inner.first().map(vakra_pytext::py_str),
                other => Some(vakra_pytext::py_str(other)),
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => vakra_pytext::py_str(other),
    }
}

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
    use serde_json::json;

    #[test]
    fn answers_read_as_the_reference_reads_them() {
        assert_eq!(
            answer_text(&json!([[1.2587021916630856]])),
            "1.2587021916630856"
        );
        assert_eq!(answer_text(&json!([["a", "b"], ["c"], []])), "a, c");
        assert_eq!(
            answer_text(&json!([true, null, 1e-05])),
            "True, None, 1e-05"
        );
        assert_eq!(answer_text(&json!([{"k": "v"}])), "{'k': 'v'}");
        assert_eq!(answer_text(&json!(null)), "");
        assert_eq!(answer_text(&json!(3.0)), "3.0");
    }

    #[test]
    fn normalisation_collapses_unicode_whitespace() {
        assert_eq!(
            normalize_text("  Ünïcode\u{3000}TEXT\n\tx "),
            "ünïcode text x"
        );
    }
}

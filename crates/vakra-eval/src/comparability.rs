//! What a run's score can be compared with: how `vakra run` asked the model (the request form,
//! the tool shortlist, the prompts, the quirks) and how the servers answered where that can
//! differ from the reference (capability 4's search, capability 1's pandas). `vakra run` writes
//! it into its `run.json`; `vakra eval` copies it into the report and warns when a run is not
//! comparable with the leaderboard; `vakra validate --bundle` puts it into the bundle's metadata.

use serde::{Deserialize, Serialize};

/// The request form `vakra run` emulates by default.
pub const EMULATED_STACK: &str =
    "langchain-core 1.8.3, langchain-openai 1.7.4, langchain 1.5.2, pydantic 2.14";

/// A run's comparability record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparability {
    /// Whether every setting below is the reference's.
    pub leaderboard_comparable: bool,
    /// The settings that are not, in words.
    pub not_comparable_because: Vec<String>,
    /// `reference` (LangChain's form of the tools) or `mcp` (the servers' schemas as listed).
    pub tool_schemas: String,
    /// The reference stack the requests are written as.
    pub emulates: String,
    pub shortlist: Shortlist,
    /// `imported` (the reference's prompts, from the data root) or `built-in` (this project's).
    pub prompts: String,
    pub fix_quirks: bool,
    /// Capability 4's document search, when the run says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_4_search: Option<String>,
    /// The pandas version capability 1 answers as, when the run says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_1_pandas: Option<String>,
}

/// How tools were shortlisted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shortlist {
    /// `embeddings` (the reference's) or `bm25`.
    pub method: String,
    pub top_k: usize,
    /// The model, when one was loaded (no domain may have needed a shortlist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A content hash of its weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_hash: Option<String>,
}

impl Comparability {
    /// The record of these settings, with the verdict worked out.
    pub fn new(
        tool_schemas: &str,
        shortlist: Shortlist,
        prompts: &str,
        fix_quirks: bool,
        capability_4_search: Option<String>,
        capability_1_pandas: Option<String>,
    ) -> Self {
        let mut reasons = Vec::new();
        if tool_schemas != "reference" {
            reasons.push(format!(
                "the model was sent the tools' {tool_schemas} schemas, not the reference runner's"
            ));
        }
        if shortlist.method != "embeddings" {
            reasons.push(format!(
                "tools were shortlisted by {}, not by the reference's embeddings",
                shortlist.method
            ));
        }
        if shortlist.top_k != 128 {
            reasons.push(format!(
                "at most {} tools were offered, not the reference's 128",
                shortlist.top_k
            ));
        }
        if prompts != "imported" {
            reasons.push(format!(
                "the prompts are {prompts}, not the reference's (import them with `vakra import`)"
            ));
        }
        if fix_quirks {
            reasons.push("the reference's quirks were fixed (--fix-quirks)".into());
        }
        if let Some(search) = capability_4_search.as_deref().filter(|s| *s != "dense") {
            reasons.push(format!(
                "capability 4's documents were searched by {search}, not by the reference's embeddings"
            ));
        }
        if let Some(pandas) = capability_1_pandas
            .as_deref()
            .filter(|p| !p.starts_with('3'))
        {
            reasons.push(format!(
                "capability 1 answered as pandas {pandas}, not as the reference's pandas 3"
            ));
        }
        Self {
            leaderboard_comparable: reasons.is_empty(),
            not_comparable_because: reasons,
            tool_schemas: tool_schemas.to_owned(),
            emulates: EMULATED_STACK.to_owned(),
            shortlist,
            prompts: prompts.to_owned(),
            fix_quirks,
            capability_4_search,
            capability_1_pandas,
        }
    }

    /// The record a run folder's `run.json` holds (`None`: no `run.json`, or one written before
    /// runs recorded it).
    pub fn of_run(predictions: &std::path::Path) -> Option<Self> {
        let text = crate::records::read_text(&predictions.join("run.json")).ok()?;
        let run: serde_json::Value = serde_json::from_str(&text).ok()?;
        serde_json::from_value(run.get("comparability")?.clone()).ok()
    }

    /// One line for reports and warnings.
    pub fn summary(&self) -> String {
        if self.leaderboard_comparable {
            "comparable with the leaderboard (the reference runner's requests, shortlist and prompts)".into()
        } else {
            format!(
                "not comparable with the leaderboard: {}",
                self.not_comparable_because.join("; ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shortlist(method: &str) -> Shortlist {
        Shortlist {
            method: method.into(),
            top_k: 128,
            model: None,
            model_hash: None,
        }
    }

    #[test]
    fn every_setting_that_is_not_the_references_is_named() {
        let ok = Comparability::new(
            "reference",
            shortlist("embeddings"),
            "imported",
            false,
            None,
            None,
        );
        assert!(ok.leaderboard_comparable, "{:?}", ok.not_comparable_because);
        let off = Comparability::new(
            "mcp",
            shortlist("bm25"),
            "built-in",
            true,
            Some("bm25".into()),
            Some("2".into()),
        );
        assert!(!off.leaderboard_comparable);
        assert_eq!(
            off.not_comparable_because.len(),
            6,
            "{:?}",
            off.not_comparable_because
        );
        assert!(off.summary().contains("bm25"));
    }

    #[test]
    fn the_record_is_read_back_from_run_json() {
        let dir = tempfile::tempdir().unwrap();
        let record = Comparability::new(
            "reference",
            shortlist("embeddings"),
            "built-in",
            false,
            None,
            None,
        );
        std::fs::write(
            dir.path().join("run.json"),
            serde_json::json!({"model": "m", "comparability": record}).to_string(),
        )
        .unwrap();
        assert_eq!(Comparability::of_run(dir.path()), Some(record));
        assert_eq!(Comparability::of_run(&dir.path().join("nowhere")), None);
    }
}

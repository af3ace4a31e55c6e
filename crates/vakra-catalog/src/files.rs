//! The data root's files, each with one accessor: where it lives (relative to the root) and
//! what it holds. `vakra import` writes them through these accessors and every reader reads
//! through them, so a path is spelled once.
//!
//! The catalogs (`openapi/`), databases and indexes are folders of [`crate::DataRoot`]; the
//! files below are the single files the other capabilities, the runner and the evaluator read.

use serde::{Deserialize, Serialize};

pub use crate::root_file::RootFile;
pub use crate::tool_texts::TOOL_TEXTS;
pub use crate::universes::UNIVERSES;

/// The pandas major version (`2` or `3`, text) the root was imported for.
pub const PANDAS: RootFile<String> = RootFile::at("capability1/pandas");
/// The runner's prompts, from the reference's agent.
pub const RUNNER_PROMPTS: RootFile<RunnerPrompts> = RootFile::at("runner/prompts.json");
/// The evaluator's LLM-judge prompts, from the reference's evaluator.
pub const EVALUATOR_PROMPTS: RootFile<EvaluatorPrompts> = RootFile::at("evaluator/prompts.json");
/// Capability 4's retriever tool descriptions (read by `vakra-retrieval`).
pub const DEFAULT_DESCRIPTIONS: RootFile<serde_json::Value> =
    RootFile::at("retrievers/default_descriptions.json");
/// Capability 4's policy categories (the evaluator's policy judge).
pub const POLICY_CATEGORIES: RootFile<serde_json::Value> =
    RootFile::at("retrievers/policy_categories.json");
/// The legacy operation-id renames the evaluator applies to old traces.
pub const OPERATION_ID_MAPPINGS: RootFile<serde_json::Value> =
    RootFile::at("mappings/all_operation_id_mappings.json");

/// The runner's prompt templates, Python `str.format` style: capability 1's system message has
/// `{handle}` and `{data_info}`, its data description `{num_records}`, `{columns}` and
/// `{preview}`; the policy message (capability 4) has `{instructions}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunnerPrompts {
    pub capability_1_system: String,
    pub capability_1_data_info: String,
    pub policy_system: String,
    /// Where they came from, for the run's summary.
    #[serde(default)]
    pub source: String,
}

/// The evaluator's two prompt templates, Python `str.format` style.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvaluatorPrompts {
    /// Placeholders `{question}`, `{answer}`, `{prediction}`.
    pub correctness: String,
    /// Placeholders `{doc}`, `{response}`.
    pub groundedness: String,
    /// Where they came from, for the report.
    #[serde(default)]
    pub source: String,
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn temp_root() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "vakra-catalog-files-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_written_file_reads_back_with_its_path() {
        let root = temp_root();
        assert_eq!(EVALUATOR_PROMPTS.read_optional(&root), Ok(None));
        let prompts = EvaluatorPrompts {
            correctness: "c {question}".into(),
            groundedness: "g {doc}".into(),
            source: "evaluator/prompt.py".into(),
        };
        EVALUATOR_PROMPTS.write_json(&root, &prompts).unwrap();
        let path = root.join("evaluator/prompts.json");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("{\n  \"correctness\"") && text.ends_with("}\n"),
            "{text}"
        );
        let (read, source) = EVALUATOR_PROMPTS.read_optional(&root).unwrap().unwrap();
        assert_eq!((read, source), (prompts, path.display().to_string()));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_it() {
        let root = temp_root();
        RUNNER_PROMPTS
            .write_text(&root, "{\"policy_system\": 1}")
            .unwrap();
        let error = RUNNER_PROMPTS.read_optional(&root).unwrap_err();
        assert!(
            error.starts_with(&RUNNER_PROMPTS.path(&root).display().to_string()),
            "{error}"
        );
        std::fs::remove_dir_all(root).unwrap();
    }
}

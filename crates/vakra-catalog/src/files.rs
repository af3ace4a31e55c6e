//! The data root's folders and files, each with one accessor: where it lives (relative to the
//! root) and what it holds. `vakra import` writes them through these accessors and every reader
//! reads through them, so a path is spelled once.
//!
//! [`crate::DataRoot`] reads the catalogs (`openapi/`); the folders and files below are what the
//! other capabilities, the runner and the evaluator read.

use serde::{Deserialize, Serialize};

use crate::DomainIndex;
pub use crate::root_file::{RootDir, RootFile};
pub use crate::tool_texts::TOOL_TEXTS;
pub use crate::universes::UNIVERSES;

/// The root itself (files `vakra import` copies to its top).
pub const TOP: RootDir = RootDir::at(".");
/// Capability 2 and 3's REST catalogs, one OpenAPI document per domain.
pub const OPENAPI: RootDir = RootDir::at("openapi");
/// The default database root (`--db-root` overrides it): `<domain>/<domain>.sqlite`.
pub const DATABASES: RootDir = RootDir::at("databases");
/// Capability 4's search indexes, one folder per domain (`vakra index`).
pub const INDEXES: RootDir = RootDir::at("indexes");
/// Capability 4's document store (`vakra import --dataset` links the benchmark's).
pub const DOCUMENTS: RootDir = RootDir::at("documents");
/// The benchmark's task files (`vakra import --dataset` links them).
pub const TASKS: RootDir = RootDir::at("tasks");
/// Capability 1's files.
pub const CAPABILITY1: RootDir = RootDir::at("capability1");
/// Capability 3's BPO data set (read by `vakra-bpo`).
pub const BPO: RootDir = RootDir::at("bpo");
/// Capability 4's retriever files.
pub const RETRIEVERS: RootDir = RootDir::at("retrievers");
/// The reference's operation-id mappings.
pub const MAPPINGS: RootDir = RootDir::at("mappings");
/// The runner's files.
pub const RUNNER: RootDir = RootDir::at("runner");
/// The evaluator's files.
pub const EVALUATOR: RootDir = RootDir::at("evaluator");

/// The mounted domains in mount order ([`crate::DataRoot::read_index`] reads it, checking the
/// names).
pub const DOMAIN_INDEX: RootFile<DomainIndex> = OPENAPI.file("domains.json");
/// The pandas major version (`2` or `3`, text) the root was imported for.
pub const PANDAS: RootFile<String> = CAPABILITY1.file("pandas");
/// The runner's prompts, from the reference's agent.
pub const RUNNER_PROMPTS: RootFile<RunnerPrompts> = RUNNER.file("prompts.json");
/// The evaluator's LLM-judge prompts, from the reference's evaluator.
pub const EVALUATOR_PROMPTS: RootFile<EvaluatorPrompts> = EVALUATOR.file("prompts.json");
/// Capability 4's retriever tool descriptions (read by `vakra-retrieval`).
pub const DEFAULT_DESCRIPTIONS: RootFile<serde_json::Value> =
    RETRIEVERS.file("default_descriptions.json");
/// Capability 4's per-domain negatives (copied from the reference).
pub const DOMAIN_NEGATIVES: RootFile<serde_json::Value> = RETRIEVERS.file("domain_negatives.json");
/// Capability 4's per-domain descriptions (copied from the reference).
pub const DOMAIN_DESCRIPTIONS: RootFile<serde_json::Value> =
    RETRIEVERS.file("domain_description_dict.json");
/// Capability 4's policy categories (the evaluator's policy judge).
pub const POLICY_CATEGORIES: RootFile<serde_json::Value> =
    RETRIEVERS.file("policy_categories.json");
/// The benchmark's Chroma store, inside the document store.
pub const CHROMA: RootFile<()> = DOCUMENTS.file("chroma.sqlite3");
/// Capability 3's BPO tool and model descriptions.
pub const BPO_DESCRIPTIONS: RootFile<serde_json::Value> = BPO.file("descriptions.json");
/// The legacy operation-id renames the evaluator applies to old traces.
pub const OPERATION_ID_MAPPINGS: RootFile<serde_json::Value> =
    MAPPINGS.file("all_operation_id_mappings.json");

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

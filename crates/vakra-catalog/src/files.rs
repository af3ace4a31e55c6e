//! The data root's files, each with one accessor: where it lives (relative to the root) and
//! what it holds. `vakra import` writes them through these accessors and every reader reads
//! through them, so a path is spelled once.
//!
//! The catalogs (`openapi/`), databases and indexes are folders of [`crate::DataRoot`]; the
//! files below are the single files the other capabilities, the runner and the evaluator read.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::tool_texts::ToolTexts;
use crate::universes::Universes;

/// One file of a data root holding a `T`.
pub struct RootFile<T> {
    relative: &'static str,
    holds: PhantomData<fn() -> T>,
}

impl<T> RootFile<T> {
    const fn at(relative: &'static str) -> Self {
        Self {
            relative,
            holds: PhantomData,
        }
    }

    /// The path relative to the root (as `vakra import` lists the files it wrote).
    pub fn relative(&self) -> &'static str {
        self.relative
    }

    /// The file in `root`.
    pub fn path(&self, root: &Path) -> PathBuf {
        root.join(self.relative)
    }

    /// Writes `text` as the file, creating its folder.
    pub fn write_text(&self, root: &Path, text: &str) -> std::io::Result<()> {
        let path = self.path(root);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, text)
    }
}

impl<T: DeserializeOwned> RootFile<T> {
    /// The file's content and its path (for reports); `None` when the root has none.
    pub fn read_optional(&self, root: &Path) -> Result<Option<(T, String)>, String> {
        let path = self.path(root);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(|value| Some((value, path.display().to_string())))
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }
}

impl<T: Serialize> RootFile<T> {
    /// Writes `value` as indented JSON with a final newline, creating the folder.
    pub fn write_json(&self, root: &Path, value: &T) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
        self.write_text(root, &(text + "\n"))
    }
}

/// Capability 1's universe mapping, converted from the reference's YAML.
pub const UNIVERSES: RootFile<Universes> = RootFile::at("capability1/universes.json");
/// The prose of capability 1's tool listing.
pub const TOOL_TEXTS: RootFile<ToolTexts> = RootFile::at("capability1/texts.json");
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

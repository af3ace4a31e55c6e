//! The evaluator's judge prompts: read from the checkout's `evaluator/prompt.py` (parsed, never
//! run) into the data root's `evaluator/prompts.json`, so that `vakra eval` can ask an LLM the
//! reference's exact questions without the project holding the reference's prose.

use std::path::Path;

use serde_json::json;
use vakra_catalog::DataRoot;
use vakra_pysyntax::ast::{Constant, ExprKind, StmtKind};

use crate::docstrings::parse;
use crate::{ImportError, io_error};

const PROMPTS: &str = "evaluator/prompt.py";

/// The file written, relative to the data root (read by `vakra-eval`).
pub const PROMPTS_FILE: &str = "evaluator/prompts.json";

/// Writes `evaluator/prompts.json` when the checkout has both prompts; returns the files written.
pub fn import_prompts(repo: &Path, root: &DataRoot) -> Result<Vec<String>, ImportError> {
    let source = repo.join(PROMPTS);
    if !source.is_file() {
        return Ok(Vec::new());
    }
    let (mut correctness, mut groundedness) = (None, None);
    for stmt in parse(&source)? {
        let StmtKind::Assign { targets, value } = &stmt.kind else {
            continue;
        };
        let ExprKind::Constant(Constant::Str(text)) = &value.kind else {
            continue;
        };
        for target in targets {
            match &target.kind {
                ExprKind::Name(name) if name == "CorrectnessPrompt" => {
                    correctness = Some(text.clone())
                }
                ExprKind::Name(name) if name == "GroundednessPrompt" => {
                    groundedness = Some(text.clone())
                }
                _ => {}
            }
        }
    }
    let (Some(correctness), Some(groundedness)) = (correctness, groundedness) else {
        return Ok(Vec::new());
    };
    let out = root.path().join(PROMPTS_FILE);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    let text = json!({"correctness": correctness, "groundedness": groundedness, "source": PROMPTS});
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&text).unwrap_or_default() + "\n",
    )
    .map_err(io_error(&out))?;
    Ok(vec![PROMPTS_FILE.to_owned()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_prompts_are_needed() {
        let repo = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(repo.path().join("evaluator")).unwrap();
        let file = repo.path().join(PROMPTS);
        std::fs::write(&file, "CorrectnessPrompt = \"\"\"Q {question}\"\"\"\n").unwrap();
        let data_root = DataRoot::new(root.path());
        assert!(import_prompts(repo.path(), &data_root).unwrap().is_empty());
        std::fs::write(
            &file,
            "CorrectnessPrompt = \"\"\"Q {question}\"\"\"\n\nGroundednessPrompt =\"\"\"\nD {doc}\"\"\"\n",
        )
        .unwrap();
        assert_eq!(
            import_prompts(repo.path(), &data_root).unwrap(),
            [PROMPTS_FILE]
        );
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.path().join(PROMPTS_FILE)).unwrap())
                .unwrap();
        assert_eq!(written["correctness"], "Q {question}");
        assert_eq!(written["groundedness"], "\nD {doc}");
    }
}

//! The evaluator's judge prompts: read from the checkout's `evaluator/prompt.py` (parsed, never
//! run) into the data root's `evaluator/prompts.json`, so that `vakra eval` can ask an LLM the
//! reference's exact questions without the project holding the reference's prose.

use std::path::Path;

use vakra_catalog::DataRoot;
use vakra_catalog::files::{EVALUATOR_PROMPTS, EvaluatorPrompts};
use vakra_pysyntax::ast::{Constant, ExprKind, StmtKind};

use crate::docstrings::parse;
use crate::{ImportError, io_error};

const PROMPTS: &str = "evaluator/prompt.py";

/// Writes [`EVALUATOR_PROMPTS`] when the checkout has both prompts; returns the files written.
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
    let prompts = EvaluatorPrompts {
        correctness,
        groundedness,
        source: PROMPTS.to_owned(),
    };
    EVALUATOR_PROMPTS
        .write_json(root.path(), &prompts)
        .map_err(io_error(&EVALUATOR_PROMPTS.path(root.path())))?;
    Ok(vec![EVALUATOR_PROMPTS.relative()])
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
            [EVALUATOR_PROMPTS.relative()]
        );
        let written: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(EVALUATOR_PROMPTS.path(root.path())).unwrap(),
        )
        .unwrap();
        assert_eq!(written["correctness"], "Q {question}");
        assert_eq!(written["groundedness"], "\nD {doc}");
    }
}

//! The reference runner's agent prompts, read from `agents/agent_interface.py` (parsed, never
//! run) into the data root's `runner/prompts.json`, so that `vakra run` gives models the
//! reference's exact messages without the project holding its prose:
//!
//! - `capability_1_system`: the system message of capability 1 (the f-string that
//!   `_build_system_message` returns), fields `{handle}` and `{data_info}`;
//! - `capability_1_data_info`: its description of the starting table (the `initial_data_info`
//!   f-string), fields `{num_records}`, `{columns}` and `{preview}`;
//! - `policy_system`: capability 4's policy message (`_build_policy_guidance`), field
//!   `{instructions}`.
//!
//! Templates are Python `str.format` strings: literal braces are doubled.

use std::collections::HashMap;
use std::path::Path;

use vakra_catalog::DataRoot;
use vakra_catalog::files::{RUNNER_PROMPTS, RunnerPrompts};
use vakra_pysyntax::ast::{Expr, ExprKind, FStringPart, FunctionDef, StmtKind};

use crate::chaining::walk;
use crate::docstrings::parse;
use crate::{ImportError, io_error};

/// The reference's agent.
pub const AGENT: &str = "agents/agent_interface.py";
/// Writes [`RUNNER_PROMPTS`] when the checkout has the agent; returns the files written. An agent
/// whose prompts cannot be found or expressed is an error naming what is missing.
pub fn import_runner_prompts(repo: &Path, root: &DataRoot) -> Result<Vec<String>, ImportError> {
    let source = repo.join(AGENT);
    if !source.is_file() {
        return Ok(Vec::new());
    }
    let module = parse(&source)?;
    let mut functions: HashMap<&str, &FunctionDef> = HashMap::new();
    for stmt in &module {
        walk(stmt, &mut |s| {
            if let StmtKind::FunctionDef(def) = &s.kind {
                functions.entry(def.name.as_str()).or_insert(def);
            }
        });
    }
    let error = |message: String| ImportError::Parse {
        path: source.clone(),
        message,
    };
    let body = |name: &str| {
        functions
            .get(name)
            .map(|def| def.body.as_slice())
            .ok_or_else(|| error(format!("no function {name}")))
    };
    let policy = assigned_fstring(body("_build_policy_guidance")?, "content")
        .ok_or_else(|| error("_build_policy_guidance assigns no f-string to `content`".into()))?;
    let system_body = body("_build_system_message")?;
    let data_info = assigned_fstring(system_body, "initial_data_info").ok_or_else(|| {
        error("_build_system_message assigns no f-string to `initial_data_info`".into())
    })?;
    let system = returned_fstring(system_body)
        .ok_or_else(|| error("_build_system_message returns no f-string".into()))?;
    let prompts = RunnerPrompts {
        capability_1_system: template(
            system,
            &[
                ("_initial_data_handle", "handle"),
                ("initial_data_info", "data_info"),
            ],
        )
        .map_err(error)?,
        capability_1_data_info: template(
            data_info,
            &[
                ("num_records", "num_records"),
                ("col_names", "columns"),
                ("dumps", "preview"),
            ],
        )
        .map_err(error)?,
        policy_system: template(policy, &[("additional_instructions", "instructions")])
            .map_err(error)?,
        source: AGENT.to_owned(),
    };
    RUNNER_PROMPTS
        .write_json(root.path(), &prompts)
        .map_err(io_error(&RUNNER_PROMPTS.path(root.path())))?;
    Ok(vec![RUNNER_PROMPTS.relative()])
}

/// The first f-string assigned to `name` anywhere in `body`.
fn assigned_fstring<'a>(
    body: &'a [vakra_pysyntax::ast::Stmt],
    name: &str,
) -> Option<&'a [FStringPart]> {
    let mut found = None;
    for stmt in body {
        walk(stmt, &mut |s| {
            if let (None, StmtKind::Assign { targets, value }) = (&found, &s.kind)
                && targets
                    .iter()
                    .any(|t| matches!(&t.kind, ExprKind::Name(n) if n == name))
                && let ExprKind::JoinedStr(parts) = &value.kind
            {
                found = Some(parts.as_slice());
            }
        });
    }
    found
}

/// The f-string of the first `return f"…"` in `body`.
fn returned_fstring(body: &[vakra_pysyntax::ast::Stmt]) -> Option<&[FStringPart]> {
    let mut found = None;
    for stmt in body {
        walk(stmt, &mut |s| {
            if let (None, StmtKind::Return(Some(value))) = (&found, &s.kind)
                && let ExprKind::JoinedStr(parts) = &value.kind
            {
                found = Some(parts.as_slice());
            }
        });
    }
    found
}

/// The f-string as a `str.format` template: literal braces doubled, each field named by
/// `fields` (the last name of its expression: `x`, `self.x`, or the function of a call).
fn template(parts: &[FStringPart], fields: &[(&str, &str)]) -> Result<String, String> {
    let mut out = String::new();
    for part in parts {
        match part {
            FStringPart::Literal(text) => out.push_str(&text.replace('{', "{{").replace('}', "}}")),
            FStringPart::Formatted(field)
                if field.conversion.is_none() && field.format_spec.is_none() =>
            {
                let name = last_name(&field.value)
                    .and_then(|name| fields.iter().find(|(from, _)| *from == name))
                    .map(|(_, to)| *to)
                    .ok_or("a prompt interpolates a value vakra run cannot fill in")?;
                out.push('{');
                out.push_str(name);
                out.push('}');
            }
            FStringPart::Formatted(_) => {
                return Err("a prompt formats a value with a conversion or format spec".into());
            }
        }
    }
    Ok(out)
}

fn last_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(name) => Some(name),
        ExprKind::Attribute { attr, .. } => Some(attr),
        ExprKind::Call { func, .. } => last_name(func),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_prompts_become_templates() {
        let repo = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(repo.path().join("agents")).unwrap();
        std::fs::write(
            repo.path().join(AGENT),
            r#"import json

class Agent:
    def _build_policy_guidance(self, additional_instructions: str):
        content = f"""P {additional_instructions}."""
        return content

    def _build_system_message(self) -> str:
        initial_data_info = ""
        if self._peek:
            try:
                initial_data_info = f"""
n={num_records} c={col_names} p={json.dumps(preview, indent=2)}"""
            except (KeyError, TypeError):
                pass
        return f"""
S {{"handle": "x"}} {self._initial_data_handle}{initial_data_info}
        """
"#,
        )
        .unwrap();
        let data_root = DataRoot::new(root.path());
        assert_eq!(
            import_runner_prompts(repo.path(), &data_root).unwrap(),
            [RUNNER_PROMPTS.relative()]
        );
        let written: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(RUNNER_PROMPTS.path(root.path())).unwrap(),
        )
        .unwrap();
        assert_eq!(written["policy_system"], "P {instructions}.");
        assert_eq!(
            written["capability_1_data_info"],
            "\nn={num_records} c={columns} p={preview}"
        );
        assert_eq!(
            written["capability_1_system"],
            "\nS {{\"handle\": \"x\"}} {handle}{data_info}\n        "
        );
    }

    #[test]
    fn an_unknown_field_is_an_error() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(repo.path().join("agents")).unwrap();
        std::fs::write(
            repo.path().join(AGENT),
            "def _build_policy_guidance(x):\n    content = f\"{other}\"\n\n\
             def _build_system_message(self):\n    initial_data_info = f\"{num_records}\"\n    \
             return f\"{initial_data_info}\"\n",
        )
        .unwrap();
        let root = tempfile::tempdir().unwrap();
        let err = import_runner_prompts(repo.path(), &DataRoot::new(root.path())).unwrap_err();
        assert!(err.to_string().contains("cannot fill in"), "{err}");
        std::fs::write(repo.path().join(AGENT), "def f():\n    pass\n").unwrap();
        let err = import_runner_prompts(repo.path(), &DataRoot::new(root.path())).unwrap_err();
        assert!(
            err.to_string()
                .contains("no function _build_policy_guidance"),
            "{err}"
        );
    }
}

//! Tool and model descriptions of the reference's Python servers, read from their source.
//!
//! Descriptions are benchmark content: they come from the user's checkout at import time and are
//! written into the data root, never into this repository. FastMCP describes a tool by
//! `inspect.getdoc` of its function, and pydantic a model by its class docstring, both cleaned by
//! `inspect.cleandoc`; [`cleandoc`] reproduces that.

use std::path::Path;

use serde_json::{Map, Value, json};
use vakra_pysyntax::ast::{Constant, ExprKind, Stmt, StmtKind};
use vakra_pytext::is_space;

use crate::{ImportError, io_error};

/// The BPO server's tool descriptions and its response models' descriptions.
pub const BPO_SERVER: &str = "environment/bpo/mcp/server.py";
/// The BPO response models.
pub const BPO_SCHEMAS: &str = "environment/bpo/api/schemas.py";

/// Reads the BPO texts from a checkout: `{"tools": [{"name", "description"}], "models":
/// {"<class>": "<description>"}}`, tools in declaration order. `None` when the checkout has no
/// BPO server.
pub fn bpo_texts(repo: &Path) -> Result<Option<Value>, ImportError> {
    let server = repo.join(BPO_SERVER);
    if !server.is_file() {
        return Ok(None);
    }
    let mut tools = Vec::new();
    for stmt in parse(&server)? {
        if let StmtKind::FunctionDef(def) = &stmt.kind
            && def.decorators.iter().any(|d| d.to_string() == "mcp.tool()")
        {
            tools.push(json!({"name": def.name, "description": docstring(&def.body).map(|d| cleandoc(&d))}));
        }
    }
    let mut models = Map::new();
    let schemas = repo.join(BPO_SCHEMAS);
    if schemas.is_file() {
        for stmt in parse(&schemas)? {
            if let StmtKind::ClassDef { name, body, .. } = &stmt.kind
                && let Some(doc) = docstring(body)
            {
                models.insert(name.clone(), Value::String(cleandoc(&doc)));
            }
        }
    }
    Ok(Some(json!({"tools": tools, "models": models})))
}

pub(crate) fn parse(path: &Path) -> Result<Vec<Stmt>, ImportError> {
    let source = std::fs::read_to_string(path).map_err(io_error(path))?;
    vakra_pysyntax::parse_module(&source)
        .map(|m| m.body)
        .map_err(|e| ImportError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })
}

pub(crate) fn docstring(body: &[Stmt]) -> Option<String> {
    match &body.first()?.kind {
        StmtKind::Expr(e) => match &e.kind {
            ExprKind::Constant(Constant::Str(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Python's `inspect.cleandoc` (Python 3.11): tabs expanded, the common indentation of all lines
/// but the first removed, the first line's leading blanks removed, leading and trailing empty
/// lines dropped. Indentation is counted in characters and a blank is whatever Python's
/// `str.isspace` accepts (Unicode spaces such as U+3000 included), as `str.lstrip` and the
/// slicing in Python do.
pub fn cleandoc(doc: &str) -> String {
    let expanded: Vec<String> = doc.split('\n').map(expand_tabs).collect();
    let margin = expanded
        .iter()
        .skip(1)
        .filter_map(|l| {
            let content = l.trim_start_matches(is_space);
            (!content.is_empty()).then(|| l.chars().count() - content.chars().count())
        })
        .min()
        .unwrap_or(0);
    let mut lines: Vec<String> = expanded
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.trim_start_matches(is_space).to_owned()
            } else {
                l.chars().skip(margin).collect()
            }
        })
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let first = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    lines[first..].join("\n")
}

/// Python's `str.expandtabs()` for one line: tab stops every 8 columns, the column counted in
/// characters and reset by a carriage return.
fn expand_tabs(line: &str) -> String {
    let mut out = String::new();
    let mut column = 0;
    for c in line.chars() {
        match c {
            '\t' => {
                let pad = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', pad));
                column += pad;
            }
            '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::cleandoc;

    #[test]
    fn cleandoc_matches_python() {
        assert_eq!(
            cleandoc("\n    Retrieves x.\n\n    Args:\n        a: b\n    "),
            "Retrieves x.\n\nArgs:\n    a: b"
        );
        assert_eq!(cleandoc("One line."), "One line.");
        assert_eq!(
            cleandoc("  First.\n      deeper\n    less"),
            "First.\n  deeper\nless"
        );
        assert_eq!(cleandoc("\tTabbed\n\tline"), "Tabbed\nline");
        assert_eq!(cleandoc(""), "");
    }

    /// Indentation made of multi-byte blanks is measured in characters, as Python slices
    /// (expected values from Python 3.11's `inspect.cleandoc`).
    #[test]
    fn cleandoc_counts_non_ascii_indentation_in_characters() {
        assert_eq!(
            cleandoc(
                "First.\n\u{3000}\u{3000}Two ideographic spaces.\n\u{3000}\u{3000}\u{3000}Three."
            ),
            "First.\nTwo ideographic spaces.\n\u{3000}Three."
        );
        assert_eq!(cleandoc("x\n\u{a0}\u{a0}a\n    b"), "x\na\n  b");
        assert_eq!(
            cleandoc("\u{2003} Lead\n\u{2003}\u{2003}deep\n\u{2003}less"),
            "Lead\n\u{2003}deep\nless"
        );
        // Python's `isspace` also accepts the information separators.
        assert_eq!(
            cleandoc("x\n\u{1c}\u{1c}A\n\u{1c}\u{1c}\u{1c}B"),
            "x\nA\n\u{1c}B"
        );
        // A carriage return restarts the tab column.
        assert_eq!(cleandoc("a\n\tb\r\tc\n        d"), "a\nb\r        c\nd");
    }
}

//! Capability 1's data-root files, from a reference checkout: the universe mapping converted
//! to JSON, and the prose of the tool listing read from the reference's Python source.
//!
//! The texts come from four files, parsed and never executed: the input models (pydantic
//! `Field(description=…)`, `json_schema_extra` descriptions, enum docstrings, and the preset
//! fields of the SEL-BIRD subclasses), the tool registry's docstrings, the server (the handle
//! argument's description, `get_data`'s description and input model) and the getter factory.

use std::collections::HashMap;
use std::path::Path;

use vakra_catalog::files::{TOOL_TEXTS, UNIVERSES};
use vakra_catalog::{DataRoot, ModelTexts, ToolTexts, Universes};
use vakra_pysyntax::ast::{Constant, Expr, ExprKind, Stmt, StmtKind};

use crate::docstrings::{cleandoc, docstring, parse};
use crate::{ImportError, io_error};

/// The reference's universe mapping.
pub const MAPPING: &str = "environment/configs/mcp_tool_universe_id_mapping.yaml";
const MODELS: &str = "environment/m3/python_tools/tools/pydantic_models.py";
const REGISTRY: &str = "environment/m3/python_tools/tools/tool_registry.py";
const SERVER: &str = "environment/m3/python_tools/mcp/mcp_server.py";
const GETTERS: &str = "environment/m3/python_tools/tools/sql_tools.py";

/// Writes [`UNIVERSES`] and [`TOOL_TEXTS`] when the checkout has
/// capability 1; returns the files written.
pub fn import_chaining(repo: &Path, root: &DataRoot) -> Result<Vec<String>, ImportError> {
    let mapping = repo.join(MAPPING);
    if !mapping.is_file() || !repo.join(MODELS).is_file() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&mapping).map_err(io_error(&mapping))?;
    let universes = Universes::from_yaml(&text).map_err(|e| ImportError::Parse {
        path: mapping.clone(),
        message: e.to_string(),
    })?;
    universes
        .write(root.path())
        .map_err(io_error(&UNIVERSES.path(root.path())))?;
    let texts = tool_texts(repo)?;
    TOOL_TEXTS
        .write_json(root.path(), &texts)
        .map_err(io_error(&TOOL_TEXTS.path(root.path())))?;
    Ok(vec![UNIVERSES.relative(), TOOL_TEXTS.relative()])
}

/// Reads the listing's prose from a checkout.
pub fn tool_texts(repo: &Path) -> Result<ToolTexts, ImportError> {
    let mut texts = ToolTexts::default();
    for file in [MODELS, SERVER] {
        let path = repo.join(file);
        if path.is_file() {
            read_models(&parse(&path)?, &mut texts);
        }
    }
    let server = repo.join(SERVER);
    if server.is_file() {
        for stmt in parse(&server)? {
            walk(&stmt, &mut |s| match &s.kind {
                StmtKind::Assign { targets, value } if targets.iter().any(is_get_data_slot) => {
                    texts.get_data = string(value);
                }
                StmtKind::Assign { value, .. }
                | StmtKind::AnnAssign {
                    value: Some(value), ..
                } => {
                    if let Some(d) = handle_description(value) {
                        texts.handle = Some(d);
                    }
                }
                _ => {}
            });
        }
    }
    let registry = repo.join(REGISTRY);
    if registry.is_file() {
        for stmt in parse(&registry)? {
            walk_exprs(&stmt, &mut |e| {
                if let ExprKind::Dict(items) = &e.kind
                    && let (Some(name), Some(doc)) = (spec_name(items), entry(items, "docstring"))
                {
                    texts.tools.entry(name).or_insert(doc);
                }
            });
        }
    }
    let getters = repo.join(GETTERS);
    if getters.is_file() {
        for stmt in parse(&getters)? {
            if let StmtKind::FunctionDef(def) = &stmt.kind
                && def.name == "create_getter"
            {
                for inner in &def.body {
                    walk_exprs(inner, &mut |e| {
                        if texts.getter_args.is_none()
                            && let ExprKind::Constant(Constant::Str(s)) = &e.kind
                            && !s.starts_with('\n')
                        {
                            texts.getter_args = Some(s.clone());
                        }
                    });
                }
            }
        }
    }
    Ok(texts)
}

/// Classes: enums give their cleaned docstring; input models their `json_schema_extra`
/// description (else docstring) and field descriptions; subclasses of another model of the file
/// (one with fields) are SEL-BIRD presets, keyed by the tool they serve.
fn read_models(module: &[Stmt], texts: &mut ToolTexts) {
    let mut local: Vec<String> = Vec::new();
    for stmt in module {
        let StmtKind::ClassDef {
            name, bases, body, ..
        } = &stmt.kind
        else {
            continue;
        };
        let base_names: Vec<String> = bases.iter().map(|b| b.to_string()).collect();
        let fields = field_descriptions(body);
        if base_names
            .iter()
            .any(|b| b == "Enum" || b.ends_with(".Enum"))
        {
            let description = docstring(body).map(|d| cleandoc(&d));
            texts.models.insert(
                name.clone(),
                ModelTexts {
                    description,
                    fields: HashMap::new(),
                },
            );
        } else if base_names.iter().any(|b| local.contains(b)) && !fields.is_empty() {
            let tool = snake_case(name.strip_suffix("Input").unwrap_or(name));
            texts.presets.insert(tool, fields);
        } else {
            let description =
                schema_extra_description(body).or_else(|| docstring(body).map(|d| cleandoc(&d)));
            let has_fields = !fields.is_empty();
            texts.models.insert(
                name.clone(),
                ModelTexts {
                    description,
                    fields,
                },
            );
            if has_fields {
                local.push(name.clone());
            }
        }
    }
}

fn field_descriptions(body: &[Stmt]) -> HashMap<String, String> {
    let mut fields = HashMap::new();
    for stmt in body {
        if let StmtKind::AnnAssign {
            target,
            value: Some(value),
            ..
        } = &stmt.kind
            && let ExprKind::Name(field) = &target.kind
            && let ExprKind::Call { keywords, .. } = &value.kind
            && let Some(description) = keywords
                .iter()
                .find(|k| k.arg.as_deref() == Some("description"))
                .and_then(|k| string(&k.value))
        {
            fields.insert(field.clone(), description);
        }
    }
    fields
}

/// `model_config = ConfigDict(json_schema_extra={"description": …})`.
fn schema_extra_description(body: &[Stmt]) -> Option<String> {
    body.iter().find_map(|stmt| {
        let StmtKind::Assign { targets, value } = &stmt.kind else {
            return None;
        };
        if !targets
            .iter()
            .any(|t| matches!(&t.kind, ExprKind::Name(n) if n == "model_config"))
        {
            return None;
        }
        let ExprKind::Call { keywords, .. } = &value.kind else {
            return None;
        };
        let extra = keywords
            .iter()
            .find(|k| k.arg.as_deref() == Some("json_schema_extra"))?;
        match &extra.value.kind {
            ExprKind::Dict(items) => entry(items, "description"),
            _ => None,
        }
    })
}

/// `{"type": "string", "description": …}`: the schema that replaces data fields.
fn handle_description(value: &Expr) -> Option<String> {
    let ExprKind::Dict(items) = &value.kind else {
        return None;
    };
    (items.len() == 2 && entry(items, "type").as_deref() == Some("string"))
        .then(|| entry(items, "description"))
        .flatten()
}

/// `self.tool_docstrings[GET_DATA_FCN]`.
fn is_get_data_slot(target: &Expr) -> bool {
    matches!(&target.kind, ExprKind::Subscript { .. })
        && target.to_string().ends_with("[GET_DATA_FCN]")
}

/// A registry spec's tool name: its `name` when written as a string, else the name of its
/// `tool` function (the registry names tools by constants equal to their functions' names).
fn spec_name(items: &[(Option<Expr>, Expr)]) -> Option<String> {
    entry(items, "name").or_else(|| {
        items
            .iter()
            .find_map(|(k, v)| match (k.as_ref().and_then(string), &v.kind) {
                (Some(key), ExprKind::Name(function)) if key == "tool" => Some(function.clone()),
                _ => None,
            })
    })
}

fn entry(items: &[(Option<Expr>, Expr)], key: &str) -> Option<String> {
    items.iter().find_map(|(k, v)| {
        (k.as_ref().and_then(string).as_deref() == Some(key))
            .then(|| string(v))
            .flatten()
    })
}

fn string(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Constant(Constant::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

pub(crate) fn walk<'s>(stmt: &'s Stmt, f: &mut dyn FnMut(&'s Stmt)) {
    f(stmt);
    stmt.for_each_child(&mut |_| {}, &mut |s| walk(s, f));
}

pub(crate) fn walk_exprs<'s>(stmt: &'s Stmt, f: &mut dyn FnMut(&'s Expr)) {
    fn expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
        f(e);
        e.for_each_child(&mut |c| expr(c, f));
    }
    walk(stmt, &mut |s| {
        s.for_each_child(&mut |e| expr(e, f), &mut |_| {})
    });
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn preset_classes_name_their_tools() {
        assert_eq!(snake_case("SelectDataEqualTo"), "select_data_equal_to");
        assert_eq!(snake_case("ComputeDataArgmin"), "compute_data_argmin");
        assert_eq!(snake_case("SortDataAscending"), "sort_data_ascending");
    }
}

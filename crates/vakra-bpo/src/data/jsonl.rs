//! Reads `candidate_data.jsonl`: one JSON object per line with the parquet file's column names.
//! Timestamps are `YYYY-MM-DD HH:MM:SS` strings or null, booleans are JSON booleans, and
//! `skills` is either a Python list literal (as in the parquet file) or a JSON array of strings.
//! Other keys are ignored; blank lines are skipped.

use std::path::Path;

use serde_json::{Map, Value};

use super::time::parse_timestamp;
use super::{Flag, RawSkills, RawTable};
use crate::error::BpoError;

pub fn read(path: &Path) -> Result<RawTable, BpoError> {
    let text = std::fs::read_to_string(path).map_err(|source| BpoError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut table = RawTable::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fail = |message: String| BpoError::Jsonl {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let record: Map<String, Value> =
            serde_json::from_str(line).map_err(|e| fail(format!("not a JSON object: {e}")))?;
        push_record(&mut table, &record).map_err(fail)?;
    }
    Ok(table)
}

fn push_record(table: &mut RawTable, record: &Map<String, Value>) -> Result<(), String> {
    let text = |name: &str| -> Result<Option<String>, String> {
        match record.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{name}` should be a string or null")),
        }
    };
    let required = |name: &str| -> Result<String, String> {
        text(name)?.ok_or_else(|| format!("`{name}` is missing"))
    };
    let timestamp = |name: &str| -> Result<Option<i64>, String> {
        text(name)?
            .map(|s| parse_timestamp(&s).ok_or_else(|| format!("`{name}`: bad timestamp {s:?}")))
            .transpose()
    };
    let skills = match record.get("skills") {
        None | Some(Value::Null) => RawSkills::List(Vec::new()),
        Some(Value::String(s)) => RawSkills::Literal(s.clone()),
        Some(Value::Array(items)) => RawSkills::List(
            items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or("`skills` should hold strings")?,
        ),
        Some(_) => return Err("`skills` should be a list literal or an array".into()),
    };
    let mut flags = Vec::with_capacity(Flag::ALL.len());
    for (flag, name) in Flag::ALL {
        match record.get(name) {
            Some(Value::Bool(b)) => flags.push((flag, *b)),
            _ => return Err(format!("`{name}` should be true or false")),
        }
    }

    table.requisition_id.push(required("requisition_id")?);
    table.source_name.push(required("source_name")?);
    table.department.push(text("department")?);
    table.seniority_level.push(text("seniority_level")?);
    table
        .requisition_template_id
        .push(text("requisition_template_id")?);
    table.applied_at.push(timestamp("applied_at")?);
    table.hire_date.push(timestamp("hire_date")?);
    table.skills.push(skills);
    table.flags.push(0);
    let row = table.flags.len() - 1;
    for (flag, value) in flags {
        table.set_flag(row, flag, value);
    }
    Ok(())
}

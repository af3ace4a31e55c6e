//! The benchmark's record formats (ground truth, agent input, predictions), read leniently.
//!
//! The reference evaluator crashes on records that do not have the exact shape it expects; here
//! every record is parsed on its own and what cannot be used becomes a [`Problem`] in the
//! report, so one malformed record never stops a run.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Something wrong with an input file or record, kept for the report.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Problem {
    /// The file it was found in.
    pub file: String,
    /// The record's uuid, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    pub message: String,
}

/// One tool call as a trace records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    /// The arguments: an object, or (from some agents) a JSON string to be parsed before the
    /// call, or anything else, which replays as an error.
    pub arguments: Value,
    /// The legacy capability-1 form names each call's result for later `$<label>.data_path$`
    /// references.
    pub label: Option<String>,
}

/// One turn of a dialogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub turn_id: Option<i64>,
    pub query: String,
    pub answer: Value,
    pub calls: Vec<Call>,
    /// The trace's own `tool_response` list (ground truth keeps the retrieved documents here).
    pub stored_responses: Vec<Value>,
    /// Items of `tool_call` that are not calls (no `name`, or not an object). They are not
    /// replayed, but the reference still counts them: it pads the turn's responses with one
    /// `None` (an empty response) for each, after the replayed ones (spec §2.8).
    pub unnamed_calls: usize,
    /// The turn's `sequence` has a `tool_call` key. The reference replays only such turns: a
    /// capability-1 trace with none gets no `get_data` replayed (spec §2.5).
    pub lists_calls: bool,
}

/// A ground-truth or prediction record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub uuid: String,
    pub domain: String,
    pub additional_instructions: String,
    pub turns: Vec<Turn>,
    /// The trial index `vakra run --trials` writes (absent in the reference's records).
    pub trial: Option<u32>,
    /// The model's token counts (`usage`) that `vakra run` writes.
    pub tokens: Option<crate::trials::Tokens>,
    /// The seconds the run spent on the sample (`duration_s`, written by `vakra run`).
    pub duration_s: Option<f64>,
}

/// The largest record file read (a prediction or ground-truth file of the benchmark is a few
/// MB); a larger one is refused instead of filling memory.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The text of a record file: regular files only (a FIFO would block, a device would never
/// end), at most [`MAX_FILE_BYTES`].
pub fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file (a FIFO, device or socket)".into());
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(format!(
            "the file holds {} bytes, more than the limit of {MAX_FILE_BYTES}",
            metadata.len()
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("the file grew beyond {MAX_FILE_BYTES} bytes"));
    }
    String::from_utf8(bytes).map_err(|e| format!("stream did not contain valid UTF-8: {e}"))
}

/// Reads a JSON file holding an array of records; each element is returned as is.
pub fn read_array(path: &Path) -> Result<Vec<Value>, String> {
    let text = read_text(path).map_err(|e| format!("cannot read: {e}"))?;
    match vakra_pytext::loads::loads(text.as_bytes()) {
        Ok(Value::Array(items)) => Ok(items),
        Ok(_) => Err("expected a JSON array of records".into()),
        Err(e) => Err(format!("not valid JSON: {e}")),
    }
}

/// Parses one record; the error says what makes it unusable.
pub fn parse_record(value: &Value) -> Result<Record, String> {
    let object = value.as_object().ok_or("a record must be a JSON object")?;
    let uuid = match object.get("uuid") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err("the record has no uuid".into()),
    };
    let domain = object
        .get("domain")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let additional_instructions = object
        .get("additional_instructions")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let turns = match object.get("output") {
        Some(Value::Array(turns)) => turns.iter().map(parse_turn).collect::<Result<_, _>>()?,
        Some(Value::Object(_)) => vec![parse_turn(&object["output"])?],
        Some(Value::Null) | None => Vec::new(),
        Some(_) => return Err("`output` must be a list of turns".into()),
    };
    let trial = match object.get("trial") {
        None | Some(Value::Null) => None,
        Some(value) => Some(
            value
                .as_u64()
                .and_then(|t| u32::try_from(t).ok())
                .ok_or("`trial` must be a non-negative integer")?,
        ),
    };
    let tokens = object.get("usage").and_then(|usage| {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64);
        Some(crate::trials::Tokens {
            input_tokens: count("input_tokens")?,
            output_tokens: count("output_tokens")?,
        })
    });
    let duration_s = object
        .get("duration_s")
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 0.0);
    Ok(Record {
        duration_s,
        uuid,
        domain,
        additional_instructions,
        turns,
        trial,
        tokens,
    })
}

fn parse_turn(value: &Value) -> Result<Turn, String> {
    let object = value.as_object().ok_or("a turn must be a JSON object")?;
    let turn_id = object.get("turn_id").and_then(|v| match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    let query = match object.get("query") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => vakra_pytext::py_str(other),
    };
    let answer = object.get("answer").cloned().unwrap_or(Value::Null);
    let mut turn = Turn {
        turn_id,
        query,
        answer,
        calls: Vec::new(),
        stored_responses: Vec::new(),
        unnamed_calls: 0,
        lists_calls: false,
    };
    match object.get("sequence") {
        Some(Value::Object(sequence)) => read_sequence(sequence, &mut turn)?,
        // The published capability-1 sample wraps the sequence object in a list.
        Some(Value::Array(items)) => {
            for item in items {
                let sequence = item
                    .as_object()
                    .ok_or("`sequence` must be an object (or a list of objects)")?;
                read_sequence(sequence, &mut turn)?;
            }
        }
        Some(Value::Null) | None => {}
        Some(_) => return Err("`sequence` must be an object".into()),
    }
    Ok(turn)
}

/// Adds a sequence object's calls and stored responses to `turn`, and counts the `tool_call`
/// items that are not calls.
fn read_sequence(sequence: &Map<String, Value>, turn: &mut Turn) -> Result<(), String> {
    match sequence.get("tool_call") {
        Some(Value::Array(items)) => {
            for item in items {
                match parse_call(item) {
                    Some(call) => turn.calls.push(call),
                    None => turn.unnamed_calls += 1,
                }
            }
            turn.lists_calls = true;
        }
        Some(Value::Null) => turn.lists_calls = true,
        None => {}
        Some(_) => return Err("`sequence.tool_call` must be a list".into()),
    }
    if let Some(Value::Array(items)) = sequence.get("tool_response") {
        turn.stored_responses.extend(items.iter().cloned());
    }
    Ok(())
}

/// A `tool_call` item that names a tool; `None` for anything else.
fn parse_call(item: &Value) -> Option<Call> {
    let call = item.as_object()?;
    let name = call.get("name")?.as_str()?.to_owned();
    Some(Call {
        name,
        arguments: call
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new())),
        label: call.get("label").and_then(Value::as_str).map(str::to_owned),
    })
}

/// Reads a file of records: the usable ones, and a problem for each one that is not.
pub fn read_records(path: &Path) -> (Vec<Record>, Vec<Problem>) {
    let file = path.display().to_string();
    let items = match read_array(path) {
        Ok(items) => items,
        Err(message) => {
            return (
                Vec::new(),
                vec![Problem {
                    file,
                    uuid: None,
                    message,
                }],
            );
        }
    };
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match parse_record(item) {
            Ok(record) => records.push(record),
            Err(message) => problems.push(Problem {
                file: file.clone(),
                uuid: item.get("uuid").and_then(Value::as_str).map(str::to_owned),
                message: format!("record {index}: {message}"),
            }),
        }
    }
    (records, problems)
}

/// The benchmark's names of the four capabilities' data folders.
pub const CAPABILITY_DIRS: [&str; 4] = [
    "capability_1_bi_apis",
    "capability_2_dashboard_apis",
    "capability_3_multihop_reasoning",
    "capability_4_multiturn",
];

/// The capability (1–4) a folder name stands for: `capability_<n>_…`.
pub fn capability_of_dir(name: &str) -> Option<u8> {
    let rest = name.strip_prefix("capability_")?;
    let digit = rest.chars().next()?.to_digit(10)?;
    ((1..=4).contains(&digit) && rest[1..].starts_with('_')).then_some(digit as u8)
}

/// The `<domain>.json` files of a folder, sorted by name (`*_tools.json` and dot files skipped,
/// as the reference's runner writes those beside its predictions).
pub fn domain_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let stem = path.file_stem()?.to_str()?.to_owned();
            let is_json = path.extension().is_some_and(|e| e == "json");
            (is_json && !stem.starts_with('.') && !stem.ends_with("_tools") && path.is_file())
                .then_some((stem, path))
        })
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sequence_lists_and_string_ids_are_accepted() {
        let record = parse_record(&json!({
            "uuid": "u1", "domain": "d",
            "output": [{"turn_id": "2", "query": "q", "answer": ["1"],
                        "sequence": [{"tool_call": [{"name": "a", "arguments": {"x": 1}, "label": "L"}, {"arguments": {}}]}]}]
        }))
        .unwrap();
        assert_eq!(record.turns[0].turn_id, Some(2));
        assert_eq!(
            record.turns[0].calls.len(),
            1,
            "calls without a name are not replayed"
        );
        assert_eq!(record.turns[0].unnamed_calls, 1, "but they are counted");
        assert!(record.turns[0].lists_calls);
        let bare =
            parse_record(&json!({"uuid": "u", "output": [{"sequence": {}}, {"query": "q"}]}));
        assert!(bare.unwrap().turns.iter().all(|t| !t.lists_calls));
        assert_eq!(record.turns[0].calls[0].arguments, json!({"x": 1}));
    }

    #[test]
    fn unusable_records_say_why() {
        assert!(parse_record(&json!([1])).unwrap_err().contains("object"));
        assert!(
            parse_record(&json!({"domain": "d"}))
                .unwrap_err()
                .contains("uuid")
        );
        assert!(
            parse_record(&json!({"uuid": "u", "output": [{"sequence": 3}]}))
                .unwrap_err()
                .contains("sequence")
        );
    }

    #[test]
    fn capability_folders() {
        assert_eq!(capability_of_dir("capability_4_multiturn"), Some(4));
        assert_eq!(capability_of_dir("capability_5_x"), None);
        assert_eq!(capability_of_dir("capability_12"), None);
    }
}

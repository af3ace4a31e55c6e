//! The benchmark's record formats (ground truth, agent input, predictions), read leniently.
//!
//! The reference evaluator crashes on records that do not have the exact shape it expects; here
//! every record is parsed on its own and what cannot be used becomes a [`Problem`] in the
//! report, so one malformed record never stops a run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

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
    pub tokens: Option<crate::Tokens>,
    /// The seconds the run spent on the sample (`duration_s`, written by `vakra run`).
    pub duration_s: Option<f64>,
}

/// The default of the largest record file read (a prediction or ground-truth file of the
/// benchmark is a few MB); a larger one is refused with a clear error instead of filling memory.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 512 << 20;

/// The default of how many problems (or validation errors) are listed per file; the rest are
/// counted.
pub const DEFAULT_MAX_LISTED: usize = 1_000;

static MAX_FILE_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_FILE_BYTES);
static MAX_LISTED: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_LISTED);

/// The largest input file [`read_text`] reads in this process (`--max-input-bytes`).
pub fn max_file_bytes() -> u64 {
    MAX_FILE_BYTES.load(Ordering::Relaxed)
}

/// How many problems (or validation errors) are listed per file in this process
/// (`--max-listed`); the rest are counted.
pub fn max_listed() -> usize {
    MAX_LISTED.load(Ordering::Relaxed)
}

/// Sets this process's input-file limits (`vakra eval` and `vakra validate` at startup).
pub fn set_input_limits(max_file_bytes: u64, max_listed: usize) {
    MAX_FILE_BYTES.store(max_file_bytes, Ordering::Relaxed);
    MAX_LISTED.store(max_listed, Ordering::Relaxed);
}

/// The bytes of a file read as input: regular files only (a FIFO would block, a device would
/// never end), at most `limit` bytes. The one bounded reader of records, reports, run.json and
/// trajectories.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let (file, metadata) = open_regular(path)?;
    if metadata.len() > limit {
        tracing::warn!(
            path = %path.display(),
            bytes = metadata.len(),
            limit,
            "an input file is larger than the limit (--max-input-bytes) and is not read"
        );
        return Err(format!(
            "the file holds {} bytes, more than the limit of {limit}",
            metadata.len()
        ));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("the file grew beyond {limit} bytes"));
    }
    Ok(bytes)
}

/// A file opened for reading if it is a regular file: a FIFO would block the reader, a device
/// would never end. Checked before opening (opening a FIFO blocks) and again after.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, std::fs::Metadata), String> {
    let regular = |metadata: std::fs::Metadata| {
        if metadata.is_file() {
            Ok(metadata)
        } else {
            Err("not a regular file (a FIFO, device or socket)".to_owned())
        }
    };
    regular(std::fs::metadata(path).map_err(|e| e.to_string())?)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let metadata = regular(file.metadata().map_err(|e| e.to_string())?)?;
    Ok((file, metadata))
}

/// The text of a record file, read by [`read_bounded`] with [`max_file_bytes`].
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = read_bounded(path, max_file_bytes())?;
    String::from_utf8(bytes).map_err(|e| format!("stream did not contain valid UTF-8: {e}"))
}

/// Why a text is not a JSON array.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArrayError {
    /// Not JSON at all (serde_json's message, or the nesting limit's).
    #[error("not valid JSON: {0}")]
    Json(String),
    /// Valid JSON, but not an array.
    #[error("expected a JSON array of records")]
    NotArray,
}

/// Hands each element of the JSON array in `text` to `each`, in order, without holding the
/// whole array: memory stays at one element however many there are. The text is checked whole
/// first (without building values), so on an error nothing was handed over. Nesting is limited
/// as [`vakra_pytext::loads::loads`] limits it.
pub fn for_each_item(text: &[u8], each: impl FnMut(Value) + Send) -> Result<usize, ArrayError> {
    use serde::Deserializer as _;
    use vakra_pytext::loads::{MAX_NESTING, SHALLOW_NESTING, nesting, too_deep};
    struct Items<F>(F);
    impl<'de, F: FnMut(Value)> serde::de::Visitor<'de> for Items<F> {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            mut self,
            mut seq: A,
        ) -> Result<usize, A::Error> {
            let mut count = 0;
            while let Some(item) = seq.next_element::<Value>()? {
                (self.0)(item);
                count += 1;
            }
            Ok(count)
        }
    }
    fn whole<T>(
        text: &[u8],
        read: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::SliceRead>,
        ) -> serde_json::Result<T>,
    ) -> Result<T, ArrayError> {
        let mut deserializer = serde_json::Deserializer::from_slice(text);
        deserializer.disable_recursion_limit();
        read(&mut deserializer)
            .and_then(|value| deserializer.end().map(|()| value))
            .map_err(|e| ArrayError::Json(e.to_string()))
    }
    let depth = nesting(text);
    if depth > MAX_NESTING {
        return Err(ArrayError::Json(too_deep(depth)));
    }
    let parse = move || {
        whole(text, |d| {
            <serde::de::IgnoredAny as serde::Deserialize>::deserialize(d)
        })?;
        if text.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
            return Err(ArrayError::NotArray);
        }
        whole(text, |d| d.deserialize_seq(Items(each)))
    };
    if depth <= SHALLOW_NESTING {
        return parse();
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(scope, parse)
            .map_err(|e| ArrayError::Json(format!("no thread to parse it: {e}")))?
            .join()
            .map_err(|_| ArrayError::Json("the parser failed".to_owned()))?
    })
}

/// A list that keeps its first `cap` items and counts the rest.
#[derive(Debug)]
pub struct Capped<T> {
    pub items: Vec<T>,
    /// Items pushed beyond the cap.
    pub dropped: usize,
    cap: usize,
}

impl<T> Capped<T> {
    pub fn new(cap: usize) -> Self {
        Self {
            items: Vec::new(),
            dropped: 0,
            cap,
        }
    }

    pub fn push(&mut self, item: T) {
        if self.items.len() < self.cap {
            self.items.push(item);
        } else {
            self.dropped += 1;
        }
    }

    /// The kept items, with `note(dropped)` after them when any were dropped.
    pub fn finish(mut self, note: impl FnOnce(usize) -> T) -> Vec<T> {
        if self.dropped > 0 {
            tracing::warn!(
                listed = self.items.len(),
                not_listed = self.dropped,
                "a file has more problems than are listed (--max-listed)"
            );
            self.items.push(note(self.dropped));
        }
        self.items
    }
}

/// Reads a JSON file holding an array of records; each element is returned as is.
pub fn read_array(path: &Path) -> Result<Vec<Value>, String> {
    let text = read_text(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut items = Vec::new();
    for_each_item(text.as_bytes(), |item| items.push(item)).map_err(|e| e.to_string())?;
    Ok(items)
}

/// Parses one record; the error says what makes it unusable.
pub fn parse_record(value: &Value) -> Result<Record, String> {
    take_record(value.clone())
}

/// Parses one record, moving its answers, arguments and responses out of `value` rather than
/// copying them (a record's 300 MB answer is held once).
pub fn take_record(value: Value) -> Result<Record, String> {
    let Value::Object(mut object) = value else {
        return Err("a record must be a JSON object".into());
    };
    let uuid = match object.get("uuid") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err("the record has no uuid".into()),
    };
    let text = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let domain = text("domain");
    let additional_instructions = text("additional_instructions");
    let turns = match object.remove("output") {
        Some(Value::Array(turns)) => turns.into_iter().map(take_turn).collect::<Result<_, _>>()?,
        Some(turn @ Value::Object(_)) => vec![take_turn(turn)?],
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
        Some(crate::Tokens {
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

fn take_turn(value: Value) -> Result<Turn, String> {
    let Value::Object(mut object) = value else {
        return Err("a turn must be a JSON object".into());
    };
    let turn_id = object.get("turn_id").and_then(|v| match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    let query = match object.remove("query") {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => String::new(),
        Some(other) => vakra_pytext::py_str(&other),
    };
    let answer = object.remove("answer").unwrap_or(Value::Null);
    let mut turn = Turn {
        turn_id,
        query,
        answer,
        calls: Vec::new(),
        stored_responses: Vec::new(),
        unnamed_calls: 0,
        lists_calls: false,
    };
    match object.remove("sequence") {
        Some(Value::Object(sequence)) => take_sequence(sequence, &mut turn)?,
        // The published capability-1 sample wraps the sequence object in a list.
        Some(Value::Array(items)) => {
            for item in items {
                let Value::Object(sequence) = item else {
                    return Err("`sequence` must be an object (or a list of objects)".into());
                };
                take_sequence(sequence, &mut turn)?;
            }
        }
        Some(Value::Null) | None => {}
        Some(_) => return Err("`sequence` must be an object".into()),
    }
    Ok(turn)
}

/// Adds a sequence object's calls and stored responses to `turn`, and counts the `tool_call`
/// items that are not calls.
fn take_sequence(mut sequence: Map<String, Value>, turn: &mut Turn) -> Result<(), String> {
    match sequence.remove("tool_call") {
        Some(Value::Array(items)) => {
            for item in items {
                match take_call(item) {
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
    if let Some(Value::Array(items)) = sequence.remove("tool_response") {
        turn.stored_responses.extend(items);
    }
    Ok(())
}

/// A `tool_call` item that names a tool; `None` for anything else.
fn take_call(item: Value) -> Option<Call> {
    let Value::Object(mut call) = item else {
        return None;
    };
    let name = call.get("name")?.as_str()?.to_owned();
    Some(Call {
        name,
        arguments: call
            .remove("arguments")
            .unwrap_or_else(|| Value::Object(Map::new())),
        label: call.get("label").and_then(Value::as_str).map(str::to_owned),
    })
}

/// Reads a file of records: the usable ones, and a problem for each one that is not.
pub fn read_records(path: &Path) -> (Vec<Record>, Vec<Problem>) {
    let mut records = Vec::new();
    let problems = read_records_with(path, |record| records.push(record));
    (records, problems)
}

/// Reads a file of records one at a time: each usable one goes to `each` as it is read (so a
/// caller can drop what it does not need), and the problems come back, at most [`max_listed`]
/// listed and the rest counted. A file that is not a JSON array is one problem, and then
/// nothing goes to `each`.
pub fn read_records_with(path: &Path, mut each: impl FnMut(Record) + Send) -> Vec<Problem> {
    let file = path.display().to_string();
    let whole_file = |message: String| {
        vec![Problem {
            file: file.clone(),
            uuid: None,
            message,
        }]
    };
    let text = match read_text(path) {
        Ok(text) => text,
        Err(e) => return whole_file(format!("cannot read: {e}")),
    };
    let mut problems = Capped::new(max_listed());
    let mut index = 0;
    let read = for_each_item(text.as_bytes(), |item| {
        let uuid = item.get("uuid").and_then(Value::as_str).map(str::to_owned);
        match take_record(item) {
            Ok(record) => each(record),
            Err(message) => problems.push(Problem {
                file: file.clone(),
                uuid,
                message: format!("record {index}: {message}"),
            }),
        }
        index += 1;
    });
    if let Err(e) = read {
        return whole_file(e.to_string());
    }
    problems.finish(|more| Problem {
        file: file.clone(),
        uuid: None,
        message: format!("{more} more unusable records, not listed"),
    })
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

/// The stem suffix of the tool-name files (`<domain>_tools.json`, [`crate::RunFile::Tools`])
/// that runners write beside their predictions.
pub(crate) const TOOLS_SUFFIX: &str = "_tools";

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
            (is_json && !stem.starts_with('.') && !stem.ends_with(TOOLS_SUFFIX) && path.is_file())
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
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Opening a FIFO with no writer would block: the check comes first.
            let error = read_bounded(&fifo, 10).unwrap_err();
            assert!(error.contains("not a regular file"), "{error}");
        }
        let error = read_text(Path::new("/dev/zero")).unwrap_err();
        assert!(error.contains("not a regular file"), "{error}");
        let big = dir.path().join("big.json");
        std::fs::write(&big, "[1, 2, 3]").unwrap();
        let error = read_bounded(&big, 4).unwrap_err();
        assert!(error.contains("more than the limit of 4"), "{error}");
        assert_eq!(read_bounded(&big, 9).unwrap(), b"[1, 2, 3]");
        let (records, problems) = read_records(Path::new("/dev/zero"));
        assert!(records.is_empty());
        assert!(
            problems[0].message.contains("not a regular file"),
            "{problems:?}"
        );
    }

    #[test]
    fn arrays_are_read_an_item_at_a_time_and_all_or_nothing() {
        let mut seen = Vec::new();
        assert_eq!(
            for_each_item(b" [1, {\"a\": [2]}, \"x\"] ", |v| seen.push(v)),
            Ok(3)
        );
        assert_eq!(seen, [json!(1), json!({"a": [2]}), json!("x")]);
        let mut seen = Vec::new();
        let error = for_each_item(b"[1, 2, oops]", |v| seen.push(v)).unwrap_err();
        assert!(matches!(error, ArrayError::Json(_)), "{error:?}");
        assert!(seen.is_empty(), "nothing is handed over from a broken text");
        assert_eq!(
            for_each_item(b"{\"a\": 1}", |_| ()),
            Err(ArrayError::NotArray)
        );
        assert!(matches!(
            for_each_item(b"[1] 2", |_| ()),
            Err(ArrayError::Json(_))
        ));
        let deep = format!("[{}{}]", "[".repeat(500), "]".repeat(500));
        assert_eq!(for_each_item(deep.as_bytes(), |_| ()), Ok(1));
        let too_deep = format!("[{}{}]", "[".repeat(1_000), "]".repeat(1_000));
        assert!(matches!(
            for_each_item(too_deep.as_bytes(), |_| ()),
            Err(ArrayError::Json(e)) if e.contains("nested")
        ));
    }

    #[test]
    fn problems_beyond_the_cap_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zeros.json");
        let n = DEFAULT_MAX_LISTED + 500;
        let zeros = vec!["0"; n].join(",");
        std::fs::write(&path, format!("[{zeros}, {{\"uuid\": \"u\"}}]")).unwrap();
        let mut uuids = Vec::new();
        let problems = read_records_with(&path, |record| uuids.push(record.uuid));
        assert_eq!(uuids, ["u"]);
        assert_eq!(problems.len(), DEFAULT_MAX_LISTED + 1);
        assert_eq!(
            problems.last().unwrap().message,
            "500 more unusable records, not listed"
        );
        assert!(
            problems[DEFAULT_MAX_LISTED - 1]
                .message
                .starts_with(&format!("record {}:", DEFAULT_MAX_LISTED - 1))
        );
    }

    #[test]
    fn capability_folders() {
        assert_eq!(capability_of_dir("capability_4_multiturn"), Some(4));
        assert_eq!(capability_of_dir("capability_5_x"), None);
        assert_eq!(capability_of_dir("capability_12"), None);
    }
}

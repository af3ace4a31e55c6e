//! The run's output folder, written sample by sample so that an interruption loses at most the
//! samples in flight, and read back so that running the same command again resumes.
//!
//! Per capability and domain, `DIR/capability_<n>_<name>/`:
//! - `<domain>.json`: the prediction records (submission format, spec §1.4, plus `trial` and
//!   `usage`), in input order then trial order; replaced atomically (write, then rename) after
//!   every finished sample;
//! - `<domain>_tools.json`: each sample's full and shortlisted tool names, replaced likewise;
//! - `<domain>.trajectory.jsonl`: one line per finished sample (messages, tool calls with
//!   results and timing, model latency and tokens per step), appended after the records are
//!   safe. On resume it is rewritten with the lines of the kept records only, so a line cut
//!   by a crash, or one of a sample that runs again, never stays.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use vakra_chat::Usage;
use vakra_records::records::read_array;
use vakra_records::{RunFile, Side, Split};

use crate::RunError;
use crate::episode::Finished;

/// A sample's trial: capability folder, domain, uuid, trial.
pub type Key = (String, String, String, u32);

/// The records of one domain file, ordered as written.
#[derive(Default)]
struct DomainFile {
    /// (position in the input, trial, uuid) → (record, tools entry).
    records: BTreeMap<(usize, u32, String), (Value, Value)>,
}

/// The output folder.
pub struct Store {
    out: PathBuf,
    files: HashMap<(String, String), DomainFile>,
    /// (capability folder, domain, uuid) → position in the input.
    positions: HashMap<(String, String, String), usize>,
}

/// Tokens and outcomes over every record in the folder.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct Totals {
    pub records: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub usage: Usage,
}

impl Store {
    /// Opens `out` (creating it), reading the records already there. `positions` places each
    /// sample in its domain's order; records of samples no longer in the input are kept after
    /// the others. With `retry_errors`, records with `status: "error"` are dropped so that
    /// their samples run again. Returns the store and the keys of the finished samples.
    pub fn open(
        out: &Path,
        positions: HashMap<(String, String, String), usize>,
        retry_errors: bool,
    ) -> Result<(Self, HashSet<Key>), RunError> {
        std::fs::create_dir_all(out).map_err(|e| RunError::output(out, e))?;
        let mut store = Self {
            out: out.to_owned(),
            files: HashMap::new(),
            positions,
        };
        let mut finished = HashSet::new();
        for capability in Split::new(out).capabilities(Side::Predictions, &[]) {
            let (capability_dir, folder) = (capability.name, capability.path);
            for (domain, path) in vakra_records::records::domain_files(&folder) {
                let records = read_array(&path).map_err(|message| RunError::Input {
                    path: path.clone(),
                    message: format!(
                        "{message} (an earlier run's output; move it away to start afresh)"
                    ),
                })?;
                // The tools entries of the records, by uuid and trial.
                let mut tools: HashMap<(String, u32), Value> =
                    read_array(&RunFile::Tools.path(&folder, &domain))
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|entry| Some((trial_key(&entry)?, entry)))
                        .collect();
                let file = store
                    .files
                    .entry((capability_dir.clone(), domain.clone()))
                    .or_default();
                for record in records {
                    let Some((uuid, trial)) = trial_key(&record) else {
                        continue;
                    };
                    if let Err(why) = usable(&record) {
                        tracing::warn!(
                            path = %path.display(),
                            uuid,
                            trial,
                            "a record of an earlier run is malformed ({why}): its sample runs again"
                        );
                        continue;
                    }
                    if retry_errors && record.get("status").and_then(Value::as_str) == Some("error")
                    {
                        continue;
                    }
                    let entry = tools.remove(&(uuid.clone(), trial)).unwrap_or(Value::Null);
                    let position = store
                        .positions
                        .get(&(capability_dir.clone(), domain.clone(), uuid.clone()))
                        .copied()
                        .unwrap_or(usize::MAX);
                    finished.insert((capability_dir.clone(), domain.clone(), uuid.clone(), trial));
                    file.records
                        .insert((position, trial, uuid), (record, entry));
                }
                let kept: HashSet<(String, u32)> = file
                    .records
                    .keys()
                    .map(|(_, trial, uuid)| (uuid.clone(), *trial))
                    .collect();
                prune_trajectories(&RunFile::Trajectory.path(&folder, &domain), &kept)?;
            }
        }
        Ok((store, finished))
    }

    /// Records a finished sample: the domain's files are replaced, then its trajectory line
    /// appended.
    pub fn add(&mut self, finished: &Finished) -> Result<(), RunError> {
        let folder = self.out.join(&finished.capability_dir);
        std::fs::create_dir_all(&folder).map_err(|e| RunError::output(&folder, e))?;
        let position = self
            .positions
            .get(&(
                finished.capability_dir.clone(),
                finished.domain.clone(),
                finished.uuid.clone(),
            ))
            .copied()
            .unwrap_or(usize::MAX);
        let file = self
            .files
            .entry((finished.capability_dir.clone(), finished.domain.clone()))
            .or_default();
        file.records.insert(
            (position, finished.trial, finished.uuid.clone()),
            (finished.record.clone(), finished.tools_entry.clone()),
        );
        let records: Vec<Value> = file.records.values().map(|(r, _)| r.clone()).collect();
        let tools: Vec<Value> = file
            .records
            .values()
            .map(|(_, t)| t.clone())
            .filter(|t| !t.is_null())
            .collect();
        write_atomically(
            &RunFile::Records.path(&folder, &finished.domain),
            &Value::Array(records),
        )?;
        write_atomically(
            &RunFile::Tools.path(&folder, &finished.domain),
            &Value::Array(tools),
        )?;
        let path = RunFile::Trajectory.path(&folder, &finished.domain);
        let mut line = finished.trajectory.to_string();
        line.push('\n');
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(|e| RunError::output(&path, e))
    }

    /// Outcomes and tokens over every record in the folder (earlier runs' included), per
    /// capability folder and, within it, per domain.
    pub fn totals(&self) -> BTreeMap<String, CapabilityTotals> {
        let mut totals: BTreeMap<String, CapabilityTotals> = BTreeMap::new();
        for ((capability_dir, domain), file) in &self.files {
            let capability = totals.entry(capability_dir.clone()).or_default();
            for (record, _) in file.records.values() {
                capability.all.add(record);
                capability
                    .domains
                    .entry(domain.clone())
                    .or_default()
                    .add(record);
            }
        }
        totals
    }
}

/// A capability folder's totals, and its domains'.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct CapabilityTotals {
    #[serde(flatten)]
    pub all: Totals,
    pub domains: BTreeMap<String, Totals>,
}

impl Totals {
    fn add(&mut self, record: &Value) {
        self.records += 1;
        if record.get("status").and_then(Value::as_str) == Some("success") {
            self.succeeded += 1;
        } else {
            self.failed += 1;
        }
        if let Some(usage) = record
            .get("usage")
            .and_then(|u| serde_json::from_value::<Usage>(u.clone()).ok())
        {
            self.usage += usage;
        }
    }
}

/// Whether a record of an earlier run counts as done: one the evaluator can use, with the
/// status and the turn every record `vakra run` writes has. Anything else runs again.
fn usable(record: &Value) -> Result<(), String> {
    let parsed = vakra_records::records::parse_record(record)?;
    match record.get("status").and_then(Value::as_str) {
        Some("success" | "error") => {}
        _ => return Err("`status` is not \"success\" or \"error\"".into()),
    }
    if parsed.turns.is_empty() {
        return Err("no turn in `output`".into());
    }
    Ok(())
}

/// Keeps the complete trajectory lines of kept records, once each, reading the file a line at
/// a time; a trajectory that is not a regular file (a FIFO would block) is an error.
fn prune_trajectories(path: &Path, kept: &HashSet<(String, u32)>) -> Result<(), RunError> {
    use std::io::BufRead;
    if !path.exists() {
        return Ok(());
    }
    let (file, _) =
        vakra_records::records::open_regular(path).map_err(|message| RunError::Input {
            path: path.to_owned(),
            message: format!(
                "{message} (an earlier run's trajectory; move it away to start afresh)"
            ),
        })?;
    let mut seen = HashSet::new();
    let mut out = String::new();
    for line in std::io::BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| RunError::Input {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        // A line that is not text was cut or garbled: dropped like any unusable line.
        let Ok(line) = String::from_utf8(line) else {
            continue;
        };
        let key = serde_json::from_str::<Value>(&line)
            .ok()
            .and_then(|value| trial_key(&value));
        if let Some(key) = key
            && kept.contains(&key)
            && seen.insert(key)
        {
            out.push_str(&line);
            out.push('\n');
        }
    }
    write_text_atomically(path, &out)
}

/// The uuid and trial (0 when absent) that a record, tools entry or trajectory line is about.
fn trial_key(value: &Value) -> Option<(String, u32)> {
    let uuid = value.get("uuid")?.as_str()?.to_owned();
    let trial = value.get("trial").and_then(Value::as_u64).unwrap_or(0);
    Some((uuid, u32::try_from(trial).ok()?))
}

/// Writes JSON as the reference's runner does (`json.dump(…, indent=2)`), atomically.
fn write_atomically(path: &Path, value: &Value) -> Result<(), RunError> {
    let text = vakra_pytext::dumps(value, &vakra_pytext::DumpOptions::indent2())
        .unwrap_or_else(|_| serde_json::to_string_pretty(value).unwrap_or_default());
    write_text_atomically(path, &text)
}

fn write_text_atomically(path: &Path, text: &str) -> Result<(), RunError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let temporary = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| RunError::output(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(uuid: &str) -> Value {
        json!({"uuid": uuid, "domain": "d", "status": "success", "error": "", "duration_s": 1.0,
               "output": [{"turn_id": 0, "query": "q", "answer": "a", "sequence": {"tool_call": []}}]})
    }

    #[test]
    fn malformed_records_of_an_earlier_run_run_again() {
        let out = tempfile::tempdir().unwrap();
        let folder = out.path().join("capability_2_dashboard_apis");
        std::fs::create_dir_all(&folder).unwrap();
        let records = json!([
            record("good"),
            {"uuid": "bare"},
            {"uuid": "no-status", "output": [{"query": "q"}]},
            {"uuid": "bad-output", "status": "success", "output": 3},
            {"uuid": "no-turn", "status": "error", "output": []},
        ]);
        std::fs::write(folder.join("d.json"), records.to_string()).unwrap();
        let (_, finished) = Store::open(out.path(), HashMap::new(), false).unwrap();
        let uuids: Vec<&str> = finished.iter().map(|key| key.2.as_str()).collect();
        assert_eq!(uuids, ["good"], "only the usable record counts as done");
    }

    #[test]
    fn a_trajectory_that_is_not_a_regular_file_is_an_error() {
        let out = tempfile::tempdir().unwrap();
        let folder = out.path().join("capability_2_dashboard_apis");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("d.json"), json!([record("good")]).to_string()).unwrap();
        let fifo = folder.join("d.trajectory.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: no mkfifo");
            return;
        }
        // Opening the FIFO would block for ever; the store refuses it at once.
        let error = Store::open(out.path(), HashMap::new(), false)
            .err()
            .expect("a FIFO trajectory is refused")
            .to_string();
        assert!(error.contains("not a regular file"), "{error}");
        assert!(error.contains("d.trajectory.jsonl"), "{error}");
    }

    #[test]
    fn trajectory_lines_of_kept_records_stay_once_and_garbled_lines_go() {
        let out = tempfile::tempdir().unwrap();
        let path = out.path().join("t.jsonl");
        let mut text =
            b"{\"uuid\": \"a\"}\n{\"uuid\": \"a\"}\n{\"uuid\": \"b\"}\n\xff\xfe\n{\"uuid\": \"c\""
                .to_vec();
        text.extend_from_slice(b"\n");
        std::fs::write(&path, text).unwrap();
        let kept: HashSet<(String, u32)> = [("a".to_owned(), 0), ("c".to_owned(), 0)]
            .into_iter()
            .collect();
        prune_trajectories(&path, &kept).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"uuid\": \"a\"}\n"
        );
    }
}

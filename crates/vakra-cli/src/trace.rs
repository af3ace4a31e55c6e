use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use vakra_mcp::trace::Trace;
use vakra_records::{PredictedCall, Prediction};

#[derive(Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    command: TraceCommand,
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Write traces as prediction records (the runner's output format), one per session.
    Export {
        /// A trace file, or a directory whose `*.jsonl` files are all read.
        #[arg(long = "trace", value_name = "FILE_OR_DIR", required = true)]
        traces: Vec<PathBuf>,
        /// The JSON file to write (an array of records).
        #[arg(long, value_name = "OUT.json")]
        out: PathBuf,
        /// A record's uuid: `SESSION_ID=UUID`, or `UUID` alone when exporting one trace.
        /// Default: the universe id of capability 1's `get_data`, else the session id.
        #[arg(long = "uuid", value_name = "[SESSION_ID=]UUID")]
        uuids: Vec<String>,
        /// A record's final answer, given like `--uuid` (default: empty).
        #[arg(long = "answer", value_name = "[SESSION_ID=]TEXT")]
        answers: Vec<String>,
        /// The turn id of every record's one output turn.
        #[arg(long, default_value_t = 0)]
        turn_id: i64,
    },
}

pub fn run(args: TraceArgs) -> anyhow::Result<()> {
    let TraceCommand::Export {
        traces,
        out,
        uuids,
        answers,
        turn_id,
    } = args.command;
    let traces = read_traces(&traces)?;
    let uuids = per_session(&uuids, &traces, "--uuid")?;
    let answers = per_session(&answers, &traces, "--answer")?;
    let records: Vec<Value> = traces
        .iter()
        .map(|trace| {
            let id = trace.header.session_id.as_str();
            let uuid = uuids
                .get(id)
                .cloned()
                .unwrap_or_else(|| default_uuid(trace));
            let answer = answers.get(id).cloned().unwrap_or_default();
            record(trace, uuid, answer, turn_id)
        })
        .collect();
    let text = serde_json::to_string_pretty(&records)? + "\n";
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    println!("exported {} sessions to {}", records.len(), out.display());
    Ok(())
}

/// Every trace named on the command line (directories: their `*.jsonl` files, by name),
/// ordered by start time.
fn read_traces(paths: &[PathBuf]) -> anyhow::Result<Vec<Trace>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("cannot read {}", path.display()))?
                .filter_map(|e| Some(e.ok()?.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl"))
                .collect();
            anyhow::ensure!(
                !found.is_empty(),
                "{}: no trace files (*.jsonl) in this directory",
                path.display()
            );
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    let mut traces = files
        .iter()
        .map(|f| Trace::read(f))
        .collect::<Result<Vec<_>, _>>()?;
    traces.sort_by(|a, b| a.header.started_at.cmp(&b.header.started_at));
    Ok(traces)
}

/// `SESSION_ID=VALUE` options as a map; a bare `VALUE` is allowed for a single trace.
fn per_session(
    options: &[String],
    traces: &[Trace],
    flag: &str,
) -> anyhow::Result<HashMap<String, String>> {
    let mut map = HashMap::new();
    for option in options {
        let (session, value) = match option.split_once('=') {
            Some((session, value)) => (session.to_owned(), value.to_owned()),
            None => match traces {
                [only] => (only.header.session_id.clone(), option.clone()),
                _ => anyhow::bail!(
                    "{flag} {option:?}: with {} traces, name the session: {flag} SESSION_ID=VALUE",
                    traces.len()
                ),
            },
        };
        anyhow::ensure!(
            traces.iter().any(|t| t.header.session_id == session),
            "{flag}: no trace has the session id {session:?}"
        );
        map.insert(session, value);
    }
    Ok(map)
}

/// Capability 1's universe id is the task's uuid; other sessions fall back to their id.
fn default_uuid(trace: &Trace) -> String {
    trace
        .calls
        .iter()
        .filter(|c| trace.header.capability == 1 && c.tool == "get_data")
        .find_map(|c| c.arguments.get("tool_universe_id")?.as_str())
        .map_or_else(|| trace.header.session_id.clone(), str::to_owned)
}

/// Seconds from the session's start to the end of its last call (0 without calls).
fn duration_s(trace: &Trace) -> f64 {
    let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    let (Some(start), Some(last)) = (
        parse(&trace.header.started_at),
        trace
            .calls
            .last()
            .and_then(|c| Some((parse(&c.started_at)?, c.duration_ms))),
    ) else {
        return 0.0;
    };
    let end = (last.0 - start).as_seconds_f64() + last.1 / 1000.0;
    (end * 1000.0).round() / 1000.0
}

fn record(trace: &Trace, uuid: String, answer: String, turn_id: i64) -> Value {
    let calls = trace
        .calls
        .iter()
        .map(|c| PredictedCall {
            name: c.tool.clone(),
            arguments: if c.arguments.is_null() {
                json!({})
            } else {
                c.arguments.clone()
            },
        })
        .collect();
    Prediction {
        uuid,
        domain: trace.header.domains.join(","),
        error: None,
        duration_s: Some(duration_s(trace)),
        turn_id,
        query: String::new(),
        answer: Value::String(answer),
        calls,
        trial: None,
        usage: None,
    }
    .to_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(id: &str, capability: u8, calls: &[(&str, Value)]) -> Trace {
        use vakra_mcp::trace::{CallRecord, SessionHeader};
        Trace {
            header: SessionHeader {
                session_id: id.into(),
                capability,
                domains: vec!["library".into()],
                started_at: "2026-01-01T00:00:00.000000Z".into(),
                vakra_version: "0".into(),
            },
            calls: calls
                .iter()
                .map(|(tool, arguments)| CallRecord {
                    tool: (*tool).into(),
                    arguments: arguments.clone(),
                    text: Some("x".into()),
                    is_error: false,
                    error: None,
                    started_at: "2026-01-01T00:00:01.500000Z".into(),
                    duration_ms: 250.0,
                })
                .collect(),
        }
    }

    #[test]
    fn uuids_come_from_options_then_universes_then_session_ids() {
        let one = trace("s1", 1, &[("get_data", json!({"tool_universe_id": "u-7"}))]);
        let two = trace("s2", 2, &[("get_x", Value::Null)]);
        assert_eq!(default_uuid(&one), "u-7");
        assert_eq!(default_uuid(&two), "s2");
        let traces = [one, two];
        let map = per_session(&["s2=abc".into()], &traces, "--uuid").unwrap();
        assert_eq!(map["s2"], "abc");
        let e = per_session(&["abc".into()], &traces, "--uuid").unwrap_err();
        assert!(e.to_string().contains("name the session"), "{e}");
        let e = per_session(&["nope=abc".into()], &traces, "--uuid").unwrap_err();
        assert!(e.to_string().contains("\"nope\""), "{e}");
    }

    #[test]
    fn records_have_one_turn_with_every_call() {
        let t = trace(
            "s2",
            2,
            &[("get_x", Value::Null), ("get_y", json!({"a": 1}))],
        );
        let r = record(&t, "u".into(), "42".into(), 3);
        assert_eq!(r["uuid"], "u");
        assert_eq!(r["domain"], "library");
        assert_eq!(r["duration_s"], 1.75);
        assert_eq!(r["output"][0]["turn_id"], 3);
        assert_eq!(r["output"][0]["answer"], "42");
        assert_eq!(
            r["output"][0]["sequence"]["tool_call"],
            json!([{"name": "get_x", "arguments": {}}, {"name": "get_y", "arguments": {"a": 1}}])
        );
    }
}

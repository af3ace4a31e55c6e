//! Capability 1 against the reference's own recordings: the transcripts of
//! `../shared/conformance/cap1-transcripts` replayed over stdio against `vakra mcp
//! --capability 1`, every `tools/list` and every tool answer compared byte for byte. The
//! reference ran under pandas 3.1.1 (`*_pandas3.json`, the default here) and pandas 2.3.3
//! (`*_pandas2.json`, replayed with `--pandas 2`). Shared has pandas-3 transcripts of two
//! scripts; `scripts/conformance.sh` records the reference under pandas 3 on every script into a
//! temporary folder named by `VAKRA_CAP1_PANDAS3`, whose transcripts are then replayed too.
//!
//! The data root is built here from shared material only: the reference's mapping (plus the
//! fixtures' extra universes) and tool texts read back out of the recorded listings, so the
//! schemas' structure, order and placement of every text are what is under test. The mock
//! databases are rebuilt from their SQL dumps.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use vakra_chaining::{ModelTexts, ToolTexts, Universes};
use vakra_test_kit::paths::shared_path_or_skip;
use vakra_test_kit::reference;
use vakra_test_kit::text::read_json;

/// The transcripts' folder in `shared/` and the reference's mapping, when both are there (else
/// the test is skipped).
struct Inputs {
    transcripts: PathBuf,
    mapping: PathBuf,
}

fn inputs() -> Option<Inputs> {
    let sql = shared_path_or_skip("conformance/cap1-transcripts/mockdb_disney.sql")?;
    let mapping = reference::file("environment/configs/mcp_tool_universe_id_mapping.yaml")?;
    let transcripts = sql.parent().expect("the transcripts' folder").to_owned();
    Some(Inputs {
        transcripts,
        mapping,
    })
}

/// The texts a listing shows, filed where the data root keeps them.
fn collect_texts(tools: &[Value], texts: &mut ToolTexts) {
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let description = tool["description"].as_str().unwrap_or_default();
        let schema = &tool["inputSchema"];
        if let Some(args) = description.strip_prefix("Lookup data ") {
            let args = args
                .split("\t\t")
                .nth(1)
                .and_then(|a| a.split("\n\t").next());
            texts.getter_args = args.map(str::to_owned);
        } else if name == "get_data" {
            texts.get_data = Some(description.to_owned());
        } else if !description.is_empty() {
            texts.tools.insert(name.to_owned(), description.to_owned());
        }
        let title = schema["title"].as_str().unwrap().to_owned();
        let model = texts.models.entry(title).or_default();
        model.description = schema["description"].as_str().map(str::to_owned);
        for (field, p) in schema["properties"].as_object().unwrap() {
            let Some(d) = p["description"].as_str() else {
                continue;
            };
            if field.starts_with("data_label") {
                texts.handle = Some(d.to_owned());
            } else if p.get("const").is_some() {
                let presets = texts.presets.entry(name.to_owned()).or_default();
                presets.insert(field.clone(), d.to_owned());
            } else {
                model.fields.insert(field.clone(), d.to_owned());
            }
        }
        for (def, body) in schema["$defs"].as_object().into_iter().flatten() {
            let description = body["description"].as_str().map(str::to_owned);
            texts.models.insert(
                def.clone(),
                ModelTexts {
                    description,
                    fields: HashMap::new(),
                },
            );
        }
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    dbs: PathBuf,
    transcripts: PathBuf,
}

fn fixture(inputs: &Inputs) -> Fixture {
    let transcripts = inputs.transcripts.clone();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let dbs = dir.path().join("dbs");
    std::fs::create_dir_all(root.join("capability1")).unwrap();
    for domain in ["disney", "beer_factory", "testdom", "testdom2"] {
        let sql =
            std::fs::read_to_string(transcripts.join(format!("mockdb_{domain}.sql"))).unwrap();
        std::fs::create_dir_all(dbs.join(domain)).unwrap();
        let conn =
            rusqlite::Connection::open(dbs.join(domain).join(format!("{domain}.sqlite"))).unwrap();
        conn.execute_batch(&sql).unwrap();
    }
    let mut universes =
        Universes::from_yaml(&std::fs::read_to_string(&inputs.mapping).unwrap()).unwrap();
    let additions =
        std::fs::read_to_string(transcripts.join("mapping_additions_testdom.yaml")).unwrap();
    universes.extend(Universes::from_yaml(&additions).unwrap());
    std::fs::write(
        vakra_catalog::files::UNIVERSES.path(&root),
        universes.to_json(),
    )
    .unwrap();
    let mut texts = ToolTexts::default();
    for name in ["sf_mode", "beer1", "disney1"] {
        for step in read_json(&transcripts.join(format!("transcript_{name}_pandas2.json")))
            .as_array()
            .unwrap()
        {
            if step["step"] == "tools/list" {
                collect_texts(step["result"]["tools"].as_array().unwrap(), &mut texts);
            }
        }
    }
    std::fs::write(
        vakra_catalog::files::TOOL_TEXTS.path(&root),
        serde_json::to_string(&texts).unwrap(),
    )
    .unwrap();
    Fixture {
        _dir: dir,
        root,
        dbs,
        transcripts,
    }
}

type Client = RunningService<RoleClient, ()>;

/// `vakra mcp` with the pandas switch as given (`None`: the default, from a clean environment).
async fn start(f: &Fixture, domain: &str, server_type: &str, pandas: Option<&str>) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vakra"));
    command
        .args(["mcp", "--capability", "1", "--domain", domain, "--root"])
        .arg(&f.root)
        .arg("--db-root")
        .arg(&f.dbs)
        .env_remove("VAKRA_PANDAS")
        .env("MCP_SERVER_TYPE", server_type)
        .stderr(Stdio::null());
    if let Some(pandas) = pandas {
        command.args(["--pandas", pandas]);
    }
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

fn listing_json(tools: Vec<rmcp::model::Tool>) -> Value {
    Value::Array(
        tools
            .into_iter()
            .map(|t| {
                json!({"name": t.name, "description": t.description.unwrap_or_default(),
                       "inputSchema": Value::Object((*t.input_schema).clone())})
            })
            .collect(),
    )
}

/// Replays one script's transcript recorded under pandas `major` (the server's default for 3,
/// `--pandas 2` for 2), read from `dir`; returns the number of steps compared and the
/// differences.
async fn replay(f: &Fixture, dir: &Path, name: &str, major: u8) -> (usize, Vec<String>) {
    let script = read_json(&f.transcripts.join(format!("script_{name}.json")));
    let transcript = read_json(&dir.join(format!("transcript_{name}_pandas{major}.json")));
    let domain = script["domain"].as_str().unwrap();
    let server_type = script["env"]["MCP_SERVER_TYPE"]
        .as_str()
        .unwrap_or("router");
    let client = start(f, domain, server_type, (major == 2).then_some("2")).await;
    let info = client.peer_info().unwrap();
    let mut diffs = Vec::new();
    let mut compared = 0;
    let db_root = f.dbs.display().to_string();
    for (i, step) in transcript.as_array().unwrap().iter().enumerate() {
        match step["step"].as_str().unwrap() {
            "initialize" => {
                let name = info.server_info.as_ref().map(|s| s.name.clone());
                assert_eq!(
                    name.as_deref(),
                    step["result"]["serverInfo"]["name"].as_str()
                );
            }
            "tools/list" => {
                let got = listing_json(client.list_all_tools().await.unwrap());
                let want = &step["result"]["tools"];
                if &got != want {
                    let got_names: Vec<&Value> =
                        got.as_array().unwrap().iter().map(|t| &t["name"]).collect();
                    let first_diff = got
                        .as_array()
                        .unwrap()
                        .iter()
                        .zip(want.as_array().unwrap())
                        .find(|(a, b)| a != b)
                        .map(|(a, b)| format!("\n      got  {a}\n      want {b}"))
                        .unwrap_or_default();
                    diffs.push(format!(
                        "{name} (pandas {major}) step {i} tools/list: names {got_names:?}{first_diff}"
                    ));
                }
                compared += 1;
            }
            "tools/call" => {
                let tool = step["name"].as_str().unwrap().to_owned();
                let mut arguments = step["arguments"].as_object().cloned().unwrap_or_default();
                if let Some(Value::String(path)) = arguments.get_mut("database_path") {
                    *path = path.replacen("/tmp/dbs", &db_root, 1);
                }
                let result = client
                    .call_tool(CallToolRequestParams::new(tool.clone()).with_arguments(arguments))
                    .await
                    .unwrap();
                let text = result.content[0]
                    .as_text()
                    .map(|t| t.text.clone())
                    .unwrap_or_default();
                let is_error = result.is_error.unwrap_or(false);
                let want_text = step["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                let want_error = step["result"]["isError"].as_bool().unwrap_or(false);
                if text != want_text || is_error != want_error {
                    diffs.push(format!(
                        "{name} (pandas {major}) step {i} {tool} {}\n      want ({want_error}) {want_text}\n      got  ({is_error}) {text}",
                        step["arguments"]
                    ));
                }
                compared += 1;
            }
            other => panic!("unknown step {other}"),
        }
    }
    client.cancel().await.unwrap();
    (compared, diffs)
}

const SCRIPTS: [&str; 8] = [
    "disney1", "disney2", "beer1", "test1", "test2", "test3", "sel_mode", "sf_mode",
];

/// Replays every transcript of `names` recorded under pandas `major`, from `dir` (default: the
/// shared folder).
async fn replay_all(major: u8, names: &[&str], dir: Option<PathBuf>) {
    let Some(inputs) = inputs() else {
        return;
    };
    let f = fixture(&inputs);
    let dir = dir.unwrap_or_else(|| f.transcripts.clone());
    let mut total = 0;
    let mut all = Vec::new();
    for &name in names {
        let (compared, diffs) = replay(&f, &dir, name, major).await;
        assert!(compared > 0, "{name}: nothing compared");
        total += compared;
        all.extend(diffs);
    }
    assert!(
        all.is_empty(),
        "{} of {total} steps differ:\n{}",
        all.len(),
        all.join("\n")
    );
    eprintln!(
        "{total} pandas-{major} transcript steps reproduced ({})",
        dir.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pandas2_transcripts_reproduce_over_mcp_with_the_switch() {
    replay_all(2, &SCRIPTS, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pandas3_transcripts_reproduce_over_mcp_by_default() {
    replay_all(3, &["disney2", "beer1"], None).await;
}

/// Every script recorded under pandas 3 by `scripts/conformance.sh` (skipped without
/// `VAKRA_CAP1_PANDAS3`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_pandas3_transcripts_of_every_script_reproduce_by_default() {
    let Some(dir) = std::env::var_os("VAKRA_CAP1_PANDAS3") else {
        eprintln!("skipped: VAKRA_CAP1_PANDAS3 names no folder of pandas-3 recordings");
        return;
    };
    replay_all(3, &SCRIPTS, Some(PathBuf::from(dir))).await;
}

/// The dtype `get_data` shows for disney's first text column, from a server started with
/// `args` and `env`.
async fn first_text_dtype(f: &Fixture, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_vakra"));
    command
        .args(["mcp", "--capability", "1", "--domain", "disney", "--root"])
        .arg(&f.root)
        .arg("--db-root")
        .arg(&f.dbs)
        .args(args)
        .env_remove("VAKRA_PANDAS")
        .envs(env.iter().copied())
        .stderr(Stdio::null());
    let client: Client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let result = client
        .call_tool(CallToolRequestParams::new("get_data"))
        .await
        .unwrap();
    client.cancel().await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    let peek: Value = serde_json::from_str(&text).unwrap();
    peek["key_details"][0]["dtype"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pandas_switch_reaches_the_server_by_flag_variable_or_data_root() {
    let Some(inputs) = inputs() else {
        return;
    };
    let f = fixture(&inputs);
    assert_eq!(first_text_dtype(&f, &[], &[]).await, "str");
    assert_eq!(
        first_text_dtype(&f, &["--pandas", "2"], &[]).await,
        "object"
    );
    assert_eq!(
        first_text_dtype(&f, &[], &[("VAKRA_PANDAS", "2")]).await,
        "object"
    );
    // A root imported with `--pandas 2` (MCP clients pass servers a bare environment).
    vakra_chaining::write_root_pandas(&f.root, vakra_chaining::Pandas::V2).unwrap();
    assert_eq!(first_text_dtype(&f, &[], &[]).await, "object");
    assert_eq!(first_text_dtype(&f, &["--pandas", "3"], &[]).await, "str");
    assert_eq!(
        first_text_dtype(&f, &[], &[("VAKRA_PANDAS", "3.1.1")]).await,
        "str"
    );
}

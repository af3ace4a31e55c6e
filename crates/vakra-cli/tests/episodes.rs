//! `vakra serve --episodes`: OpenEnv's protocol over a real WebSocket, rewards equal to
//! `vakra eval`'s verdicts on the exported trajectories, bad messages, limits and isolation,
//! and OpenEnv's own Python client.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::common::{Server, demo_root, demo_split, report_sample, run_eval_split};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Map, Value, json};
use tokio_tungstenite::tungstenite::Message;
use vakra_chaining::LegacyTranslator;
use vakra_test_kit::http::get;
use vakra_test_kit::paths::repo_root;
use vakra_test_kit::switches::skip_or_fail;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// `vakra serve --episodes` of the demo split, on an indexed copy of the demo data root (the
/// capability-4 retrievers need their indexes).
struct EpisodeServer {
    server: Server,
    root: tempfile::TempDir,
}

fn episode_server(extra: &[&str]) -> EpisodeServer {
    let root = demo_root(true);
    let split = demo_split();
    let mut args = vec![
        "--root",
        root.path().to_str().unwrap(),
        "--episodes",
        split.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    EpisodeServer {
        server: Server::start(&args),
        root,
    }
}

/// An OpenEnv WebSocket connection.
struct Env {
    socket: Socket,
}

impl Env {
    async fn connect(episodes: &EpisodeServer) -> Self {
        let url = format!(
            "{}/openenv/ws",
            episodes.server.base.replace("http://", "ws://")
        );
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Self { socket }
    }

    async fn send_text(&mut self, text: &str) -> Value {
        self.socket
            .send(Message::Text(text.to_owned().into()))
            .await
            .unwrap();
        self.receive().await.expect("an answer")
    }

    /// The next message, or `None` when the server closed the connection.
    async fn receive(&mut self) -> Option<Value> {
        loop {
            let next = tokio::time::timeout(Duration::from_secs(60), self.socket.next())
                .await
                .expect("an answer within 60 s");
            match next {
                Some(Ok(Message::Text(text))) => return Some(serde_json::from_str(&text).unwrap()),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                _ => return None,
            }
        }
    }

    async fn send(&mut self, message: Value) -> Value {
        self.send_text(&message.to_string()).await
    }

    async fn reset(&mut self, data: Value) -> Value {
        let answer = self.send(json!({"type": "reset", "data": data})).await;
        assert_eq!(answer["type"], "observation", "{answer}");
        answer["data"].clone()
    }

    async fn step(&mut self, action: Value) -> Value {
        let answer = self.send(json!({"type": "step", "data": action})).await;
        assert_eq!(answer["type"], "observation", "{answer}");
        answer["data"].clone()
    }

    async fn call(&mut self, tool: &str, arguments: &Map<String, Value>) -> Value {
        self.step(json!({"type": "call_tool", "tool_name": tool, "arguments": arguments}))
            .await
    }

    async fn answer(&mut self, answer: &str) -> Value {
        let done = self
            .step(json!({"type": "submit_answer", "answer": answer}))
            .await;
        assert_eq!(done["done"], true, "{done}");
        done
    }
}

/// The scored turn of one ground-truth record.
struct Truth {
    capability_dir: String,
    domain: String,
    uuid: String,
    calls: Vec<Value>,
    answer: String,
}

fn demo_truths() -> Vec<Truth> {
    let mut truths = Vec::new();
    for folder in std::fs::read_dir(demo_split()).unwrap().flatten() {
        let capability_dir = folder.file_name().to_str().unwrap().to_owned();
        for file in std::fs::read_dir(folder.path().join("output"))
            .unwrap()
            .flatten()
        {
            let records: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
            for record in records {
                let turn = record["output"].as_array().unwrap().last().unwrap().clone();
                let answer = match &turn["answer"] {
                    Value::Array(items) => items
                        .iter()
                        .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                        .collect::<Vec<_>>()
                        .join(", "),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                truths.push(Truth {
                    capability_dir: capability_dir.clone(),
                    domain: file
                        .path()
                        .file_stem()
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .to_owned(),
                    uuid: record["uuid"].as_str().unwrap().to_owned(),
                    calls: turn["sequence"]["tool_call"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default(),
                    answer,
                });
            }
        }
    }
    truths.sort_by(|a, b| (&a.capability_dir, &a.uuid).cmp(&(&b.capability_dir, &b.uuid)));
    assert!(truths.len() >= 10, "the demo split has its samples");
    truths
}

/// Plays the first `calls` ground-truth calls as an agent would (legacy capability-1
/// references bound to the handles the episode's own answers named); returns the reset
/// observation and the last call's text.
async fn play(env: &mut Env, truth: &Truth, calls: usize) -> (Value, String) {
    let reset = env.reset(json!({"uuid": truth.uuid})).await;
    let observation = &reset["observation"];
    assert_eq!(observation["uuid"], truth.uuid.as_str());
    let mut translator = LegacyTranslator::new(truth.uuid.clone());
    let mut last = String::new();
    for call in truth.calls.iter().take(calls) {
        let name = call["name"].as_str().unwrap();
        let label = call["label"].as_str();
        if name == "initialize_active_data" {
            let handle = observation["universe"]["handle"].as_str().unwrap();
            translator.record(label, &format!("{{\"handle\": \"{handle}\"}}"));
            continue;
        }
        let arguments = call["arguments"].as_object().cloned().unwrap_or_default();
        let live = translator.translate(name, &arguments);
        let step = env.call(&live.name, &live.arguments).await;
        assert_eq!(step["done"], false, "{step}");
        let text = step["observation"]["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        translator.record(label, text);
        last = text.to_owned();
    }
    (reset, last)
}

/// Writes each episode's exported prediction into a predictions folder.
fn write_predictions(dir: &Path, predictions: &[(String, String, Value)]) {
    let mut files: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
    for (capability_dir, domain, record) in predictions {
        files
            .entry((capability_dir.clone(), domain.clone()))
            .or_default()
            .push(record.clone());
    }
    for ((capability_dir, domain), records) in files {
        let folder = dir.join(capability_dir);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("{domain}.json")),
            serde_json::to_string(&records).unwrap(),
        )
        .unwrap();
    }
}

/// How many ground-truth calls to play, and the answer to give.
type Plan = fn(&Truth) -> (usize, String);

fn capability_of(dir: &str) -> &str {
    &dir["capability_".len().."capability_".len() + 1]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewards_equal_what_vakra_eval_gives_the_exported_trajectories() {
    let server = episode_server(&[]);
    let truths = demo_truths();
    // Three plays of every sample: the whole ground truth, its calls with a wrong answer, and
    // its first call only with a wrong answer; each in its own predictions folder.
    let plays: [(&str, Plan); 3] = [
        ("truth", |t| (t.calls.len(), t.answer.clone())),
        ("wrong answer", |t| (t.calls.len(), "no idea".into())),
        ("one call", |_| (1, "no idea".into())),
    ];
    for (label, plan) in plays {
        let mut exported = Vec::new();
        let mut rewards = BTreeMap::new();
        for truth in &truths {
            let mut env = Env::connect(&server).await;
            let (calls, answer) = plan(truth);
            play(&mut env, truth, calls).await;
            let done = env.answer(&answer).await;
            let reward = done["reward"].as_f64().unwrap();
            let observation = &done["observation"];
            assert_eq!(observation["verdict"]["score"].as_f64(), Some(reward));
            if label == "truth" {
                assert_eq!(reward, 1.0, "{} {}: {observation}", label, truth.uuid);
            }
            exported.push((
                truth.capability_dir.clone(),
                truth.domain.clone(),
                observation["prediction"].clone(),
            ));
            rewards.insert(truth.uuid.clone(), (truth.capability_dir.clone(), reward));
        }
        let dir = tempfile::tempdir().unwrap();
        write_predictions(dir.path(), &exported);
        let (_, report) = run_eval_split(&demo_split(), server.root.path(), dir.path(), &[]);
        for (uuid, (capability_dir, reward)) in &rewards {
            let sample = report_sample(&report, capability_of(capability_dir), uuid);
            assert_eq!(
                sample["score"].as_f64(),
                Some(*reward),
                "{label} {uuid}: vakra eval {sample}, episode reward {reward}"
            );
        }
        // (The demo's capability-4 answers are documents, which the answer judge may match.)
        if label == "wrong answer" {
            assert!(
                rewards
                    .values()
                    .filter(|(dir, _)| !dir.starts_with("capability_4"))
                    .all(|(_, r)| *r == 0.0),
                "{rewards:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_credit_counts_the_ground_truth_responses_recovered() {
    let server = episode_server(&["--reward", "partial"]);
    let truth = demo_truths()
        .into_iter()
        .filter(|t| !t.capability_dir.starts_with("capability_1"))
        .max_by_key(|t| t.calls.len())
        .unwrap();
    let total = truth.calls.len();
    assert!(total >= 2, "a sample of two calls or more");
    for (calls, expected) in [(total, 1.0), (0, 0.0), (1, 1.0 / total as f64)] {
        let mut env = Env::connect(&server).await;
        play(&mut env, &truth, calls).await;
        let done = env.answer("a wrong answer").await;
        let observation = &done["observation"];
        assert_eq!(observation["reward_mode"], "partial");
        assert_eq!(observation["verdict"]["score"], 0.0, "{observation}");
        assert_eq!(observation["recovered"], json!([calls, total]));
        let reward = done["reward"].as_f64().unwrap();
        assert!((reward - expected).abs() < 1e-9, "{calls} calls: {reward}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_openenv_errors_and_the_connection_lives_on() {
    let server = episode_server(&[]);
    let mut env = Env::connect(&server).await;
    let error = |answer: &Value, code: &str| {
        assert_eq!(answer["type"], "error", "{answer}");
        assert_eq!(answer["data"]["code"], code, "{answer}");
        answer["data"]["message"].as_str().unwrap().to_owned()
    };
    error(&env.send_text("{not json").await, "INVALID_JSON");
    error(&env.send(json!({"type": "dance"})).await, "UNKNOWN_TYPE");
    error(&env.send(json!([1, 2])).await, "UNKNOWN_TYPE");
    let message = error(
        &env.send(json!({"type": "step", "data": {"type": "list_tools"}}))
            .await,
        "EXECUTION_ERROR",
    );
    assert!(message.contains("reset first"), "{message}");
    let message = error(
        &env.send(json!({"type": "reset", "data": {"uuid": "no-such-sample"}}))
            .await,
        "EXECUTION_ERROR",
    );
    assert!(message.contains("no-such-sample"), "{message}");
    error(
        &env.send(json!({"type": "reset", "data": {"seed": "seven"}}))
            .await,
        "VALIDATION_ERROR",
    );
    let reset = env.reset(json!({"seed": 7})).await;
    assert_eq!(reset["done"], false);
    assert!(reset["reward"].is_null());
    let message = error(
        &env.send(json!({"type": "step", "data": {"type": "call_tool"}}))
            .await,
        "VALIDATION_ERROR",
    );
    assert!(message.contains("tool_name"), "{message}");
    error(
        &env.send(json!({"type": "step", "data": {"type": "fly"}}))
            .await,
        "VALIDATION_ERROR",
    );
    // A tool that does not exist gets the session's own answer, like any MCP client.
    let step = env.call("no_such_tool", &Map::new()).await;
    let observation = &step["observation"];
    assert!(
        observation["result"]["isError"] == true || !observation["error"].is_null(),
        "{observation}"
    );
    let state = env.send(json!({"type": "state"})).await;
    assert_eq!(state["type"], "state");
    assert_eq!(state["data"]["step_count"], 1);
    assert_eq!(state["data"]["calls"], 1);
    env.answer("whatever").await;
    let message = error(
        &env.send(json!({"type": "step", "data": {"type": "list_tools"}}))
            .await,
        "EXECUTION_ERROR",
    );
    assert!(message.contains("over"), "{message}");
    // A new reset on the same connection starts afresh.
    let again = env.reset(json!({"seed": 7})).await;
    assert_eq!(
        again["observation"]["uuid"], reset["observation"]["uuid"],
        "the same seed picks the same sample"
    );
    env.socket
        .send(Message::Text(json!({"type": "close"}).to_string().into()))
        .await
        .unwrap();
    assert!(env.receive().await.is_none(), "close ends the connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn episodes_are_isolated_and_bounded() {
    let server = episode_server(&[
        "--max-episodes",
        "2",
        "--max-client-episodes",
        "2",
        "--episode-idle-secs",
        "2",
        "--max-body-bytes",
        "65536",
        "--episode-max-steps",
        "3",
    ]);
    let truth = demo_truths()
        .into_iter()
        .find(|t| {
            t.capability_dir.starts_with("capability_1")
                && t.calls.len() >= 3
                && t.calls.last().unwrap()["arguments"]["data_source"].is_string()
        })
        .expect("a capability-1 sample chaining tables by data_source");
    // Two episodes of the same capability-1 sample: one's tables are unknown to the other.
    let mut a = Env::connect(&server).await;
    let mut b = Env::connect(&server).await;
    let (_, made_in_a) = play(&mut a, &truth, truth.calls.len() - 1).await;
    let handle = vakra_chaining::handle_of_peek(&made_in_a).expect("a table made in episode a");
    let b_reset = b.reset(json!({"uuid": truth.uuid})).await;
    assert_ne!(
        b_reset["observation"]["universe"]["handle"],
        handle.as_str()
    );
    // The ground truth's last call, on the table episode a made.
    let last = truth.calls.last().unwrap();
    let mut arguments = last["arguments"].as_object().cloned().unwrap();
    arguments.remove("data_source");
    arguments.insert("data_label".into(), json!(handle));
    let probe = b.call(last["name"].as_str().unwrap(), &arguments).await;
    let text = probe["observation"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains(&handle), "{text}");
    // A third connection is refused while two are open.
    let mut c = Env::connect(&server).await;
    let refusal = c.receive().await.expect("a refusal");
    assert_eq!(refusal["data"]["code"], "CAPACITY_REACHED", "{refusal}");
    assert!(c.receive().await.is_none());
    // The step limit ends an episode, judged with an empty answer.
    b.step(json!({"type": "list_tools"})).await;
    let last = b.step(json!({"type": "list_tools"})).await;
    assert_eq!(last["done"], true, "{last}");
    assert_eq!(last["observation"]["truncated"], true);
    assert_eq!(last["reward"], 0.0);
    assert!(last["observation"]["tools"].is_array());
    // An oversize message closes that connection only.
    b.socket
        .send(Message::Text("x".repeat(200_000).into()))
        .await
        .ok();
    assert!(
        b.receive().await.is_none(),
        "an oversize message ends its connection"
    );
    // An idle connection is closed; its place is free again.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(a.receive().await.is_none(), "an idle connection is closed");
    let mut d = Env::connect(&server).await;
    let reset = d.reset(json!({"seed": 1})).await;
    assert_eq!(reset["done"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_endpoints_answer_as_openenv_servers_do() {
    let server = episode_server(&["--reward", "partial"]);
    let url = |path: &str| format!("{}/openenv{path}", server.server.base);
    let (status, _, body) = get(&url("/health")).await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"healthy"}"#));
    let (status, _, body) = get(&url("/metadata")).await;
    let metadata: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, metadata["name"].as_str()), (200, Some("vakra")));
    assert!(
        metadata["description"]
            .as_str()
            .unwrap()
            .contains("partial")
    );
    let (_, _, body) = get(&url("/schema")).await;
    let schema: Value = serde_json::from_str(&body).unwrap();
    for part in ["action", "observation", "state"] {
        assert!(schema[part].is_object(), "{part}: {schema}");
    }
    let (_, _, body) = get(&url("/state")).await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"episode_id": null, "step_count": 0})
    );
    let client = reqwest::Client::new();
    let post = |path: &str, body: Value| client.post(url(path)).json(&body).send();
    let first = post("/reset", json!({"seed": 42, "capability": 4}))
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["observation"]["capability"], 4);
    assert_eq!(first["observation"]["seed"], 42);
    assert!(
        !first["observation"]["messages"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let second: Value = post("/reset", json!({"seed": 42, "capability": 4}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(first["observation"]["uuid"], second["observation"]["uuid"]);
    let missing = post("/reset", json!({"uuid": "nope"})).await.unwrap();
    assert_eq!(missing.status(), 404);
    let step = post("/step", json!({"action": {"type": "list_tools"}}))
        .await
        .unwrap();
    assert_eq!(step.status(), 409);
    let detail: Value = step.json().await.unwrap();
    assert!(detail["detail"].as_str().unwrap().contains("/ws"));
}

#[test]
fn the_openenv_python_client_plays_the_demo_split() {
    let Some(python) = std::env::var_os("VAKRA_OPENENV_PYTHON") else {
        skip_or_fail(
            "VAKRA_REQUIRE_OPENENV",
            "VAKRA_OPENENV_PYTHON does not name the python of .venv-openenv (make test sets it), \
             so OpenEnv's client cannot run",
        );
        return;
    };
    let server = episode_server(&[]);
    let output = std::process::Command::new(python)
        .arg(repo_root().join("tests/python/openenv_episodes_check.py"))
        .args(["--base", &format!("{}/openenv", server.server.base)])
        .arg("--split")
        .arg(demo_split())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let samples = demo_truths().len();
    assert!(
        output.status.success() && stdout.contains(&format!("{} passed, 0 failed", 2 * samples)),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The submit's observation is bounded: long arguments, answers and replayed texts are shown cut
/// with the count of what was left out, while the reward is reached on them whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_submit_observation_shows_long_texts_cut() {
    let server = episode_server(&[]);
    let truth = demo_truths()
        .into_iter()
        .find(|t| t.capability_dir.starts_with("capability_2") && !t.calls.is_empty())
        .unwrap();
    let mut env = Env::connect(&server).await;
    play(&mut env, &truth, truth.calls.len()).await;
    let first = &truth.calls[0];
    let mut arguments = first["arguments"].as_object().cloned().unwrap_or_default();
    arguments.insert("padding".into(), json!("z".repeat(50_000)));
    env.call(first["name"].as_str().unwrap(), &arguments).await;
    let long_answer = format!("{}{}", truth.answer, " ".repeat(30_000));
    let done = env.answer(&long_answer).await;
    let observation = &done["observation"];
    let size = observation.to_string().len();
    assert!(size < 200_000, "the observation holds {size} bytes");
    assert!(
        observation["answer"]
            .as_str()
            .unwrap()
            .ends_with("more characters not shown)"),
        "the answer is shown cut"
    );
    let calls = observation["prediction"]["output"][0]["sequence"]["tool_call"]
        .as_array()
        .unwrap();
    assert_eq!(calls.len(), truth.calls.len() + 1);
    let padded = calls.last().unwrap()["arguments"].as_str().unwrap();
    assert!(
        padded.ends_with("more characters not shown)"),
        "{}",
        &padded[9_900..]
    );
    let verdict = &observation["verdict"];
    assert!(verdict["pred_answer"].as_str().unwrap().len() < 11_000 * 4);
    assert_eq!(verdict["score"].as_f64(), done["reward"].as_f64());
    assert_eq!(verdict["pred_steps"], truth.calls.len() + 1);
}

/// Integers beyond 64 bits in an episode's action reach the tool as over MCP: its texts quote
/// their digits (the wrapper's 500 with `limit=10**20` in the URL, the validation text of a
/// big integer given for a string), exactly as `vakra mcp` answers the same calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn big_integers_in_actions_keep_their_digits() {
    let server = episode_server(&[]);
    let truth = demo_truths()
        .into_iter()
        .find(|t| t.capability_dir.starts_with("capability_2") && t.domain == "library")
        .expect("a capability-2 library sample");
    let mut env = Env::connect(&server).await;
    env.reset(json!({"uuid": truth.uuid})).await;
    for (line, text) in crate::hardening_limits::big_integer_calls() {
        // The MCP message's `params` as an action, its digits untouched.
        let params = &line[line.find(r#""params":"#).unwrap() + 9..line.len() - 1];
        let action = params.replacen(r#""name":"#, r#""type":"call_tool","tool_name":"#, 1);
        let answer = env
            .send_text(&format!(r#"{{"type":"step","data":{action}}}"#))
            .await;
        assert_eq!(answer["type"], "observation", "{answer}");
        let observation = &answer["data"]["observation"];
        assert_eq!(
            observation["result"]["content"][0]["text"],
            text.as_str(),
            "{observation}"
        );
    }
}

/// `vakra serve --episodes … --max-shown-chars 50`: the submit's observation shows a
/// 300-character answer cut at 50 characters, the reward reached on it whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shown_characters_are_a_flag() {
    let server = episode_server(&["--max-shown-chars", "50"]);
    let truth = demo_truths()
        .into_iter()
        .find(|t| t.capability_dir.starts_with("capability_2") && !t.calls.is_empty())
        .unwrap();
    let mut env = Env::connect(&server).await;
    play(&mut env, &truth, truth.calls.len()).await;
    let done = env.answer(&"y".repeat(300)).await;
    let shown = done["observation"]["answer"].as_str().unwrap();
    assert!(
        shown.chars().count() < 100 && shown.ends_with("more characters not shown)"),
        "{shown}"
    );
    assert_eq!(
        done["observation"]["verdict"]["score"].as_f64(),
        done["reward"].as_f64()
    );
}

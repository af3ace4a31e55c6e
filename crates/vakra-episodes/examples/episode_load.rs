//! Load for `vakra serve --episodes`: N concurrent OpenEnv WebSocket clients, each playing
//! the split's ground truth episode after episode (reset, one `call_tool` per ground-truth
//! call, `submit_answer`) for a fixed time. Prints steps per second and the latencies of
//! resets, calls and answers (docs/benchmarks.md; `scripts/bench-episodes.sh` runs it).
//!
//!     cargo run --release -p vakra-episodes --example episode_load -- \
//!         ws://127.0.0.1:8000/openenv/ws demo/tasks 64 20 [REPEAT]
//!
//! With REPEAT, every call of an episode is made REPEAT times (longer episodes: the cost of a
//! step apart from the cost of a reset and a reward).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use vakra_chaining::{LegacyTranslator, handle_of_peek};
use vakra_records::records::{CAPABILITY_DIRS, read_records};
use vakra_records::{Side, Split};

struct Script {
    uuid: String,
    calls: Vec<vakra_records::records::Call>,
    answer: String,
}

/// The allocator `vakra` uses: the load shares the server's cores.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Default)]
struct Timings {
    reset: Vec<f64>,
    call: Vec<f64>,
    answer: Vec<f64>,
    rewards: Vec<f64>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (url, split, clients, seconds, repeat) = match args.as_slice() {
        [url, split, clients, seconds] => (url, split, clients, seconds, 1),
        [url, split, clients, seconds, repeat] => (url, split, clients, seconds, repeat.parse()?),
        _ => anyhow::bail!("usage: episode_load WS_URL SPLIT CLIENTS SECONDS [REPEAT]"),
    };
    let scripts = Arc::new(scripts(Path::new(split))?);
    let clients: usize = clients.parse()?;
    let duration = Duration::from_secs_f64(seconds.parse()?);
    let timings = Arc::new(Mutex::new(Timings::default()));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for client in 0..clients {
        let (url, scripts, timings) = (url.clone(), Arc::clone(&scripts), Arc::clone(&timings));
        tasks.push(tokio::spawn(async move {
            let (mut socket, _) = tokio_tungstenite::connect_async(url).await?;
            let mut mine = Timings::default();
            let mut round = client;
            while started.elapsed() < duration {
                let script = &scripts[round % scripts.len()];
                round += 1;
                play(&mut socket, script, repeat, &mut mine).await?;
            }
            let mut all = timings.lock().unwrap();
            all.reset.extend(mine.reset);
            all.call.extend(mine.call);
            all.answer.extend(mine.answer);
            all.rewards.extend(mine.rewards);
            anyhow::Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let t = timings.lock().unwrap();
    let steps = t.call.len() + t.answer.len();
    let correct = t.rewards.iter().filter(|r| **r == 1.0).count();
    println!(
        "{clients} clients, {elapsed:.1} s: {} episodes ({correct} rewarded 1), {steps} steps: \
         {:.0} steps/s, {:.0} episodes/s",
        t.rewards.len(),
        steps as f64 / elapsed,
        t.rewards.len() as f64 / elapsed,
    );
    for (name, values) in [
        ("reset", &t.reset),
        ("call_tool", &t.call),
        ("submit_answer", &t.answer),
    ] {
        println!(
            "{name:>13}: p50 {:.2} ms, p99 {:.2} ms ({} samples)",
            percentile(values, 0.50),
            percentile(values, 0.99),
            values.len()
        );
    }
    Ok(())
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn play(
    socket: &mut Socket,
    script: &Script,
    repeat: usize,
    timings: &mut Timings,
) -> anyhow::Result<()> {
    let (reset, took) = exchange(
        socket,
        json!({"type": "reset", "data": {"uuid": script.uuid}}),
    )
    .await?;
    timings.reset.push(took);
    let mut translator = LegacyTranslator::new(script.uuid.clone());
    for call in &script.calls {
        if call.name == "initialize_active_data" {
            let handle = &reset["data"]["observation"]["universe"]["handle"];
            translator.record(call.label.as_deref(), &format!("{{\"handle\": {handle}}}"));
            continue;
        }
        let arguments = call.arguments.as_object().cloned().unwrap_or_default();
        let live = translator.translate(&call.name, &arguments);
        let action =
            json!({"type": "call_tool", "tool_name": live.name, "arguments": live.arguments});
        let mut answer = Value::Null;
        for _ in 0..repeat.max(1) {
            let took;
            (answer, took) = exchange(socket, json!({"type": "step", "data": &action})).await?;
            timings.call.push(took);
        }
        let text = answer["data"]["observation"]["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        if handle_of_peek(text).is_some() {
            translator.record(call.label.as_deref(), text);
        }
    }
    let action = json!({"type": "submit_answer", "answer": script.answer});
    let (done, took) = exchange(socket, json!({"type": "step", "data": action})).await?;
    timings.answer.push(took);
    timings
        .rewards
        .push(done["data"]["reward"].as_f64().unwrap_or(f64::NAN));
    Ok(())
}

/// Sends one message and waits for its answer: the answer and the milliseconds it took.
async fn exchange(socket: &mut Socket, message: Value) -> anyhow::Result<(Value, f64)> {
    let sent = Instant::now();
    socket
        .send(Message::Text(message.to_string().into()))
        .await?;
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) => {
                let answer: Value = serde_json::from_str(&text)?;
                anyhow::ensure!(answer["type"] != "error", "error: {answer}");
                return Ok((answer, sent.elapsed().as_secs_f64() * 1e3));
            }
            Some(Ok(_)) => continue,
            other => anyhow::bail!("connection ended: {other:?}"),
        }
    }
}

fn scripts(split: &Path) -> anyhow::Result<Vec<Script>> {
    let mut scripts = Vec::new();
    let folders = Split::new(split);
    for folder in CAPABILITY_DIRS
        .iter()
        .filter_map(|name| folders.folder(name))
    {
        for (_, path) in folder.domain_files(Side::GroundTruth) {
            for record in read_records(&path).0 {
                let Some(turn) = record.turns.last() else {
                    continue;
                };
                scripts.push(Script {
                    uuid: record.uuid.clone(),
                    calls: turn.calls.clone(),
                    answer: vakra_records::answer_text(&turn.answer),
                });
            }
        }
    }
    anyhow::ensure!(
        !scripts.is_empty(),
        "no ground truth under {}",
        split.display()
    );
    Ok(scripts)
}

fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

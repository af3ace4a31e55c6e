//! Per-call latency of the BPO tools as an agent sees it: `vakra mcp --capability 3 --domain bpo`
//! spawned over stdio, one `tools/call` at a time (JSON-RPC lines written and read here, so the
//! figures hold the server's parsing, the call and the text, and one pipe round trip each way).
//!
//! cargo run --release -p vakra-bpo --example bpo_mcp_bench -- VAKRA ROOT [ITERATIONS]
//!
//! VAKRA is the `vakra` binary; ROOT a data root whose `bpo/` holds the data set and its
//! descriptions file. The reference's per-process state is kept per session, so the stateful
//! tools are timed on whatever path their call count leads to (simulated errors included).

use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A JSON-RPC client over the child's pipes, one request at a time.
struct Client {
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Client {
    fn request(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Value, Box<dyn std::error::Error>> {
        self.next_id += 1;
        let id = self.next_id;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        loop {
            let line = self.lines.next().ok_or("the server closed its output")??;
            let message: Value = serde_json::from_str(&line)?;
            if message["id"] == id {
                if let Some(error) = message.get("error") {
                    return Err(format!("{method}: {error}").into());
                }
                return Ok(message["result"].clone());
            }
        }
    }

    fn notify(&mut self, method: &str) -> std::io::Result<()> {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )?;
        self.stdin.flush()
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut cli = std::env::args().skip(1);
    let (Some(vakra), Some(root)) = (cli.next(), cli.next()) else {
        return Err("usage: bpo_mcp_bench VAKRA ROOT [ITERATIONS]".into());
    };
    let iterations: usize = cli.next().map(|n| n.parse()).transpose()?.unwrap_or(200);
    let spawned = Instant::now();
    let mut child = Command::new(&vakra)
        .args([
            "mcp",
            "--capability",
            "3",
            "--domain",
            "bpo",
            "--root",
            &root,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut client = Client {
        stdin: child.stdin.take().ok_or("no stdin")?,
        lines: BufReader::new(child.stdout.take().ok_or("no stdout")?).lines(),
        next_id: 0,
    };
    client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bpo_mcp_bench", "version": "0"}}),
    )?;
    client.notify("notifications/initialized")?;
    println!("spawn -> initialize answered: {:?}", spawned.elapsed());
    let tools = client.request("tools/list", json!({}))?;
    let tools = tools["tools"].as_array().cloned().unwrap_or_default();
    println!("{} tools", tools.len());
    let mut cases: Vec<(String, String, Value)> = tools
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().unwrap_or_default().to_owned();
            let mut arguments = serde_json::Map::new();
            for key in tool["inputSchema"]["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
            {
                let value = match key.as_str() {
                    "requisition_id" => json!("05958BR"),
                    "skill_name" | "skill_id" => json!("Python"),
                    "source_name" => json!("Dice"),
                    _ => continue,
                };
                arguments.insert(key, value);
            }
            (name.clone(), name, Value::Object(arguments))
        })
        .collect();
    cases.push((
        "(unknown requisition: suggestions)".into(),
        "skills_data_sources_used".into(),
        json!({"requisition_id": "05960BR"}),
    ));
    println!("{:<48} {:>10} {:>10}", "tool", "p50", "p90");
    let mut all_p50 = Vec::new();
    for (label, tool, arguments) in cases {
        let mut samples = Vec::with_capacity(iterations);
        for i in 0..iterations + 10 {
            let started = Instant::now();
            let result =
                client.request("tools/call", json!({"name": tool, "arguments": arguments}))?;
            let elapsed = started.elapsed();
            std::hint::black_box(result);
            if i >= 10 {
                samples.push(elapsed);
            }
        }
        samples.sort_unstable();
        let p50 = percentile(&samples, 0.5);
        all_p50.push(p50);
        println!(
            "{label:<48} {:>10.1?} {:>10.1?}",
            p50,
            percentile(&samples, 0.9)
        );
    }
    all_p50.sort_unstable();
    println!(
        "p50 over tools: median {:.1?}, max {:.1?} (goal <= 1 ms)",
        percentile(&all_p50, 0.5),
        percentile(&all_p50, 1.0)
    );
    drop(client);
    let _ = child.kill();
    let _ = child.wait();
    Ok(())
}

//! One sample, one trial: a fresh MCP session, capability 1's `get_data`, the shortlist, the
//! prompts, the agent loop, and the sample's record (spec §6.2).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vakra_chat::{ChatClient, Usage};
use vakra_client::{Connector, ReplaySession};
use vakra_records::{PredictedCall, Prediction, Tokens};

use crate::agent::{AgentRun, Conversation, Ending, Limits, run_agent};
use crate::langchain::{self, ToolSchemas, function_definition};
use crate::opening::{enter_universe, first_messages};
use crate::prompts::Prompts;
use crate::sample::Sample;
use crate::shortlist::{Ranker, ToolText};

/// What every sample of a run shares.
pub struct Setup {
    pub chat: ChatClient,
    pub connector: Connector,
    pub prompts: Prompts,
    pub ranker: Ranker,
    pub top_k_tools: usize,
    /// The longest a sample may take (`--timeout`).
    pub timeout: Duration,
    pub max_steps: usize,
    /// The longest one MCP call (or opening a session) may take.
    pub call_timeout: Duration,
    pub fix_quirks: bool,
    /// The tool definitions the model is sent.
    pub tool_schemas: ToolSchemas,
}

/// A finished sample: its prediction record, its `<domain>_tools.json` entry and its
/// trajectory line.
pub struct Finished {
    pub capability_dir: String,
    pub domain: String,
    pub uuid: String,
    pub trial: u32,
    pub record: Value,
    pub tools_entry: Value,
    pub trajectory: Value,
    pub usage: Usage,
    pub succeeded: bool,
    /// Sum of the runner's own time per model step, and the number of steps.
    pub runner_us: Vec<f64>,
}

/// Keys the reference's runner leaves out of recorded arguments.
const INTERNAL_KEYS: [&str; 3] = ["args", "config", "kwargs"];

/// Runs one trial of one sample; failures become the record's `status: "error"`.
pub async fn run_sample(setup: Arc<Setup>, sample: Arc<Sample>, trial: u32) -> Finished {
    let start = Instant::now();
    let deadline = start + setup.timeout;
    let mut all_tools = Vec::new();
    let mut shortlisted = Vec::new();
    let outcome = async {
        let open = setup
            .connector
            .open(sample.capability, &sample.domain, setup.call_timeout);
        let mut session = tokio::time::timeout(setup.timeout, open)
            .await
            .map_err(|_| format!("no MCP session within {:?}", setup.timeout))??;
        all_tools = session.tools().iter().map(|t| t.name.to_string()).collect();
        let result =
            prepare_and_run(&setup, &sample, &mut session, deadline, &mut shortlisted).await;
        session.close().await;
        result
    }
    .await;
    let duration_s = start.elapsed().as_secs_f64();
    finish(
        &setup,
        &sample,
        trial,
        outcome,
        duration_s,
        all_tools,
        shortlisted,
    )
}

async fn prepare_and_run(
    setup: &Setup,
    sample: &Sample,
    session: &mut ReplaySession,
    deadline: Instant,
    shortlisted: &mut Vec<String>,
) -> Result<AgentRun, String> {
    let initial = enter_universe(session, &sample.uuid, setup.fix_quirks).await?;
    let tools = session.tools();
    let descriptions: Vec<String> = tools.iter().map(langchain::description).collect();
    let texts: Vec<ToolText<'_>> = tools
        .iter()
        .zip(&descriptions)
        .map(|(t, description)| ToolText {
            name: &t.name,
            description,
        })
        .collect();
    let chosen = setup
        .ranker
        .shortlist(&sample.query, &texts, setup.top_k_tools)
        .map_err(|e| format!("shortlisting failed: {e}"))?;
    let functions = chosen
        .iter()
        .map(|&i| function_definition(&tools[i], setup.tool_schemas))
        .collect();
    *shortlisted = chosen.iter().map(|&i| tools[i].name.to_string()).collect();
    let conversation = Conversation {
        messages: first_messages(&setup.prompts, setup.fix_quirks, sample, initial.as_ref()),
        functions,
        offered: shortlisted.clone(),
    };
    let limits = Limits {
        deadline,
        max_steps: setup.max_steps,
        fix_quirks: setup.fix_quirks,
    };
    Ok(run_agent(&setup.chat, session, conversation, limits).await)
}

/// The record, tools entry and trajectory line of a finished (or failed) sample.
fn finish(
    setup: &Setup,
    sample: &Sample,
    trial: u32,
    outcome: Result<AgentRun, String>,
    duration_s: f64,
    all_tools: Vec<String>,
    shortlisted: Vec<String>,
) -> Finished {
    let (run, error) = match outcome {
        Ok(run) => {
            let error = match &run.ending {
                Ending::Answered => None,
                Ending::TimedOut => Some(format!(
                    "Agent timed out after {} seconds",
                    vakra_pytext::float_repr(setup.timeout.as_secs_f64())
                )),
                Ending::StepLimit => Some(format!(
                    "the agent made {} model requests without answering (--max-steps)",
                    setup.max_steps
                )),
                Ending::ModelError(message) => Some(message.clone()),
            };
            (Some(run), error)
        }
        Err(message) => (None, Some(message)),
    };
    // The reference keeps neither the answer nor the calls of a failed sample.
    let keep = error.is_none() || setup.fix_quirks;
    let calls: Vec<PredictedCall> = run
        .iter()
        .filter(|_| keep)
        .flat_map(AgentRun::recorded_calls)
        .map(|call| {
            let mut arguments = call.arguments.as_object().cloned().unwrap_or_default();
            arguments.retain(|k, _| !INTERNAL_KEYS.contains(&k.as_str()));
            PredictedCall {
                name: call.name.clone(),
                arguments: Value::Object(arguments),
            }
        })
        .collect();
    let answer = run
        .as_ref()
        .filter(|_| keep)
        .map(|r| r.answer.clone())
        .unwrap_or_default();
    let usage = run.as_ref().map(|r| r.usage).unwrap_or_default();
    let status = if error.is_none() { "success" } else { "error" };
    let error_text = error.clone().unwrap_or_default();
    let record = Prediction {
        uuid: sample.uuid.clone(),
        domain: sample.domain.clone(),
        error: error.clone(),
        duration_s: Some(duration_s),
        turn_id: sample.turn_id,
        query: sample.query.clone(),
        answer: Value::String(answer),
        calls,
        trial: Some(trial),
        usage: Some(Tokens {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
        }),
    }
    .to_json();
    let tools_entry = json!({
        "uuid": sample.uuid,
        "domain": sample.domain,
        "query": sample.query,
        "all_tools": all_tools,
        "shortlisted_tools": shortlisted,
        "trial": trial,
    });
    let trajectory = json!({
        "uuid": sample.uuid,
        "trial": trial,
        "capability": sample.capability,
        "domain": sample.domain,
        "status": status,
        "error": error_text,
        "duration_s": duration_s,
        "model": setup.chat.config().model,
        "usage": usage,
        "offered_tools": shortlisted.len(),
        "steps": run.as_ref().map(|r| &r.steps),
        "messages": run.as_ref().map(|r| &r.messages),
    });
    Finished {
        capability_dir: sample.capability_dir.clone(),
        domain: sample.domain.clone(),
        uuid: sample.uuid.clone(),
        trial,
        record,
        tools_entry,
        trajectory,
        usage,
        succeeded: error.is_none(),
        runner_us: run
            .iter()
            .flat_map(|r| r.steps.iter().map(|s| s.runner_us))
            .collect(),
    }
}

//! The agent loop, as the reference's LangGraph ReAct agent runs it: ask the model; run every
//! tool call it makes, in order, in the sample's MCP session, and give it the results; repeat
//! until it answers without calling a tool. The answer is the last assistant message that had
//! content.
//!
//! Tool calls the model makes that cannot run are answered as LangGraph answers them: a tool
//! that is not offered gets `Error: <name> is not a valid tool, try one of [...]` (and counts
//! as a call, as in the reference's output); arguments that are not a JSON object make the call
//! invalid — when a message has only invalid calls the run ends there, as LangGraph's does
//! (with `--fix-quirks` the model is told and the loop goes on).

use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use vakra_chat::{ChatClient, ToolCall, Usage};
use vakra_client::ReplaySession;

use crate::langchain::tool_message;

/// What the model is given at the start.
pub struct Conversation {
    pub messages: Vec<Value>,
    /// OpenAI function definitions of the offered tools.
    pub functions: Vec<Value>,
    /// Their names, in the same order.
    pub offered: Vec<String>,
}

/// Bounds on one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub deadline: Instant,
    /// Model requests at most.
    pub max_steps: usize,
    pub fix_quirks: bool,
}

/// One tool call as it was answered.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CallRecord {
    pub id: String,
    pub name: String,
    /// The parsed arguments (an object), or the model's text when it did not parse.
    pub arguments: Value,
    pub result: String,
    pub is_error: bool,
    /// Sent to the server (not an unknown tool, not invalid arguments).
    pub executed: bool,
    /// Counts as a call of the sample's trace (what the reference records).
    pub recorded: bool,
    pub duration_ms: f64,
}

/// One model request and what followed from it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Step {
    /// Time waiting for the model's answers (retries and their waits included).
    pub model_ms: f64,
    /// The runner's own time in this step: everything but waiting for the model and the
    /// tools (building the request, reading the answer, the loop's bookkeeping).
    pub runner_us: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    pub calls: Vec<CallRecord>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// The model answered without calling a tool (or only with invalid calls).
    Answered,
    TimedOut,
    /// `max_steps` model requests and still calling tools.
    StepLimit,
    /// The model endpoint failed for good (after its retries).
    ModelError(String),
}

/// A finished run.
pub struct AgentRun {
    pub messages: Vec<Value>,
    pub steps: Vec<Step>,
    pub answer: String,
    pub ending: Ending,
    pub usage: Usage,
}

impl AgentRun {
    /// The calls that the reference's output keeps, in order.
    pub fn recorded_calls(&self) -> impl Iterator<Item = &CallRecord> {
        self.steps
            .iter()
            .flat_map(|s| &s.calls)
            .filter(|c| c.recorded)
    }
}

/// Runs the loop to its end; never longer than `limits.deadline`.
pub async fn run_agent(
    chat: &ChatClient,
    session: &ReplaySession,
    conversation: Conversation,
    limits: Limits,
) -> AgentRun {
    let Conversation {
        mut messages,
        functions,
        offered,
    } = conversation;
    let mut run = AgentRun {
        messages: Vec::new(),
        steps: Vec::new(),
        answer: String::new(),
        ending: Ending::Answered,
        usage: Usage::default(),
    };
    loop {
        if run.steps.len() >= limits.max_steps {
            run.ending = Ending::StepLimit;
            break;
        }
        if Instant::now() >= limits.deadline {
            run.ending = Ending::TimedOut;
            break;
        }
        let step_start = Instant::now();
        let reply = chat
            .complete(&messages, &functions, Some(limits.deadline))
            .await;
        let reply = match reply {
            Ok(reply) => reply,
            Err(vakra_chat::ChatError::Timeout(_)) if Instant::now() >= limits.deadline => {
                run.ending = Ending::TimedOut;
                break;
            }
            Err(error) => {
                run.ending = Ending::ModelError(error.to_string());
                break;
            }
        };
        let model = reply.waited;
        run.usage += reply.usage;
        messages.push(reply.to_message());
        if let Some(content) = &reply.content {
            run.answer = content.clone();
        }
        let mut step = Step {
            model_ms: millis(model),
            runner_us: 0.0,
            input_tokens: reply.usage.input_tokens,
            output_tokens: reply.usage.output_tokens,
            content: reply.content.clone(),
            reasoning: reply.reasoning.clone(),
            calls: Vec::new(),
        };
        let parsed: Vec<Result<Map<String, Value>, &str>> = reply
            .tool_calls
            .iter()
            .map(|call| call.object_arguments().ok_or(call.arguments.as_str()))
            .collect();
        let ends = reply.tool_calls.is_empty()
            || (!limits.fix_quirks && parsed.iter().all(Result::is_err));
        let mut tool_time = Duration::ZERO;
        for (call, arguments) in reply.tool_calls.iter().zip(&parsed) {
            let record = match arguments {
                // A reply that ends the run has no valid call.
                Ok(arguments) => {
                    let started = Instant::now();
                    let record =
                        answer_call(session, &offered, call, arguments, limits.deadline).await;
                    tool_time += started.elapsed();
                    record
                }
                Err(raw) => invalid_call(call, raw),
            };
            // LangGraph answers only the calls it could parse; with the quirk fixed the model is
            // told about the others too.
            if !ends && (record.executed || record.recorded || limits.fix_quirks) {
                messages.push(tool_message(&record.result, &record.id));
            }
            step.calls.push(record);
        }
        step.runner_us = (step_start
            .elapsed()
            .saturating_sub(model)
            .saturating_sub(tool_time))
        .as_secs_f64()
            * 1e6;
        run.steps.push(step);
        if ends {
            break;
        }
    }
    run.messages = messages;
    run
}

fn invalid_call(call: &ToolCall, raw: &str) -> CallRecord {
    CallRecord {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: Value::String(raw.to_owned()),
        result: format!(
            "Error: the arguments of {} are not a JSON object: {}",
            call.name,
            raw.chars().take(200).collect::<String>()
        ),
        is_error: true,
        executed: false,
        recorded: false,
        duration_ms: 0.0,
    }
}

/// Runs one call in the session, or answers it when the tool is not offered.
async fn answer_call(
    session: &ReplaySession,
    offered: &[String],
    call: &ToolCall,
    arguments: &Map<String, Value>,
    deadline: Instant,
) -> CallRecord {
    let mut record = CallRecord {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: Value::Object(arguments.clone()),
        result: String::new(),
        is_error: true,
        executed: false,
        recorded: true,
        duration_ms: 0.0,
    };
    if !offered.contains(&call.name) {
        record.result = format!(
            "Error: {} is not a valid tool, try one of [{}].",
            call.name,
            offered.join(", ")
        );
        return record;
    }
    let started = Instant::now();
    let remaining = deadline.saturating_duration_since(started);
    let answer = tokio::time::timeout(remaining, session.call(&call.name, &record.arguments)).await;
    record.duration_ms = millis(started.elapsed());
    record.executed = true;
    match answer {
        Ok(response) => {
            record.is_error = response.issue.is_some();
            record.result = if response.text.is_empty() && response.issue.is_none() {
                "No result".into()
            } else {
                response.text
            };
        }
        Err(_) => {
            record.result = "Error: the call did not finish before the sample's time limit".into()
        }
    }
    record
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

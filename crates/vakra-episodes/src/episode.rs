//! One episode: a sample, its own MCP session, the calls made, and the reward once answered.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use vakra_client::{CallIssue, Connector, ReplaySession};
use vakra_eval::Judging;
use vakra_eval::report::{SampleReport, shown, shown_json};
use vakra_runner::Prompts;
use vakra_runner::opening::{enter_universe, first_messages};

use crate::protocol::{Action, ResetData, object, tool_json};
use crate::reward::{RecordedCall, RewardMode, judge, prediction_record};
use crate::split::{Pick, PickError, Split, SplitSample};

/// What every episode of a server shares.
pub struct EpisodeSetup {
    pub split: Split,
    /// Where episode sessions open (the project's servers, in-process).
    pub connector: Connector,
    /// How rewards are judged: `vakra eval`'s settings (its connector included).
    pub judging: Judging,
    /// The runner's prompts, for the first messages.
    pub prompts: Prompts,
    pub fix_quirks: bool,
    /// The longest opening a session or one call may take.
    pub call_timeout: Duration,
    /// Actions after which an episode ends unanswered (truncated, judged with an empty answer).
    pub max_steps: usize,
    pub reward: RewardMode,
}

/// Why an action got no observation.
#[derive(Debug, thiserror::Error)]
pub enum EpisodeError {
    #[error(transparent)]
    Pick(#[from] PickError),
    #[error("{0}")]
    Session(String),
    #[error("no episode: send reset first")]
    NoEpisode,
    #[error("the episode is over: send reset to start another")]
    Over,
    #[error("the reward could not be computed: {0}")]
    Reward(String),
}

/// A reset's answer.
pub struct Reset {
    pub episode: Episode,
    pub observation: Value,
}

/// A step's answer.
pub struct Step {
    pub observation: Value,
    pub reward: Option<f64>,
    pub done: bool,
}

/// An episode in progress (or answered).
pub struct Episode {
    id: String,
    sample: Arc<SplitSample>,
    session: ReplaySession,
    calls: Vec<RecordedCall>,
    steps: usize,
    reward: Option<f64>,
}

impl Episode {
    /// Starts the episode a reset asks for: a fresh session, prepared as `vakra run` prepares
    /// one before its model's first request.
    pub async fn start(setup: &EpisodeSetup, data: &ResetData) -> Result<Reset, EpisodeError> {
        let (sample, seed) = setup.split.pick(&Pick {
            uuid: data.uuid.clone(),
            seed: data.seed,
            capability: data.capability,
            domain: data.domain.clone(),
        })?;
        let s = &sample.sample;
        let mut session = setup
            .connector
            .open(s.capability, &s.domain, setup.call_timeout)
            .await
            .map_err(EpisodeError::Session)?;
        let initial = enter_universe(&mut session, &s.uuid, setup.fix_quirks)
            .await
            .map_err(EpisodeError::Session)?;
        let id = data
            .episode_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let policy = (s.capability == 4 && !matches!(s.additional_instructions.as_str(), "" | " "))
            .then(|| s.additional_instructions.clone());
        let messages = first_messages(&setup.prompts, setup.fix_quirks, s, initial.as_ref());
        let observation = object([
            ("episode_id", id.as_str().into()),
            ("uuid", s.uuid.as_str().into()),
            ("capability", s.capability.into()),
            ("domain", s.domain.as_str().into()),
            ("query", s.query.as_str().into()),
            ("messages", messages.into()),
            ("policy", policy.into()),
            // Capability 1: the `get_data` answer (the starting table's handle and peek).
            (
                "universe",
                initial
                    .map(|(_, peek)| vakra_runner::peek_json::without_non_finite(&peek))
                    .into(),
            ),
            (
                "tools",
                session
                    .tools()
                    .iter()
                    .map(tool_json)
                    .collect::<Vec<_>>()
                    .into(),
            ),
            ("seed", seed.into()),
        ]);
        Ok(Reset {
            episode: Episode {
                id,
                sample: Arc::clone(&sample),
                session,
                calls: Vec::new(),
                steps: 0,
                reward: None,
            },
            observation,
        })
    }

    /// Runs one action.
    pub async fn step(
        &mut self,
        setup: &EpisodeSetup,
        action: Action,
    ) -> Result<Step, EpisodeError> {
        if self.reward.is_some() {
            return Err(EpisodeError::Over);
        }
        self.steps += 1;
        let mut step = match action {
            Action::ListTools => Step {
                observation: object([("tools", self.list_tools().await?.into())]),
                reward: Some(0.0),
                done: false,
            },
            Action::CallTool {
                tool_name,
                arguments,
            } => {
                let (result, error) = match self.call(&tool_name, arguments).await {
                    Ok(result) => (result, Value::Null),
                    Err(issue) => (Value::Null, tool_error(&issue)),
                };
                Step {
                    observation: object([
                        ("tool_name", tool_name.into()),
                        ("result", result),
                        ("error", error),
                    ]),
                    reward: Some(0.0),
                    done: false,
                }
            }
            Action::SubmitAnswer { answer } => return self.finish(setup, answer, false).await,
        };
        if self.steps >= setup.max_steps {
            let end = self
                .finish(setup, Value::String(String::new()), true)
                .await?;
            if let (Value::Object(last), Value::Object(end)) =
                (&mut step.observation, end.observation)
            {
                last.extend(end);
            }
            step.reward = end.reward;
            step.done = true;
        }
        Ok(step)
    }

    /// Answers a JSON-RPC request (`tools/list`, `tools/call`) on the episode's session; calls
    /// count as steps and join the trajectory.
    pub async fn mcp(&mut self, setup: &EpisodeSetup, request: &Value) -> Value {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let error = |code: i64, message: String| json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        let params = request.get("params").cloned().unwrap_or(json!({}));
        match request.get("method").and_then(Value::as_str) {
            Some("tools/list") => match self.session.relist().await {
                Ok(()) => {
                    let tools = serde_json::to_value(self.session.tools()).unwrap_or_default();
                    object([
                        ("jsonrpc", "2.0".into()),
                        ("id", id.clone()),
                        ("result", object([("tools", tools)])),
                    ])
                }
                Err(message) => error(-32603, message),
            },
            Some("tools/call") => {
                if self.reward.is_some() {
                    return error(-32000, EpisodeError::Over.to_string());
                }
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    return error(-32602, "tools/call needs params.name".into());
                };
                let arguments = match params.get("arguments") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(map)) => map.clone(),
                    Some(_) => return error(-32602, "params.arguments must be an object".into()),
                };
                self.steps += 1;
                let answer = match self.call(name, arguments).await {
                    Ok(result) => object([
                        ("jsonrpc", "2.0".into()),
                        ("id", id.clone()),
                        ("result", result),
                    ]),
                    Err(CallIssue::ErrorResult(message) | CallIssue::Failure(message)) => {
                        error(-32603, message)
                    }
                };
                if self.steps >= setup.max_steps {
                    // The trajectory ends here; the next action learns it is over.
                    let _ = self.finish(setup, Value::String(String::new()), true).await;
                }
                answer
            }
            Some(other) => error(-32601, format!("Method not found: {other}")),
            None => error(-32600, "Invalid Request: no method".into()),
        }
    }

    /// OpenEnv's `State` fields and the episode's own.
    pub fn state(&self) -> Value {
        let s = &self.sample.sample;
        json!({
            "episode_id": self.id,
            "step_count": self.steps,
            "uuid": s.uuid,
            "capability": s.capability,
            "domain": s.domain,
            "calls": self.calls.len(),
            "done": self.reward.is_some(),
            "reward": self.reward,
        })
    }

    /// Ends the session.
    pub async fn close(self) {
        self.session.close().await;
    }

    async fn list_tools(&mut self) -> Result<Vec<Value>, EpisodeError> {
        self.session.relist().await.map_err(EpisodeError::Session)?;
        Ok(self.session.tools().iter().map(tool_json).collect())
    }

    async fn call(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value, CallIssue> {
        self.calls.push(RecordedCall {
            name: name.to_owned(),
            arguments: arguments.clone(),
        });
        let result = self.session.call_tool(name, arguments).await?;
        Ok(serde_json::to_value(result).unwrap_or_default())
    }

    /// Judges the trajectory with `answer`; the episode is over.
    async fn finish(
        &mut self,
        setup: &EpisodeSetup,
        answer: Value,
        truncated: bool,
    ) -> Result<Step, EpisodeError> {
        let prediction = prediction_record(&self.sample, &self.calls, &answer);
        let reward = judge(&setup.judging, setup.reward, &self.sample, &prediction)
            .await
            .map_err(EpisodeError::Reward)?;
        self.reward = Some(reward.value);
        Ok(Step {
            observation: object([
                ("answer", shown_json(&answer)),
                ("truncated", truncated.into()),
                ("reward_mode", reward.mode.into()),
                ("recovered", json!(reward.recovered)),
                ("verdict", shown_verdict(reward.verdict)),
                ("prediction", shown_prediction(prediction)),
            ]),
            reward: Some(reward.value),
            done: true,
        })
    }
}

/// The verdict as the submit's observation shows it: replayed responses and problem lines cut
/// by [`shown_json`] (the reward was reached on them whole), so that an episode's calls cannot
/// make the message huge.
fn shown_verdict(mut verdict: SampleReport) -> Value {
    if let Some(responses) = verdict.responses.as_mut() {
        let all = responses.ground_truth.iter_mut();
        for response in all.chain(responses.prediction.iter_mut()) {
            *response = shown_json(response);
        }
    }
    for problem in &mut verdict.problems {
        *problem = shown(problem);
    }
    serde_json::to_value(&verdict).unwrap_or_default()
}

/// The prediction record as the submit's observation shows it: each call's arguments and each
/// answer cut by [`shown_json`].
fn shown_prediction(mut prediction: Value) -> Value {
    let turns = prediction.get_mut("output").and_then(Value::as_array_mut);
    for turn in turns.into_iter().flatten() {
        if let Some(answer) = turn.get_mut("answer") {
            *answer = shown_json(answer);
        }
        let calls = turn
            .pointer_mut("/sequence/tool_call")
            .and_then(Value::as_array_mut);
        for call in calls.into_iter().flatten() {
            if let Some(arguments) = call.get_mut("arguments") {
                *arguments = shown_json(arguments);
            }
        }
    }
    prediction
}

/// OpenEnv's `ToolError` for a call that got no result.
fn tool_error(issue: &CallIssue) -> Value {
    let (error_type, message) = match issue {
        CallIssue::ErrorResult(message) => ("execution_error", message),
        CallIssue::Failure(message) if message.starts_with("no answer within") => {
            ("timeout", message)
        }
        CallIssue::Failure(message) => ("transport_error", message),
    };
    json!({"error_type": error_type, "message": message})
}

//! Judging one sample: both sides' calls replayed in fresh sessions (legacy names translated,
//! capability 1 started in its universe), then the judges' waterfall — policy, exact match of
//! the responses, answer and groundedness — and the sample's report. [`crate::evaluate`] runs
//! it for a whole split; the RL episodes run it for one trajectory.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use vakra_chaining::LegacyTranslator;

use crate::ground_truth_memo::GroundTruthMemo;
use crate::judges::exact::{self, ExactMode, Normalization};
use crate::judges::llm::{self, LlmClient, Prompts};
use crate::judges::{GroundednessMode, answer, answer_text, grounded, policy};
use crate::records::{Call, Record, Turn};
use crate::replayed::Replayed;
use crate::report::{
    self, CallReport, Calls, DecidedBy, Judges, MULTI_SOURCE_WEIGHT, ReplayCounts, ReplaySummary,
    Responses, SampleReport,
};
use crate::taxonomy;
use vakra_client::{CallIssue, Connector, ReplaySession};

/// How one sample is replayed and judged: the settings of a run that decide a sample's
/// verdict (a run adds which samples, and how many at a time).
pub struct Judging {
    pub connector: Connector,
    pub exact_mode: ExactMode,
    pub normalization: Normalization,
    pub policy_judge: bool,
    /// Category → retriever domains, for the policy judge.
    pub policy_categories: BTreeMap<String, Vec<String>>,
    /// No LLM: the deterministic answer match decides instead.
    pub llm: Option<LlmClient>,
    /// The groundedness judge; `Llm` without an LLM configured means the deterministic one.
    pub groundedness: GroundednessMode,
    pub prompts: Prompts,
    /// Legacy operation id → tool name (the operation-id maps).
    pub legacy_operation_ids: HashMap<String, String>,
    pub call_timeout: Duration,
    pub fix_quirks: bool,
    /// Keep each sample's compared tool responses in the report (for debugging).
    pub include_responses: bool,
    /// Keep ground-truth replays for samples judged again (the RL episodes); `None` replays
    /// the ground truth every time, as `vakra eval` does.
    pub ground_truth_memo: Option<GroundTruthMemo>,
}

/// One sample to evaluate.
pub struct Sample {
    pub position: usize,
    pub capability: u8,
    pub domain: String,
    pub gt: Record,
    pub pred: Option<Record>,
    pub problems: Vec<String>,
    /// The prediction's trial (`vakra run --trials`).
    pub trial: Option<u32>,
}

/// Capability 4's weighting: the ground truth's scored turn uses both a retriever and an API.
fn is_multi_source(sample: &Sample) -> bool {
    sample.capability == 4
        && sample.gt.turns.last().is_some_and(|turn| {
            let retrievers = turn
                .calls
                .iter()
                .filter(|c| policy::is_retriever(&c.name))
                .count();
            retrievers > 0 && retrievers < turn.calls.len()
        })
}

/// Replays and judges one sample: its report, and the LLM judge's errors, if any. The stages:
/// pair the prediction's turn with the ground truth's, replay both, then the judges'
/// [`WATERFALL`] over the turn pair, and the error taxonomy for a sample that did not pass.
pub async fn judge_sample(config: &Judging, mut sample: Sample) -> (SampleReport, Vec<String>) {
    let gt_turn = sample.gt.turns.last().cloned().unwrap_or_else(empty_turn);
    let mut report = new_report(&mut sample, &gt_turn);
    let mut judge_errors = Vec::new();
    let Some(pred) = sample.pred.take() else {
        report.error_stage = Some("no_prediction".into());
        return (report, judge_errors);
    };
    let Some(pred_index) = scored_turn(&pred, &gt_turn, &mut report) else {
        report.error_stage = Some("turn_mismatch".into());
        return (report, judge_errors);
    };
    let pred_turn = &pred.turns[pred_index];
    // Judged whole, shown cut: a string answer is not copied.
    report.pred_answer = match &pred_turn.answer {
        Value::String(s) => crate::report::shown(s),
        other => crate::report::shown(&answer_text(other)),
    };

    let (pred_replay, gt_replay) = tokio::join!(
        replay(config, &sample, &pred, false),
        replay_ground_truth(config, &sample),
    );
    let pair = TurnPair::new(
        &sample,
        (&gt_turn, &gt_replay),
        (pred_turn, &pred_replay, pred_index),
    );
    pair.record(&mut report, config.include_responses);
    for stage in WATERFALL {
        match stage
            .judge(config, &pair, &mut report, &mut judge_errors)
            .await
        {
            Outcome::Next => {}
            Outcome::Rejected => return (report, judge_errors),
            Outcome::Score(score) => {
                report.score = score;
                break;
            }
        }
    }
    if report.score != 1.0 {
        let strip = |calls: &[Call]| -> Vec<Call> {
            calls
                .iter()
                .filter(|c| !(sample.capability == 1 && c.name == "get_data"))
                .cloned()
                .collect()
        };
        report.error_stage =
            Some(taxonomy::error_stage(&strip(pair.gt_calls), &strip(pair.pred_calls)).to_owned());
    }
    (report, judge_errors)
}

/// The sample's report before judging: the ground truth's turn, hops and weight.
fn new_report(sample: &mut Sample, gt_turn: &Turn) -> SampleReport {
    let hops = gt_turn
        .calls
        .iter()
        .filter(|c| {
            c.name != "initialize_active_data" && !(sample.capability == 1 && c.name == "get_data")
        })
        .count();
    let mut problems = std::mem::take(&mut sample.problems);
    if sample.gt.turns.is_empty() {
        problems.push("the ground truth has no turns".into());
    }
    SampleReport {
        position: sample.position,
        uuid: sample.gt.uuid.clone(),
        domain: sample.domain.clone(),
        turn_id: gt_turn.turn_id,
        score: 0.0,
        weight: if is_multi_source(sample) {
            MULTI_SOURCE_WEIGHT
        } else {
            1
        },
        hops,
        gt_steps: 0,
        pred_steps: 0,
        extra_steps: 0,
        judges: Judges::default(),
        decided_by: None,
        error_stage: None,
        query: gt_turn.query.clone(),
        pred_answer: String::new(),
        gt_answer: answer_text(&gt_turn.answer),
        problems,
        replay: ReplaySummary::default(),
        calls: None,
        responses: None,
        trial: sample.trial,
    }
}

/// The prediction's turn scored against the ground truth's: the one with its `turn_id`, or the
/// only one (noted); `None` when neither exists (noted).
fn scored_turn(pred: &Record, gt_turn: &Turn, report: &mut SampleReport) -> Option<usize> {
    match pred
        .turns
        .iter()
        .position(|t| t.turn_id.is_some() && t.turn_id == gt_turn.turn_id)
    {
        Some(index) => Some(index),
        None if pred.turns.len() == 1 => {
            report.problems.push(format!(
                "the prediction's turn_id {:?} differs from the ground truth's {:?}; its only turn was scored",
                pred.turns[0].turn_id, gt_turn.turn_id
            ));
            Some(0)
        }
        None => {
            report.problems.push(format!(
                "the prediction has {} turns and none has the ground truth's turn_id {:?}",
                pred.turns.len(),
                gt_turn.turn_id
            ));
            None
        }
    }
}

/// The scored turn of both sides after their replay: what the judges read.
struct TurnPair<'a> {
    /// The ground truth's policy (capability 4).
    policy: &'a str,
    query: &'a str,
    gt_answer: &'a Value,
    pred_answer: &'a Value,
    gt_calls: &'a [Call],
    pred_calls: &'a [Call],
    /// The replayed responses, padded with `None` for the calls without a name (spec §2.8).
    gt_responses: Vec<Value>,
    pred_responses: Vec<Value>,
    /// Capability 4: the documents the prediction's retriever calls returned.
    pred_retrieved: &'a [String],
    pred_replay: &'a Replayed,
    gt_replay: &'a Replayed,
}

impl<'a> TurnPair<'a> {
    fn new(
        sample: &'a Sample,
        (gt_turn, gt_replay): (&'a Turn, &'a Replayed),
        (pred_turn, pred_replay, pred_index): (&'a Turn, &'a Replayed, usize),
    ) -> Self {
        let gt_calls = gt_replay.calls.last().map_or(&[][..], Vec::as_slice);
        let pred_calls = pred_replay
            .calls
            .get(pred_index)
            .map_or(&[][..], Vec::as_slice);
        let mut gt_responses = gt_replay.responses.last().cloned().unwrap_or_default();
        let mut pred_responses = pred_replay
            .responses
            .get(pred_index)
            .cloned()
            .unwrap_or_default();
        // Items of `tool_call` without a name are not replayed; the reference answers each with
        // None, after the turn's replayed responses (spec §2.8).
        gt_responses.extend(std::iter::repeat_n(Value::Null, gt_turn.unnamed_calls));
        pred_responses.extend(std::iter::repeat_n(Value::Null, pred_turn.unnamed_calls));
        Self {
            policy: &sample.gt.additional_instructions,
            query: &gt_turn.query,
            gt_answer: &gt_turn.answer,
            pred_answer: &pred_turn.answer,
            gt_calls,
            pred_calls,
            gt_responses,
            pred_responses,
            pred_retrieved: pred_replay
                .retrieved
                .get(pred_index)
                .map_or(&[][..], Vec::as_slice),
            pred_replay,
            gt_replay,
        }
    }

    /// The replays' problems and counts, the steps and calls (and responses, when asked) in
    /// the report.
    fn record(&self, report: &mut SampleReport, include_responses: bool) {
        report.problems.extend(
            self.pred_replay
                .problems
                .iter()
                .map(|p| format!("prediction replay: {p}")),
        );
        report.problems.extend(
            self.gt_replay
                .problems
                .iter()
                .map(|p| format!("ground-truth replay: {p}")),
        );
        report.replay = ReplaySummary {
            prediction: self.pred_replay.counts.clone(),
            ground_truth: self.gt_replay.counts.clone(),
        };
        report.gt_steps = self.gt_calls.len();
        report.pred_steps = self.pred_calls.len();
        report.extra_steps = report.pred_steps.saturating_sub(report.gt_steps);
        let listed = |calls: &[Call]| -> Vec<CallReport> {
            calls
                .iter()
                .map(|c| CallReport {
                    name: c.name.clone(),
                    arguments: crate::report::shown_json(&c.arguments),
                })
                .collect()
        };
        report.calls = Some(Calls {
            ground_truth: listed(self.gt_calls),
            prediction: listed(self.pred_calls),
        });
        if include_responses {
            report.responses = Some(Responses {
                ground_truth: self.gt_responses.clone(),
                prediction: self.pred_responses.clone(),
            });
        }
    }

    /// The prediction's answer as the LLM judges read it (a string as it is).
    fn pred_answer_text(&self) -> String {
        match self.pred_answer {
            Value::String(s) => s.clone(),
            other => answer_text(other),
        }
    }
}

/// One judge of the waterfall.
#[derive(Debug, Clone, Copy)]
enum Stage {
    /// Capability 4's policy (when on): a violation scores 0 and stops.
    Policy,
    /// Exact match of the tool responses: a match skips the answer judge.
    ExactMatch,
    /// The answer against the ground truth's (LLM or deterministic): a wrong answer scores 0.
    Answer,
    /// Whether the answer rests on the responses: its score is the sample's.
    Groundedness,
}

/// The judges in the reference's order.
const WATERFALL: [Stage; 4] = [
    Stage::Policy,
    Stage::ExactMatch,
    Stage::Answer,
    Stage::Groundedness,
];

/// What a stage decided.
enum Outcome {
    /// On to the next stage.
    Next,
    /// The sample's score; the error taxonomy runs when it is not 1.
    Score(f64),
    /// Rejected with its error stage set; nothing else runs.
    Rejected,
}

impl Stage {
    async fn judge(
        self,
        config: &Judging,
        pair: &TurnPair<'_>,
        report: &mut SampleReport,
        judge_errors: &mut Vec<String>,
    ) -> Outcome {
        match self {
            Stage::Policy => {
                if !config.policy_judge {
                    return Outcome::Next;
                }
                let predicted: Vec<&str> =
                    pair.pred_calls.iter().map(|c| c.name.as_str()).collect();
                let truth: Vec<&str> = pair.gt_calls.iter().map(|c| c.name.as_str()).collect();
                report.judges.policy =
                    policy::judge(pair.policy, &predicted, &truth, &config.policy_categories);
                if report.judges.policy.as_ref().is_some_and(|v| !v.passed()) {
                    report.decided_by = Some(decided_by("policy", "rule"));
                    report.error_stage = Some("policy".into());
                    return Outcome::Rejected;
                }
                Outcome::Next
            }
            Stage::ExactMatch => {
                let (gt, pred) = (&pair.gt_responses, &pair.pred_responses);
                report.judges.exact_match = Some(match config.exact_mode {
                    ExactMode::Reference => exact::reference(gt, pred),
                    ExactMode::Normalized => exact::normalized(gt, pred, &config.normalization),
                });
                Outcome::Next
            }
            Stage::Answer => {
                if report
                    .judges
                    .exact_match
                    .as_ref()
                    .is_some_and(|v| v.passed())
                {
                    return Outcome::Next;
                }
                let verdict = match &config.llm {
                    Some(client) => {
                        let (verdict, error) = llm::correctness(
                            client,
                            &config.prompts,
                            pair.query,
                            &report.gt_answer,
                            &pair.pred_answer_text(),
                        )
                        .await;
                        note_judge_error(report, judge_errors, 0, error);
                        verdict
                    }
                    None => answer::judge(pair.gt_answer, pair.pred_answer),
                };
                let passed = verdict.passed();
                report.judges.answer = Some(verdict);
                if passed {
                    return Outcome::Next;
                }
                let method = if config.llm.is_some() {
                    "llm"
                } else {
                    "deterministic"
                };
                report.decided_by = Some(decided_by("answer", method));
                Outcome::Score(0.0)
            }
            Stage::Groundedness => {
                let verdict = match (groundedness_mode(config), &config.llm) {
                    (GroundednessMode::Llm, Some(client)) => {
                        let (verdict, error) = llm::groundedness(
                            client,
                            &config.prompts,
                            pair.query,
                            &pair.pred_answer_text(),
                            &pair.pred_responses,
                        )
                        .await;
                        note_judge_error(report, judge_errors, 1, error);
                        verdict
                    }
                    _ => {
                        let mut support = pair.pred_responses.clone();
                        support.extend(pair.pred_retrieved.iter().cloned().map(Value::String));
                        grounded::judge(pair.query, pair.pred_answer, &support)
                    }
                };
                report.decided_by = Some(decided_by(
                    "groundedness",
                    groundedness_mode(config).as_str(),
                ));
                let score = verdict.score;
                report.judges.groundedness = Some(verdict);
                Outcome::Score(score)
            }
        }
    }
}

/// An LLM judge's error (`judge` 0: correctness, 1: groundedness), in the sample's problems
/// and the run's list.
fn note_judge_error(
    report: &mut SampleReport,
    judge_errors: &mut Vec<String>,
    judge: usize,
    error: Option<String>,
) {
    if let Some(error) = error {
        report
            .problems
            .push(format!("{}{error}", report::JUDGE_ERROR_PREFIXES[judge]));
        judge_errors.push(error);
    }
}

/// The groundedness judge that runs: the LLM one only when an LLM is configured.
pub(crate) fn groundedness_mode(config: &Judging) -> GroundednessMode {
    match (config.groundedness, &config.llm) {
        (GroundednessMode::Llm, Some(_)) => GroundednessMode::Llm,
        _ => GroundednessMode::Deterministic,
    }
}

fn decided_by(judge: &str, method: &str) -> DecidedBy {
    DecidedBy {
        judge: judge.into(),
        method: method.into(),
    }
}

fn empty_turn() -> Turn {
    Turn {
        turn_id: None,
        query: String::new(),
        answer: Value::Null,
        calls: Vec::new(),
        stored_responses: Vec::new(),
        unnamed_calls: 0,
        lists_calls: false,
    }
}

/// Replays the ground truth, or takes its kept replay.
async fn replay_ground_truth(config: &Judging, sample: &Sample) -> Arc<Replayed> {
    let Some(memo) = &config.ground_truth_memo else {
        return Arc::new(replay(config, sample, &sample.gt, true).await);
    };
    if let Some(kept) = memo.get(sample.capability, &sample.domain, &sample.gt) {
        return kept;
    }
    let replayed = Arc::new(replay(config, sample, &sample.gt, true).await);
    memo.keep(sample.capability, &sample.domain, &sample.gt, &replayed);
    replayed
}

/// Replays one side of a sample in a fresh session: every turn's calls in order.
async fn replay(config: &Judging, sample: &Sample, record: &Record, is_gt: bool) -> Replayed {
    let mut turns: Vec<Vec<Call>> = record.turns.iter().map(|t| t.calls.clone()).collect();
    if sample.capability == 1 && !config.fix_quirks && !record.turns.iter().any(|t| t.lists_calls) {
        // The reference replays nothing for a trace without a `tool_call` list, not even the
        // get_data it prepends, whose response it records as None (spec §2.5).
        let mut responses: Vec<Vec<Value>> = turns.iter().map(|_| Vec::new()).collect();
        responses.resize_with(responses.len().max(1), Vec::new);
        responses[0].push(Value::Null);
        return Replayed {
            calls: turns,
            responses,
            retrieved: Vec::new(),
            problems: Vec::new(),
            counts: ReplayCounts::default(),
        };
    }
    if sample.capability == 1 {
        start_with_get_data(&mut turns, &sample.gt.uuid);
    }
    let mut replayed = Replayed {
        calls: turns.clone(),
        responses: Vec::new(),
        retrieved: Vec::new(),
        problems: Vec::new(),
        counts: ReplayCounts {
            calls: turns.iter().map(Vec::len).sum(),
            ..ReplayCounts::default()
        },
    };
    if turns.iter().all(Vec::is_empty) {
        replayed.responses = turns.iter().map(|_| Vec::new()).collect();
        return replayed;
    }
    let session = match config
        .connector
        .open(sample.capability, &sample.domain, config.call_timeout)
        .await
    {
        Ok(session) => session,
        Err(e) => {
            // Every call answers with the failure, as the reference records client errors.
            let text = Value::String(format!("Error: {e}"));
            replayed.problems.push(e);
            replayed.counts.failures = replayed.counts.calls;
            replayed.responses = turns.iter().map(|t| vec![text.clone(); t.len()]).collect();
            return replayed;
        }
    };
    let mut translator = LegacyTranslator::new(sample.gt.uuid.clone());
    for (index, calls) in turns.iter().enumerate() {
        let mut responses = Vec::with_capacity(calls.len());
        let mut retrieved = Vec::new();
        for (position, call) in calls.iter().enumerate() {
            let (name, arguments) =
                live_call(config, &session, &translator, sample.capability, call);
            let response = session.call(&name, &arguments).await;
            let counts = &mut replayed.counts;
            let unknown = !session.has_tool(&name);
            if unknown {
                counts.unknown_tools += 1;
                let translated = if name == call.name {
                    String::new()
                } else {
                    format!(" (given as `{}`)", call.name)
                };
                replayed.problems.push(format!(
                    "unknown tool `{name}`{translated}: the server does not list it"
                ));
            }
            // An unknown tool's error answer is not counted again.
            match &response.issue {
                Some(CallIssue::ErrorResult(error)) if !unknown => {
                    counts.error_results += 1;
                    replayed.problems.push(format!("{name}: {error}"));
                }
                Some(CallIssue::Failure(failure)) => {
                    counts.failures += 1;
                    replayed.problems.push(format!("{name}: {failure}"));
                }
                _ => {}
            }
            replayed.calls[index][position].name = name;
            if sample.capability == 1 {
                translator.record(call.label.as_deref(), &response.text);
            }
            let value = if sample.capability == 4 && policy::is_retriever(&call.name) {
                let stored = record
                    .turns
                    .get(index)
                    .and_then(|t| t.stored_responses.get(position));
                let texts = retriever_texts(is_gt, stored, &response.text, &mut replayed.problems);
                retrieved.push(response.text);
                texts
            } else {
                Value::String(response.text)
            };
            responses.push(value);
        }
        replayed.responses.push(responses);
        replayed.retrieved.push(retrieved);
    }
    session.close().await;
    replayed
}

/// Capability 1: a trace starts in its universe. `initialize_active_data` (the legacy first
/// call) becomes `get_data(uuid)`; a trace not starting with `get_data` gets it prepended, as
/// the reference's runner calls it before the agent starts.
fn start_with_get_data(turns: &mut Vec<Vec<Call>>, uuid: &str) {
    let get_data = Call {
        name: "get_data".into(),
        arguments: json!({ "tool_universe_id": uuid }),
        label: None,
    };
    if turns.is_empty() {
        turns.push(Vec::new());
    }
    let first = &mut turns[0];
    match first.first().map(|c| c.name.as_str()) {
        Some("initialize_active_data") => {
            let label = first[0].label.clone();
            first[0] = Call { label, ..get_data };
        }
        Some("get_data") => {}
        _ => first.insert(0, get_data),
    }
}

/// The call as it goes to the server: legacy operation ids renamed, legacy capability-1 table
/// references bound to live handles.
fn live_call(
    config: &Judging,
    session: &ReplaySession,
    translator: &LegacyTranslator,
    capability: u8,
    call: &Call,
) -> (String, Value) {
    let name = if session.has_tool(&call.name) {
        call.name.clone()
    } else {
        legacy_operation(&config.legacy_operation_ids, session, &call.name)
            .unwrap_or_else(|| call.name.clone())
    };
    match (&call.arguments, capability) {
        (Value::Object(arguments), 1) => {
            let live = translator.translate(&name, arguments);
            (live.name, Value::Object(live.arguments))
        }
        (arguments, _) => (name, arguments.clone()),
    }
}

/// The live name of a legacy FastAPI-generated operation id
/// (`<name>_v1_<domain>_<path>_get`): from the operation-id maps, or the longest listed tool
/// name it starts with.
fn legacy_operation(
    map: &HashMap<String, String>,
    session: &ReplaySession,
    name: &str,
) -> Option<String> {
    if let Some(live) = map.get(name) {
        return Some(live.clone());
    }
    if !name.ends_with("_get") {
        return None;
    }
    let cut = name.find("_v1_")?;
    let mut prefix = &name[..cut];
    // Operation names may themselves contain `_v1_`; try each cut from the right.
    loop {
        if session.has_tool(prefix) {
            return Some(prefix.to_owned());
        }
        let next = name[prefix.len() + 4..].find("_v1_")?;
        prefix = &name[..prefix.len() + 4 + next];
    }
}

/// Capability 4 compares retrieved documents as lists of texts: the ground truth's stored
/// documents, the prediction's live ones (spec §2.8).
fn retriever_texts(
    is_gt: bool,
    stored: Option<&Value>,
    live: &str,
    problems: &mut Vec<String>,
) -> Value {
    let texts = |items: &[Value]| -> Option<Value> {
        items
            .iter()
            .map(|item| match item {
                Value::Object(map) => map.get("text").cloned(),
                Value::String(_) => Some(item.clone()),
                _ => None,
            })
            .collect::<Option<Vec<Value>>>()
            .map(Value::Array)
    };
    if is_gt {
        match stored {
            Some(Value::Array(items)) => {
                if let Some(value) = texts(items) {
                    return value;
                }
                problems.push(
                    "a stored retriever response is not a list of documents; the live one was used"
                        .into(),
                );
            }
            _ => problems.push("no stored retriever response; the live one was used".into()),
        }
    }
    match serde_json::from_str::<Value>(live) {
        Ok(Value::Object(map)) => match map.get("results") {
            Some(Value::Array(items)) => texts(items).unwrap_or_else(|| Value::Array(Vec::new())),
            _ => Value::Array(Vec::new()),
        },
        _ => Value::Array(Vec::new()),
    }
}

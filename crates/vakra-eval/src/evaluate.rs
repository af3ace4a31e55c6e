//! One evaluation run: find the samples, replay and judge each one (bounded concurrency),
//! and aggregate the scores.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Map, Value, json};
use vakra_chaining::LegacyTranslator;

use crate::judges::exact::{self, ExactMode, Normalization};
use crate::judges::llm::{self, LlmClient, Prompts};
use crate::judges::{GroundednessMode, answer, answer_text, grounded, policy};
use crate::records::{
    CAPABILITY_DIRS, Call, Problem, Record, Turn, capability_of_dir, domain_files, read_records,
};
use crate::replay::{CallIssue, Connector, ReplaySession};
use crate::report::{
    self, CallReport, Calls, CapabilityReport, DecidedBy, Judges, MULTI_SOURCE_WEIGHT,
    ReplayCounts, ReplaySummary, Report, Responses, SampleReport, Settings, Timing,
};
use crate::shard::Shard;
use crate::taxonomy;
use crate::trials::Tokens;

/// Everything a run needs.
pub struct EvalConfig {
    /// The split folder: `capability_<n>_<name>/{input,output}/<domain>.json`.
    pub ground_truth: PathBuf,
    /// `capability_<n>_<name>/<domain>.json` in the submission format.
    pub predictions: PathBuf,
    /// Capabilities to evaluate (empty: every one found).
    pub capabilities: Vec<u8>,
    /// Domains to evaluate (empty: all).
    pub domains: Vec<String>,
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
    pub jobs: usize,
    pub call_timeout: Duration,
    pub fix_quirks: bool,
    pub progress: bool,
    /// Keep each sample's compared tool responses in the report (for debugging).
    pub include_responses: bool,
    /// Prices per million input and output tokens, for the cost of runs whose records carry
    /// token counts.
    pub prices: Option<(f64, f64)>,
    /// Evaluate only this shard's samples (and report only its missing and extra predictions).
    pub shard: Option<Shard>,
}

/// One sample to evaluate.
struct Sample {
    position: usize,
    capability: u8,
    domain: String,
    gt: Record,
    pred: Option<Record>,
    problems: Vec<String>,
    /// The prediction's trial (`vakra run --trials`).
    trial: Option<u32>,
}

/// What one side's replay produced: the calls as sent (legacy names translated) and the
/// responses, per turn.
struct Replayed {
    calls: Vec<Vec<Call>>,
    responses: Vec<Vec<Value>>,
    /// Capability 4: the retriever calls' live answers (documents with their ids and metadata,
    /// as the agent saw them), per turn; the compared `responses` keep only the texts.
    retrieved: Vec<Vec<String>>,
    problems: Vec<String>,
    counts: ReplayCounts,
}

/// Runs the evaluation.
pub async fn run(config: EvalConfig) -> Report {
    let started = Instant::now();
    let config = Arc::new(config);
    let mut problems = Vec::new();
    let mut capabilities = BTreeMap::new();
    let mut samples = Vec::new();
    let mut position = 0;
    let in_shard = |uuid: &str| config.shard.is_none_or(|shard| shard.contains(uuid));
    for (capability, name, dir) in capability_dirs(&config.ground_truth, &config.capabilities) {
        let pred_dir = prediction_dir(&config.predictions, capability, &name);
        let mut missing = Vec::new();
        let mut extra = Vec::new();
        let mut n_gt = 0;
        let mut tokens: Option<Tokens> = None;
        for (domain, gt_path) in domain_files(&dir.join("output")) {
            if !config.domains.is_empty() && !config.domains.contains(&domain) {
                continue;
            }
            let (gt_records, gt_problems) = read_records(&gt_path);
            problems.extend(gt_problems);
            let instructions =
                input_instructions(&dir.join("input").join(format!("{domain}.json")));
            let pred_path = pred_dir.as_ref().map(|d| d.join(format!("{domain}.json")));
            // uuid → trial → record.
            let mut preds: HashMap<String, BTreeMap<u32, Record>> = HashMap::new();
            match pred_path.filter(|p| p.exists()) {
                Some(path) => {
                    let (records, pred_problems) = read_records(&path);
                    problems.extend(pred_problems);
                    for record in records {
                        if let Some(counted) = record.tokens {
                            tokens.get_or_insert_default().add(counted);
                        }
                        let trials = preds.entry(record.uuid.clone()).or_default();
                        if trials.insert(record.trial.unwrap_or(0), record).is_some() {
                            problems.push(Problem {
                                file: path.display().to_string(),
                                uuid: None,
                                message: "duplicate uuid: the last record is used".into(),
                            });
                        }
                    }
                }
                None => problems.push(Problem {
                    file: pred_dir
                        .as_ref()
                        .map(|d| d.join(format!("{domain}.json")).display().to_string())
                        .unwrap_or_else(|| config.predictions.display().to_string()),
                    uuid: None,
                    message: format!(
                        "no prediction file for capability {capability}, domain {domain}"
                    ),
                }),
            }
            let mut seen = std::collections::HashSet::new();
            for mut gt in gt_records {
                if !seen.insert(gt.uuid.clone()) {
                    problems.push(Problem {
                        file: gt_path.display().to_string(),
                        uuid: Some(gt.uuid.clone()),
                        message: "duplicate ground-truth uuid: scored once".into(),
                    });
                    continue;
                }
                position += 1;
                if !in_shard(&gt.uuid) {
                    preds.remove(&gt.uuid);
                    continue;
                }
                n_gt += 1;
                if gt.additional_instructions.is_empty()
                    && let Some(text) = instructions.get(&gt.uuid)
                {
                    gt.additional_instructions = text.clone();
                }
                let trials = preds.remove(&gt.uuid).unwrap_or_default();
                if trials.is_empty() {
                    missing.push(gt.uuid.clone());
                    samples.push(Sample {
                        position: position - 1,
                        capability,
                        domain: domain.clone(),
                        gt,
                        pred: None,
                        problems: Vec::new(),
                        trial: None,
                    });
                    continue;
                }
                for pred in trials.into_values() {
                    samples.push(Sample {
                        position: position - 1,
                        capability,
                        domain: domain.clone(),
                        gt: gt.clone(),
                        trial: pred.trial,
                        pred: Some(pred),
                        problems: Vec::new(),
                    });
                }
            }
            extra.extend(preds.into_keys().filter(|uuid| in_shard(uuid)));
        }
        missing.sort();
        extra.sort();
        capabilities.insert(capability, {
            let mut report = CapabilityReport::new(name, n_gt, missing, extra);
            report.cost_usd = config.prices.zip(tokens).map(|(p, t)| t.cost(p));
            report.tokens = tokens;
            report
        });
    }

    let progress = if config.progress {
        ProgressBar::new(samples.len() as u64).with_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} samples {elapsed} (eta {eta}) {msg}",
            )
            .expect("a valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    let limit = Arc::new(tokio::sync::Semaphore::new(config.jobs.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for (index, sample) in samples.into_iter().enumerate() {
        let config = Arc::clone(&config);
        let limit = Arc::clone(&limit);
        let progress = progress.clone();
        tasks.spawn(async move {
            let _permit = limit.acquire_owned().await;
            let capability = sample.capability;
            let (report, judge_errors) = evaluate_sample(&config, sample).await;
            progress.inc(1);
            (index, capability, report, judge_errors)
        });
    }
    let mut results = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(result) => results.push(result),
            Err(e) => problems.push(Problem {
                file: String::new(),
                uuid: None,
                message: format!("a sample's evaluation stopped: {e}"),
            }),
        }
    }
    progress.finish_and_clear();
    results.sort_by_key(|r| r.0);
    let n_samples = results.len();
    let mut replay_summary = ReplaySummary::default();
    let mut judge_errors = Vec::new();
    for (_, capability, sample, errors) in results {
        replay_summary.add(&sample.replay);
        judge_errors.extend(errors);
        if let Some(report) = capabilities.get_mut(&capability) {
            report.add(capability, sample);
        }
    }
    capabilities.values_mut().for_each(CapabilityReport::finish);
    let leaderboard_score = report::leaderboard_score(capabilities.values());
    let tokens = Tokens::total(capabilities.values().filter_map(|c| c.tokens));
    let capability_names: Vec<String> = capabilities.keys().map(u8::to_string).collect();
    let warnings = report::warnings(
        config.llm.is_some(),
        &judge_errors,
        &replay_summary,
        &capability_names,
    );
    let seconds = started.elapsed().as_secs_f64();
    Report {
        vakra_version: env!("CARGO_PKG_VERSION").into(),
        settings: Settings {
            ground_truth: config.ground_truth.display().to_string(),
            predictions: config.predictions.display().to_string(),
            replay: config.connector.describe(),
            sessions: "per-sample".into(),
            exact_match: config.exact_mode,
            policy_judge: config.policy_judge,
            answer_judge: if config.llm.is_some() {
                "llm"
            } else {
                "deterministic"
            }
            .into(),
            groundedness_judge: groundedness_mode(&config).as_str().into(),
            llm_model: config.llm.as_ref().map(|c| c.config().model.clone()),
            llm_base_url: config.llm.as_ref().map(|c| c.config().base_url.clone()),
            prompts: config.prompts.source.clone(),
            fix_quirks: config.fix_quirks,
            jobs: config.jobs,
            prices_per_million_tokens: config.prices.map(|(i, o)| [i, o]),
            shard: config.shard.map(|shard| shard.to_string()),
        },
        leaderboard_score,
        cost_usd: config.prices.zip(tokens).map(|(p, t)| t.cost(p)),
        tokens,
        capabilities: capabilities
            .into_iter()
            .map(|(n, report)| (n.to_string(), report))
            .collect(),
        problems,
        warnings,
        replay: replay_summary,
        timing: Timing::new(seconds, n_samples),
    }
}

/// The capability folders of a split, filtered: (number, name, path).
fn capability_dirs(root: &Path, wanted: &[u8]) -> Vec<(u8, String, PathBuf)> {
    let mut found: Vec<(u8, String, PathBuf)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let capability = capability_of_dir(&name)?;
            entry
                .path()
                .join("output")
                .is_dir()
                .then(|| (capability, name, entry.path()))
        })
        .filter(|(n, _, _)| wanted.is_empty() || wanted.contains(n))
        .collect();
    // A capability folder given directly.
    if found.is_empty()
        && let Some(name) = root.file_name().and_then(|n| n.to_str())
        && let Some(capability) = capability_of_dir(name)
        && root.join("output").is_dir()
        && (wanted.is_empty() || wanted.contains(&capability))
    {
        found.push((capability, name.to_owned(), root.to_owned()));
    }
    found.sort();
    found
}

/// Where a capability's prediction files are: `P/<name>/`, another `P/capability_<n>_*/`,
/// or `P` itself when it holds domain files.
fn prediction_dir(root: &Path, capability: u8, name: &str) -> Option<PathBuf> {
    let exact = root.join(name);
    if exact.is_dir() {
        return Some(exact);
    }
    let by_number = std::fs::read_dir(root).ok()?.flatten().find_map(|entry| {
        let entry_name = entry.file_name().to_str()?.to_owned();
        (capability_of_dir(&entry_name) == Some(capability) && entry.path().is_dir())
            .then(|| entry.path())
    });
    by_number.or_else(|| {
        let default_name = CAPABILITY_DIRS[usize::from(capability - 1)];
        let is_plain = !domain_files(root).is_empty() && !root.join(default_name).exists();
        is_plain.then(|| root.to_owned())
    })
}

/// `additional_instructions` by uuid from an agent-input file, when there is one.
fn input_instructions(path: &Path) -> HashMap<String, String> {
    let Ok(items) = crate::records::read_array(path) else {
        return HashMap::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let uuid = item.get("uuid")?.as_str()?.to_owned();
            let text = item.get("additional_instructions")?.as_str()?.to_owned();
            Some((uuid, text))
        })
        .collect()
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

/// Replays and judges one sample: its report, and the LLM judge's errors, if any.
async fn evaluate_sample(config: &EvalConfig, mut sample: Sample) -> (SampleReport, Vec<String>) {
    let gt_turn = sample.gt.turns.last().cloned().unwrap_or_else(empty_turn);
    let hops = gt_turn
        .calls
        .iter()
        .filter(|c| {
            c.name != "initialize_active_data" && !(sample.capability == 1 && c.name == "get_data")
        })
        .count();
    let mut report = SampleReport {
        position: sample.position,
        uuid: sample.gt.uuid.clone(),
        domain: sample.domain.clone(),
        turn_id: gt_turn.turn_id,
        score: 0.0,
        weight: if is_multi_source(&sample) {
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
        problems: std::mem::take(&mut sample.problems),
        replay: ReplaySummary::default(),
        calls: None,
        responses: None,
        trial: sample.trial,
    };
    let mut judge_errors = Vec::new();
    if sample.gt.turns.is_empty() {
        report.problems.push("the ground truth has no turns".into());
    }
    let Some(pred) = sample.pred.take() else {
        report.error_stage = Some("no_prediction".into());
        return (report, judge_errors);
    };
    let pred_index = match pred
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
        None => None,
    };
    let Some(pred_index) = pred_index else {
        report.problems.push(format!(
            "the prediction has {} turns and none has the ground truth's turn_id {:?}",
            pred.turns.len(),
            gt_turn.turn_id
        ));
        report.error_stage = Some("turn_mismatch".into());
        return (report, judge_errors);
    };
    let pred_turn = &pred.turns[pred_index];
    report.pred_answer = answer_text(&pred_turn.answer);

    let (pred_replay, gt_replay) = tokio::join!(
        replay(config, &sample, &pred, false),
        replay(config, &sample, &sample.gt, true),
    );
    report.problems.extend(
        pred_replay
            .problems
            .iter()
            .map(|p| format!("prediction replay: {p}")),
    );
    report.problems.extend(
        gt_replay
            .problems
            .iter()
            .map(|p| format!("ground-truth replay: {p}")),
    );
    report.replay = ReplaySummary {
        prediction: pred_replay.counts.clone(),
        ground_truth: gt_replay.counts.clone(),
    };
    let empty = Vec::new();
    let gt_calls = gt_replay.calls.last().unwrap_or(&empty);
    let pred_calls = pred_replay.calls.get(pred_index).unwrap_or(&empty);
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
    report.gt_steps = gt_calls.len();
    report.pred_steps = pred_calls.len();
    report.extra_steps = report.pred_steps.saturating_sub(report.gt_steps);
    let listed = |calls: &[Call]| -> Vec<CallReport> {
        calls
            .iter()
            .map(|c| CallReport {
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            })
            .collect()
    };
    report.calls = Some(Calls {
        ground_truth: listed(gt_calls),
        prediction: listed(pred_calls),
    });
    if config.include_responses {
        report.responses = Some(Responses {
            ground_truth: gt_responses.clone(),
            prediction: pred_responses.clone(),
        });
    }

    if config.policy_judge {
        let predicted: Vec<&str> = pred_calls.iter().map(|c| c.name.as_str()).collect();
        let truth: Vec<&str> = gt_calls.iter().map(|c| c.name.as_str()).collect();
        report.judges.policy = policy::judge(
            &sample.gt.additional_instructions,
            &predicted,
            &truth,
            &config.policy_categories,
        );
        if report.judges.policy.as_ref().is_some_and(|v| !v.passed()) {
            report.decided_by = Some(decided_by("policy", "rule"));
            report.error_stage = Some("policy".into());
            return (report, judge_errors);
        }
    }
    let exact = match config.exact_mode {
        ExactMode::Reference => exact::reference(&gt_responses, &pred_responses),
        ExactMode::Normalized => {
            exact::normalized(&gt_responses, &pred_responses, &config.normalization)
        }
    };
    let exact_passed = exact.passed();
    report.judges.exact_match = Some(exact);
    let pred_answer_text = match &pred_turn.answer {
        Value::String(s) => s.clone(),
        other => answer_text(other),
    };
    let query = &gt_turn.query;
    let answer_ok = if exact_passed {
        true
    } else {
        let verdict = match &config.llm {
            Some(client) => {
                let (verdict, error) = llm::correctness(
                    client,
                    &config.prompts,
                    query,
                    &report.gt_answer,
                    &pred_answer_text,
                )
                .await;
                if let Some(error) = error {
                    report
                        .problems
                        .push(format!("{}{error}", report::JUDGE_ERROR_PREFIXES[0]));
                    judge_errors.push(error);
                }
                verdict
            }
            None => answer::judge(&gt_turn.answer, &pred_turn.answer),
        };
        let passed = verdict.passed();
        report.judges.answer = Some(verdict);
        passed
    };
    report.score = if !answer_ok {
        let method = if config.llm.is_some() {
            "llm"
        } else {
            "deterministic"
        };
        report.decided_by = Some(decided_by("answer", method));
        0.0
    } else {
        let verdict = match (groundedness_mode(config), &config.llm) {
            (GroundednessMode::Llm, Some(client)) => {
                let (verdict, error) = llm::groundedness(
                    client,
                    &config.prompts,
                    query,
                    &pred_answer_text,
                    &pred_responses,
                )
                .await;
                if let Some(error) = error {
                    report
                        .problems
                        .push(format!("{}{error}", report::JUDGE_ERROR_PREFIXES[1]));
                    judge_errors.push(error);
                }
                verdict
            }
            _ => {
                let mut support = pred_responses.clone();
                if let Some(retrieved) = pred_replay.retrieved.get(pred_index) {
                    support.extend(retrieved.iter().cloned().map(Value::String));
                }
                grounded::judge(query, &pred_turn.answer, &support)
            }
        };
        report.decided_by = Some(decided_by(
            "groundedness",
            groundedness_mode(config).as_str(),
        ));
        let score = verdict.score;
        report.judges.groundedness = Some(verdict);
        score
    };
    if report.score != 1.0 {
        let strip = |calls: &[Call]| -> Vec<Call> {
            calls
                .iter()
                .filter(|c| !(sample.capability == 1 && c.name == "get_data"))
                .cloned()
                .collect()
        };
        report.error_stage =
            Some(taxonomy::error_stage(&strip(gt_calls), &strip(pred_calls)).to_owned());
    }
    (report, judge_errors)
}

/// The groundedness judge that runs: the LLM one only when an LLM is configured.
fn groundedness_mode(config: &EvalConfig) -> GroundednessMode {
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

/// Replays one side of a sample in a fresh session: every turn's calls in order.
async fn replay(config: &EvalConfig, sample: &Sample, record: &Record, is_gt: bool) -> Replayed {
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
    config: &EvalConfig,
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

/// Reads the operation-id maps (legacy operation id → tool name) in any of their forms: the
/// reference's `mapping_metadata/all_operation_id_mappings.json`
/// (`{"total_files", "total_mappings", "files": {"<f>.py": {old: new}}}`), the same with each
/// file's pairs under `"mappings"`, `{"mappings": {old: new}}`, or a flat `{old: new}` object.
/// Any other shape is an error, so that a wrong file never passes as an empty map.
pub fn read_operation_id_map(path: &Path) -> Result<HashMap<String, String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    operation_id_map(&value).map_err(|e| format!("{}: {e}", path.display()))
}

/// The pairs of an operation-id map file's JSON (see [`read_operation_id_map`]).
fn operation_id_map(value: &Value) -> Result<HashMap<String, String>, String> {
    let pairs = |map: &Map<String, Value>, at: &str, out: &mut HashMap<String, String>| {
        for (old, new) in map {
            let new = new.as_str().ok_or_else(|| {
                format!("{at}\"{old}\" maps to {new}, expected a tool name (a string)")
            })?;
            out.insert(old.clone(), new.to_owned());
        }
        Ok::<usize, String>(map.len())
    };
    let object = value
        .as_object()
        .ok_or("expected a JSON object of operation-id mappings")?;
    let mut out = HashMap::new();
    if let Some(files) = object.get("files") {
        let files = files
            .as_object()
            .ok_or("\"files\" must be an object of {\"<file>.py\": {old: new}}")?;
        let mut read = 0;
        for (file, entry) in files {
            let map = match entry.get("mappings") {
                Some(mappings) => mappings.as_object(),
                None => entry.as_object(),
            }
            .ok_or_else(|| format!("files.\"{file}\" must be an object of {{old: new}}"))?;
            read += pairs(map, &format!("files.\"{file}\": "), &mut out)?;
        }
        if let Some(total) = object.get("total_mappings").and_then(Value::as_u64)
            && total != read as u64
        {
            return Err(format!(
                "\"total_mappings\" says {total} but the files hold {read} mappings"
            ));
        }
        return Ok(out);
    }
    match object.get("mappings") {
        Some(Value::Object(map)) => pairs(map, "mappings.", &mut out)?,
        Some(_) => return Err("\"mappings\" must be an object of {old: new}".into()),
        None => pairs(object, "", &mut out)?,
    };
    Ok(out)
}

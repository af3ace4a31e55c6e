//! The evaluation report: what `vakra eval --report` writes, and what the Markdown and HTML
//! renderers read. Its schema is documented in docs/evaluator.md; keep the two in step.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use crate::intervals::{Method, ScoreInterval, Unit, samples_for_one_point, score_intervals};
use crate::judges::Verdict;
use crate::records::Problem;
use crate::trials::{Latency, Tokens, TrialsReport, trials_report};

/// The whole report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub vakra_version: String,
    pub settings: Settings,
    /// What the score compares with, as the predictions' `run.json` (written by `vakra run`)
    /// records it; absent for predictions from elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparability: Option<crate::comparability::Comparability>,
    /// Mean of the four capability scores (percent); capabilities not evaluated count as 0, as
    /// on the published leaderboard.
    pub leaderboard_score: f64,
    /// Its 95 % bootstrap intervals (capabilities resampled independently; see `intervals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaderboard_interval: Option<ScoreInterval>,
    /// How the intervals were computed (method, level, resamples, seed).
    #[serde(default)]
    pub intervals: Method,
    /// Tokens the predictions' records report (`vakra run` writes them), over all capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// Their cost at `settings.prices_per_million_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The seconds the run spent per sample, from the predictions' `duration_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    /// Keyed by capability number, "1" to "4"; only the evaluated ones.
    pub capabilities: BTreeMap<String, CapabilityReport>,
    /// Files or records that could not be used.
    pub problems: Vec<Problem>,
    /// Things a reader must know about how scores were reached (no LLM configured, judge
    /// errors, …).
    pub warnings: Vec<String>,
    /// What went wrong during replay, summed over all samples.
    pub replay: ReplaySummary,
    pub timing: Timing,
}

/// Replay trouble of both sides; none of it changes a score (the texts are scored as the
/// reference scores them), but it tells a wrong trace from a broken replay.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplaySummary {
    pub prediction: ReplayCounts,
    pub ground_truth: ReplayCounts,
}

impl ReplaySummary {
    pub(crate) fn add(&mut self, other: &ReplaySummary) {
        self.prediction.add(&other.prediction);
        self.ground_truth.add(&other.ground_truth);
    }
}

/// Counts of replayed calls and of those whose answer is not a tool's ordinary answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplayCounts {
    pub calls: usize,
    /// Calls of tools the server does not list (after legacy names were translated).
    pub unknown_tools: usize,
    /// Answers flagged `isError`, and MCP errors.
    pub error_results: usize,
    /// Calls without an answer: timeouts, sessions that failed or closed, unusable arguments.
    pub failures: usize,
}

impl ReplayCounts {
    fn add(&mut self, other: &ReplayCounts) {
        self.calls += other.calls;
        self.unknown_tools += other.unknown_tools;
        self.error_results += other.error_results;
        self.failures += other.failures;
    }
}

/// How the run was configured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    pub ground_truth: String,
    pub predictions: String,
    pub replay: String,
    /// `per-sample`: fresh sessions for each sample's prediction and ground truth.
    pub sessions: String,
    pub exact_match: crate::judges::exact::ExactMode,
    pub policy_judge: bool,
    /// `llm` or `deterministic` (no LLM configured).
    pub answer_judge: String,
    /// `llm` or `deterministic` (no LLM configured, or `--groundedness deterministic`).
    pub groundedness_judge: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_base_url: Option<String>,
    pub prompts: String,
    pub fix_quirks: bool,
    pub jobs: usize,
    /// Input and output prices per million tokens, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices_per_million_tokens: Option<[f64; 2]>,
    /// `I/N` for one shard of a sharded run (`--shard`); absent for a whole run, and for the
    /// report `vakra eval merge` makes of the shards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// One capability's results.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CapabilityReport {
    /// The data folder's name, `capability_<n>_<name>`.
    pub name: String,
    /// Percent: 100 × correct / samples; for capability 4 multi-source samples weigh double.
    pub score: f64,
    /// The score's 95 % bootstrap intervals, over samples (and over trials too, with trials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<ScoreInterval>,
    /// How many samples a 95 % interval of ±1 point would need at this run's spread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_for_one_point: Option<u64>,
    /// Percent correct with every sample weighing 1 (equals `score` for capabilities 1–3).
    pub unweighted_score: f64,
    pub n_samples: usize,
    pub n_correct: usize,
    pub n_paired: usize,
    pub missing_prediction_uuids: Vec<String>,
    pub extra_prediction_uuids: Vec<String>,
    pub domains: BTreeMap<String, Breakdown>,
    /// Keyed by the number of tool calls in the ground truth's scored turn.
    pub by_hops: BTreeMap<String, Breakdown>,
    /// Capability 4: `multi_source` and `single_source`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_source: BTreeMap<String, Breakdown>,
    /// Failed samples counted by the first stage that went wrong.
    pub errors: BTreeMap<String, usize>,
    pub samples: Vec<SampleReport>,
    /// pass^k and pass@k, when predictions hold several trials of a sample (each trial is
    /// then one entry of `samples`, and `score` averages over them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<TrialsReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
}

impl CapabilityReport {
    /// A capability with its ground-truth counts and no sample scored yet.
    pub fn new(name: String, n_samples: usize, missing: Vec<String>, extra: Vec<String>) -> Self {
        Self {
            name,
            score: 0.0,
            interval: None,
            samples_for_one_point: None,
            unweighted_score: 0.0,
            n_samples,
            n_correct: 0,
            n_paired: n_samples - missing.len(),
            missing_prediction_uuids: missing,
            extra_prediction_uuids: extra,
            domains: BTreeMap::new(),
            by_hops: BTreeMap::new(),
            by_source: BTreeMap::new(),
            errors: BTreeMap::new(),
            samples: Vec::new(),
            trials: None,
            tokens: None,
            cost_usd: None,
            latency: None,
        }
    }

    /// Counts a scored sample of capability `capability` into the breakdowns and keeps it;
    /// samples are added in `position` order.
    pub(crate) fn add(&mut self, capability: u8, sample: SampleReport) {
        let correct = sample.score == 1.0;
        self.domains
            .entry(sample.domain.clone())
            .or_default()
            .add(correct);
        self.by_hops
            .entry(sample.hops.to_string())
            .or_default()
            .add(correct);
        if capability == 4 {
            let source = if sample.weight == MULTI_SOURCE_WEIGHT {
                "multi_source"
            } else {
                "single_source"
            };
            self.by_source
                .entry(source.into())
                .or_default()
                .add(correct);
        }
        if let Some(stage) = &sample.error_stage {
            *self.errors.entry(stage.clone()).or_default() += 1;
        }
        self.samples.push(sample);
    }

    /// The scores, once every sample is added.
    pub(crate) fn finish(&mut self) {
        self.n_correct = self.samples.iter().filter(|s| s.score == 1.0).count();
        let weights: f64 = self.samples.iter().map(|s| f64::from(s.weight)).sum();
        let weighted: f64 = self
            .samples
            .iter()
            .map(|s| f64::from(s.weight) * s.score)
            .sum();
        self.score = percent(weighted, weights);
        let units = self.units();
        let outcomes: Vec<Vec<bool>> = units
            .iter()
            .map(|u| u.trials.iter().map(|s| *s == 1.0).collect())
            .collect();
        self.trials = trials_report(&outcomes);
        self.interval = score_intervals(&[&units], 1.0);
        self.samples_for_one_point = samples_for_one_point(&units);
        self.unweighted_score = percent(self.n_correct as f64, self.n_scored() as f64);
    }
}

/// The leaderboard score's intervals: the capabilities' samples resampled independently, their
/// scores averaged over four (those not evaluated count 0).
pub(crate) fn leaderboard_interval<'a>(
    capabilities: impl Iterator<Item = &'a CapabilityReport>,
) -> Option<ScoreInterval> {
    let units: Vec<Vec<Unit>> = capabilities.map(CapabilityReport::units).collect();
    let groups: Vec<&[Unit]> = units.iter().map(Vec::as_slice).collect();
    score_intervals(&groups, 4.0)
}

/// The weight of a capability-4 sample whose scored turn uses both a retriever and an API.
pub const MULTI_SOURCE_WEIGHT: u32 = 2;

/// Mean of the four capability scores; those not evaluated count as 0.
pub(crate) fn leaderboard_score<'a>(
    capabilities: impl Iterator<Item = &'a CapabilityReport>,
) -> f64 {
    capabilities.map(|c| c.score).sum::<f64>() / 4.0
}

/// What a reader must know about how the scores were reached: the answer judge, the LLM judge's
/// errors (in sample order), ground-truth replay trouble, capabilities left out.
pub(crate) fn warnings(
    llm_judge: bool,
    judge_errors: &[String],
    replay: &ReplaySummary,
    capabilities: &[String],
) -> Vec<String> {
    let mut warnings = Vec::new();
    if !llm_judge {
        warnings.push(
            "No LLM judge configured (--judge-url): answers were checked by the deterministic answer \
             match and groundedness by the deterministic groundedness judge, so scores can differ \
             from an LLM-judged run."
                .to_owned(),
        );
    }
    if let Some(first) = judge_errors.first() {
        warnings.push(format!(
            "LLM judge errors: {}; each scored its sample 0 (the samples' problems say which); \
             the first: {first}",
            judge_errors.len()
        ));
    }
    let gt = &replay.ground_truth;
    if gt.failures + gt.unknown_tools > 0 {
        warnings.push(format!(
            "{} of {} ground-truth calls failed or named an unknown tool: the servers are not \
             the ones the ground truth was made with, and samples may score as if their \
             failures matched (the samples' problems say which).",
            gt.failures + gt.unknown_tools,
            gt.calls
        ));
    }
    if capabilities.len() < 4 {
        warnings.push(format!(
            "Only capabilities {} were evaluated; the leaderboard score counts the others as 0.",
            capabilities.join(", ")
        ));
    }
    warnings
}

/// The prefixes of a sample's problem lines that carry an LLM judge's error.
pub(crate) const JUDGE_ERROR_PREFIXES: [&str; 2] = ["correctness judge: ", "groundedness judge: "];

/// Counts for one slice of samples.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Breakdown {
    pub n_samples: usize,
    pub n_correct: usize,
    /// Percent.
    pub score: f64,
}

impl CapabilityReport {
    /// The scored samples as bootstrap units, in report order: each ground-truth sample with its
    /// trials' scores.
    pub fn units(&self) -> Vec<Unit> {
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let mut units: Vec<Unit> = Vec::new();
        for sample in &self.samples {
            let i = *index.entry(&sample.uuid).or_insert_with(|| {
                units.push(Unit {
                    weight: f64::from(sample.weight),
                    trials: Vec::new(),
                });
                units.len() - 1
            });
            units[i].trials.push(sample.score);
        }
        units
    }

    /// What `n_correct` counts out of: every trial when there are several, else every
    /// ground-truth sample.
    pub fn n_scored(&self) -> usize {
        match self.trials {
            Some(_) => self.samples.len(),
            None => self.n_samples,
        }
    }
}

impl Breakdown {
    pub(crate) fn add(&mut self, correct: bool) {
        self.n_samples += 1;
        self.n_correct += usize::from(correct);
        self.score = percent(self.n_correct as f64, self.n_samples as f64);
    }
}

/// 100 × part / whole, 0 for an empty whole.
pub fn percent(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// The default of the most characters of a prediction's answer, or of a call's arguments as
/// JSON, a report shows: a 300 MB answer is judged whole but shown cut, so reports stay small.
pub const DEFAULT_MAX_SHOWN_CHARS: usize = 10_000;

static MAX_SHOWN_CHARS: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_SHOWN_CHARS);
static CUT_LOGGED: AtomicBool = AtomicBool::new(false);

/// The most characters [`shown`] keeps in this process (`--max-shown-chars`).
pub fn max_shown_chars() -> usize {
    MAX_SHOWN_CHARS.load(Ordering::Relaxed)
}

/// Sets this process's [`max_shown_chars`] (`vakra eval`, `vakra serve --episodes` at startup).
pub fn set_max_shown_chars(chars: usize) {
    MAX_SHOWN_CHARS.store(chars, Ordering::Relaxed);
}

/// `text` as a report shows it: cut after [`max_shown_chars`] characters, saying how many more
/// there were. The first cut of a process is logged.
pub fn shown(text: &str) -> String {
    let limit = max_shown_chars();
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((end, _)) => {
            let more = text[end..].chars().count();
            if !CUT_LOGGED.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    limit,
                    "a text longer than the limit is shown cut (--max-shown-chars; judged \
                     whole); further cuts are not logged"
                );
            }
            format!("{}… ({more} more characters not shown)", &text[..end])
        }
    }
}

/// A value (a call's arguments, a tool's response) as a report shows it: as it is, or, when its
/// JSON is longer than [`max_shown_chars`], that JSON cut by [`shown`].
pub fn shown_json(value: &serde_json::Value) -> serde_json::Value {
    let text = value.to_string();
    if text.len() <= max_shown_chars() {
        return value.clone();
    }
    serde_json::Value::String(shown(&text))
}

/// One scored sample (the ground truth's last turn).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SampleReport {
    /// The sample's place among all ground-truth samples (capability folders, domain files and
    /// records in order, whatever the shard): the order of `samples`, and of a merged report.
    pub position: usize,
    pub uuid: String,
    pub domain: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<i64>,
    /// 1.0 or 0.0.
    pub score: f64,
    /// 2 for capability-4 multi-source samples, else 1.
    pub weight: u32,
    pub hops: usize,
    pub gt_steps: usize,
    pub pred_steps: usize,
    pub extra_steps: usize,
    pub judges: Judges,
    /// The judge whose verdict set the score; absent when no judge ran (no prediction, no
    /// matching turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    /// The first stage that went wrong, for failed samples: `no_prediction`, `turn_mismatch`,
    /// `policy`, `tool_selection`, `missing_arguments`, `hallucinated_arguments`,
    /// `argument_values`, `final_answer`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_stage: Option<String>,
    /// The ground truth's question of the scored turn.
    #[serde(default)]
    pub query: String,
    pub pred_answer: String,
    pub gt_answer: String,
    /// Replay trouble and record problems of this sample, one line each.
    pub problems: Vec<String>,
    /// This sample's replay counts (their sum is the report's `replay`).
    pub replay: ReplaySummary,
    /// The scored turn's calls of both sides, when they were replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<Calls>,
    /// The scored turn's replayed responses, with `--include-responses` (or `--html`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<Responses>,
    /// The prediction's trial, when its record has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial: Option<u32>,
}

/// The scored turn's calls as replayed (legacy names translated, capability 1's `get_data`
/// included, arguments as given), position by position with `responses`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Calls {
    pub ground_truth: Vec<CallReport>,
    pub prediction: Vec<CallReport>,
}

/// One tool call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallReport {
    pub name: String,
    pub arguments: serde_json::Value,
}

/// The tool responses the exact match compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Responses {
    pub ground_truth: Vec<serde_json::Value>,
    pub prediction: Vec<serde_json::Value>,
}

/// Each judge's verdict; `None` where the waterfall did not reach it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Judges {
    pub policy: Option<Verdict>,
    pub exact_match: Option<Verdict>,
    /// The LLM correctness judge, or the deterministic answer match when no LLM is set.
    pub answer: Option<Verdict>,
    pub groundedness: Option<Verdict>,
}

/// The judge that decided a sample, and how it judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecidedBy {
    /// `policy`, `answer` (correctness) or `groundedness`.
    pub judge: String,
    /// `rule` (the policy judge), `llm` or `deterministic`.
    pub method: String,
}

/// How long the run took.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timing {
    pub seconds: f64,
    pub samples: usize,
    pub samples_per_minute: f64,
}

impl Timing {
    pub fn new(seconds: f64, samples: usize) -> Self {
        Self {
            seconds,
            samples,
            samples_per_minute: if seconds > 0.0 {
                samples as f64 * 60.0 / seconds
            } else {
                0.0
            },
        }
    }
}

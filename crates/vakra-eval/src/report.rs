//! The evaluation report: what `vakra eval --report` writes, and what the Markdown and HTML
//! renderers read. Its schema is documented in docs/evaluator.md; keep the two in step.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::judges::Verdict;
use crate::records::Problem;

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub vakra_version: String,
    pub settings: Settings,
    /// Mean of the four capability scores (percent); capabilities not evaluated count as 0, as
    /// on the published leaderboard.
    pub leaderboard_score: f64,
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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
#[derive(Debug, Clone, Serialize)]
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
}

/// One capability's results.
#[derive(Debug, Clone, Serialize)]
pub struct CapabilityReport {
    /// The data folder's name, `capability_<n>_<name>`.
    pub name: String,
    /// Percent: 100 × correct / samples; for capability 4 multi-source samples weigh double.
    pub score: f64,
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
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_source: BTreeMap<String, Breakdown>,
    /// Failed samples counted by the first stage that went wrong.
    pub errors: BTreeMap<String, usize>,
    pub samples: Vec<SampleReport>,
}

/// Counts for one slice of samples.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Breakdown {
    pub n_samples: usize,
    pub n_correct: usize,
    /// Percent.
    pub score: f64,
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

/// One scored sample (the ground truth's last turn).
#[derive(Debug, Clone, Serialize)]
pub struct SampleReport {
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    /// The first stage that went wrong, for failed samples: `no_prediction`, `turn_mismatch`,
    /// `policy`, `tool_selection`, `missing_arguments`, `hallucinated_arguments`,
    /// `argument_values`, `final_answer`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_stage: Option<String>,
    /// The ground truth's question of the scored turn.
    pub query: String,
    pub pred_answer: String,
    pub gt_answer: String,
    /// Replay trouble and record problems of this sample, one line each.
    pub problems: Vec<String>,
    /// This sample's replay counts (their sum is the report's `replay`).
    pub replay: ReplaySummary,
    /// The scored turn's calls of both sides, when they were replayed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<Calls>,
    /// The scored turn's replayed responses, with `--include-responses` (or `--html`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<Responses>,
}

/// The scored turn's calls as replayed (legacy names translated, capability 1's `get_data`
/// included, arguments as given), position by position with `responses`.
#[derive(Debug, Clone, Serialize)]
pub struct Calls {
    pub ground_truth: Vec<CallReport>,
    pub prediction: Vec<CallReport>,
}

/// One tool call.
#[derive(Debug, Clone, Serialize)]
pub struct CallReport {
    pub name: String,
    pub arguments: serde_json::Value,
}

/// The tool responses the exact match compared.
#[derive(Debug, Clone, Serialize)]
pub struct Responses {
    pub ground_truth: Vec<serde_json::Value>,
    pub prediction: Vec<serde_json::Value>,
}

/// Each judge's verdict; `None` where the waterfall did not reach it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Judges {
    pub policy: Option<Verdict>,
    pub exact_match: Option<Verdict>,
    /// The LLM correctness judge, or the deterministic answer match when no LLM is set.
    pub answer: Option<Verdict>,
    pub groundedness: Option<Verdict>,
}

/// The judge that decided a sample, and how it judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecidedBy {
    /// `policy`, `answer` (correctness) or `groundedness`.
    pub judge: String,
    /// `rule` (the policy judge), `llm` or `deterministic`.
    pub method: String,
}

/// How long the run took.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    pub seconds: f64,
    pub samples: usize,
    pub samples_per_minute: f64,
}

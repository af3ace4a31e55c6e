//! One evaluation run: find the split's samples, pair each with its predictions (one per
//! trial, duplicates reported), judge them with bounded concurrency ([`crate::judging`]) and
//! aggregate the scores and totals.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::comparability::Comparability;
use crate::judging::{Judging, Sample, groundedness_mode, judge_sample};
use crate::records::{Capped, Problem, Record, max_listed, read_records_with};
use crate::report::{
    self, CapabilityReport, ReplaySummary, Report, SampleReport, Settings, Timing,
};
use crate::shard::Shard;
use crate::trials::{Latency, Tokens};
use vakra_records::{CapabilityFolder, Side, Split};

/// The default of the most trials of one sample that are scored (`EvalConfig::max_trials`; a
/// prediction file could otherwise make one sample cost as many judgements as it has records).
pub const DEFAULT_MAX_TRIALS: usize = 1_000;

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
    /// How each sample is replayed and judged.
    pub judging: Judging,
    pub jobs: usize,
    pub progress: bool,
    /// Prices per million input and output tokens, for the cost of runs whose records carry
    /// token counts.
    pub prices: Option<(f64, f64)>,
    /// Evaluate only this shard's samples (and report only its missing and extra predictions).
    pub shard: Option<Shard>,
    /// The most trials of one sample that are scored (`--max-trials`); further trials are
    /// problems of the report.
    pub max_trials: usize,
}

/// The samples of a run paired with their predictions, and what was found on the way.
pub struct Plan {
    /// Every sample (once per trial of its predictions) to judge, in split order.
    pub samples: Vec<Sample>,
    /// Per capability: the sample count, missing and extra predictions, tokens and latency.
    pub capabilities: BTreeMap<u8, CapabilityReport>,
    pub problems: Vec<Problem>,
}

/// One judged sample: its place in the plan, its capability, its report and the judges' errors.
type Judged = (usize, u8, SampleReport, Vec<String>);

/// Runs the evaluation: [`plan`], judge every sample ([`judge_all`]), then the report.
pub async fn run(config: EvalConfig) -> Report {
    let started = Instant::now();
    let config = Arc::new(config);
    let Plan {
        samples,
        capabilities,
        mut problems,
    } = plan(&config);
    let (results, stopped) = judge_all(&config, samples).await;
    problems.extend(stopped);
    assemble(&config, capabilities, problems, results, started)
}

/// Finds the split's samples (of the configured capabilities, domains and shard) and pairs
/// each with its predictions, one sample per trial.
pub fn plan(config: &EvalConfig) -> Plan {
    let mut plan = Plan {
        samples: Vec::new(),
        capabilities: BTreeMap::new(),
        problems: Vec::new(),
    };
    let mut position = 0;
    for folder in capability_dirs(&config.ground_truth, &config.capabilities) {
        let report = plan_capability(config, &folder, &mut position, &mut plan);
        plan.capabilities.insert(folder.capability, report);
    }
    plan
}

/// One capability folder's samples and predictions, added to `plan`; its report's counts.
fn plan_capability(
    config: &EvalConfig,
    folder: &CapabilityFolder,
    position: &mut usize,
    plan: &mut Plan,
) -> CapabilityReport {
    let in_shard = |uuid: &str| config.shard.is_none_or(|shard| shard.contains(uuid));
    let (capability, name) = (folder.capability, folder.name.clone());
    let pred_dir = Split::new(&config.predictions).predictions_for(folder);
    let mut missing = Vec::new();
    let mut extra = Vec::new();
    let mut n_gt = 0;
    let mut tokens: Option<Tokens> = None;
    let mut latency: Option<Latency> = None;
    for (domain, _) in folder.domain_files(Side::GroundTruth) {
        if !config.domains.is_empty() && !config.domains.contains(&domain) {
            continue;
        }
        let truth = folder.ground_truth(&domain);
        plan.problems.extend(truth.problems);
        let pred_path = pred_dir
            .as_ref()
            .map(|d| d.file(Side::Predictions, &domain));
        // uuid → trial → record.
        let mut preds: HashMap<String, BTreeMap<u32, Record>> = HashMap::new();
        match pred_path.filter(|p| p.exists()) {
            Some(path) => {
                let gt_uuids: HashSet<&str> =
                    truth.records.iter().map(|gt| gt.uuid.as_str()).collect();
                let mut file_problems = Capped::new(max_listed());
                let mut unknown = Capped::new(max_listed());
                let mut listed = HashSet::new();
                let mut unscored = HashSet::new();
                let read_problems = read_records_with(&path, |record| {
                    if let Some(counted) = record.tokens {
                        tokens.get_or_insert_default().add(counted);
                    }
                    if let Some(seconds) = record.duration_s {
                        latency.get_or_insert_default().add(Latency::of(seconds));
                    }
                    // Only the ground truth's samples are kept; the others are named.
                    if !gt_uuids.contains(record.uuid.as_str()) {
                        if in_shard(&record.uuid) && !listed.contains(&record.uuid) {
                            listed.insert(record.uuid.clone());
                            unknown.push(record.uuid);
                        }
                        return;
                    }
                    let trials = preds.entry(record.uuid.clone()).or_default();
                    let trial = record.trial.unwrap_or(0);
                    if trials.len() >= config.max_trials && !trials.contains_key(&trial) {
                        if unscored.insert(record.uuid.clone()) {
                            tracing::warn!(
                                uuid = %record.uuid,
                                limit = config.max_trials,
                                "a sample has more trials than are scored (--max-trials)"
                            );
                        }
                        file_problems.push(Problem {
                            file: path.display().to_string(),
                            uuid: Some(record.uuid.clone()),
                            message: format!(
                                "more than {} trials of one sample: trial {trial} is not scored",
                                config.max_trials
                            ),
                        });
                    } else if trials.insert(trial, record).is_some() {
                        file_problems.push(Problem {
                            file: path.display().to_string(),
                            uuid: None,
                            message: "duplicate uuid: the last record is used".into(),
                        });
                    }
                });
                plan.problems.extend(read_problems);
                plan.problems.extend(file_problems.finish(|more| Problem {
                    file: path.display().to_string(),
                    uuid: None,
                    message: format!("{more} more problems of this kind, not listed"),
                }));
                if unknown.dropped > 0 {
                    plan.problems.push(Problem {
                        file: path.display().to_string(),
                        uuid: None,
                        message: format!(
                            "{} more records of samples not in the ground truth, not listed in extra_prediction_uuids",
                            unknown.dropped
                        ),
                    });
                }
                extra.extend(unknown.items);
            }
            None => plan.problems.push(Problem {
                file: pred_dir
                    .as_ref()
                    .map(|d| d.file(Side::Predictions, &domain).display().to_string())
                    .unwrap_or_else(|| config.predictions.display().to_string()),
                uuid: None,
                message: format!("no prediction file for capability {capability}, domain {domain}"),
            }),
        }
        plan.problems.extend(truth.duplicates);
        for gt in truth.records {
            *position += 1;
            if !in_shard(&gt.uuid) {
                preds.remove(&gt.uuid);
                continue;
            }
            n_gt += 1;
            let trials = preds.remove(&gt.uuid).unwrap_or_default();
            if trials.is_empty() {
                missing.push(gt.uuid.clone());
                plan.samples.push(Sample {
                    position: *position - 1,
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
                plan.samples.push(Sample {
                    position: *position - 1,
                    capability,
                    domain: domain.clone(),
                    gt: gt.clone(),
                    trial: pred.trial,
                    pred: Some(pred),
                    problems: Vec::new(),
                });
            }
        }
    }
    missing.sort();
    extra.sort();
    let mut report = CapabilityReport::new(name, n_gt, missing, extra);
    report.cost_usd = config.prices.zip(tokens).map(|(p, t)| t.cost(p));
    report.tokens = tokens;
    report.latency = latency;
    report
}

/// Judges the samples with at most `config.jobs` at a time; the results in plan order, and a
/// problem for each sample whose evaluation stopped.
pub async fn judge_all(
    config: &Arc<EvalConfig>,
    samples: Vec<Sample>,
) -> (Vec<Judged>, Vec<Problem>) {
    let mut stopped = Vec::new();
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
        let config = Arc::clone(config);
        let limit = Arc::clone(&limit);
        let progress = progress.clone();
        tasks.spawn(async move {
            let _permit = limit.acquire_owned().await;
            let capability = sample.capability;
            let (report, judge_errors) = judge_sample(&config.judging, sample).await;
            progress.inc(1);
            (index, capability, report, judge_errors)
        });
    }
    let mut results = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(result) => results.push(result),
            Err(e) => stopped.push(Problem {
                file: String::new(),
                uuid: None,
                message: format!("a sample's evaluation stopped: {e}"),
            }),
        }
    }
    progress.finish_and_clear();
    results.sort_by_key(|r| r.0);
    (results, stopped)
}

/// The report of a judged run.
fn assemble(
    config: &EvalConfig,
    mut capabilities: BTreeMap<u8, CapabilityReport>,
    problems: Vec<Problem>,
    results: Vec<Judged>,
    started: Instant,
) -> Report {
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
    let leaderboard_interval = report::leaderboard_interval(capabilities.values());
    let tokens = Tokens::total(capabilities.values().filter_map(|c| c.tokens));
    let latency = Latency::total(capabilities.values().filter_map(|c| c.latency));
    let capability_names: Vec<String> = capabilities.keys().map(u8::to_string).collect();
    let mut warnings = report::warnings(
        config.judging.llm.is_some(),
        &judge_errors,
        &replay_summary,
        &capability_names,
    );
    let comparability = Comparability::of_run(&config.predictions);
    if let Some(record) = comparability.as_ref().filter(|c| !c.leaderboard_comparable) {
        warnings.push(format!("The run is {}.", record.summary()));
    }
    let seconds = started.elapsed().as_secs_f64();
    Report {
        vakra_version: env!("CARGO_PKG_VERSION").into(),
        comparability,
        settings: Settings {
            ground_truth: config.ground_truth.display().to_string(),
            predictions: config.predictions.display().to_string(),
            replay: config.judging.connector.describe(),
            sessions: "per-sample".into(),
            exact_match: config.judging.exact_mode,
            policy_judge: config.judging.policy_judge,
            answer_judge: if config.judging.llm.is_some() {
                "llm"
            } else {
                "deterministic"
            }
            .into(),
            groundedness_judge: groundedness_mode(&config.judging).as_str().into(),
            llm_model: config
                .judging
                .llm
                .as_ref()
                .map(|c| c.config().model.clone()),
            llm_base_url: config
                .judging
                .llm
                .as_ref()
                .map(|c| c.config().base_url.clone()),
            prompts: config.judging.prompts.source.clone(),
            fix_quirks: config.judging.fix_quirks,
            jobs: config.jobs,
            prices_per_million_tokens: config.prices.map(|(i, o)| [i, o]),
            shard: config.shard.map(|shard| shard.to_string()),
        },
        leaderboard_score,
        leaderboard_interval,
        intervals: Default::default(),
        latency,
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

/// The capability folders of a split with ground truth, filtered; or the folder itself when it
/// is one.
fn capability_dirs(root: &Path, wanted: &[u8]) -> Vec<CapabilityFolder> {
    let split = Split::new(root);
    let found = split.capabilities(Side::GroundTruth, wanted);
    if found.is_empty() {
        return split
            .as_capability_folder(Side::GroundTruth, wanted)
            .into_iter()
            .collect();
    }
    found
}

//! The whole run: the samples still to do (every trial of every sample not finished in the
//! output folder), `jobs` of them at once, each written as it finishes; a progress bar; the
//! summary and `run.json` at the end.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use tokio::task::JoinSet;
use vakra_chat::Usage;

use crate::RunError;
use crate::episode::{Finished, Setup, run_sample};
use crate::sample::{Sample, SkippedRecord, read_split};
use crate::store::{CapabilityTotals, Store};

/// Which samples, where the output goes, and how many at once.
pub struct RunPlan {
    pub split: PathBuf,
    pub out: PathBuf,
    /// Only these capabilities and domains (all when empty).
    pub capabilities: Vec<u8>,
    pub domains: Vec<String>,
    /// The first N samples of each domain file.
    pub max_samples_per_domain: Option<usize>,
    /// Only this shard's samples (`vakra eval --shard`'s rule).
    pub shard: Option<vakra_records::Shard>,
    pub trials: u32,
    pub jobs: usize,
    /// Run samples whose earlier record says `error` again.
    pub retry_errors: bool,
    /// Prices per million input and output tokens, for the summary's cost.
    pub prices: Option<(f64, f64)>,
    pub progress: bool,
}

/// What a run did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunSummary {
    /// Samples × trials in the plan.
    pub planned: usize,
    /// Of those, finished in an earlier run and not run again.
    pub already_done: usize,
    pub ran: usize,
    pub succeeded: usize,
    pub failed: usize,
    /// Records the input could not run (no uuid, …).
    pub skipped_records: Vec<String>,
    pub usage: Usage,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    pub wall_s: f64,
    /// The runner's own time per model step (model and tools excluded), median and 99th
    /// percentile, in microseconds.
    pub runner_step_p50_us: f64,
    pub runner_step_p99_us: f64,
    /// Over the whole output folder (earlier runs included), per capability folder and
    /// domain.
    pub totals: std::collections::BTreeMap<String, CapabilityTotals>,
    pub interrupted: bool,
}

/// Runs the plan. Ctrl-C stops it: samples in flight are dropped (they run again next time),
/// everything finished is already written.
pub async fn run(plan: RunPlan, setup: Setup) -> Result<RunSummary, RunError> {
    let started = Instant::now();
    let (mut samples, skipped) = read_split(&plan.split, &plan.capabilities, &plan.domains)?;
    if let Some(limit) = plan.max_samples_per_domain {
        samples.retain(|s| s.position < limit);
    }
    if let Some(shard) = plan.shard {
        samples.retain(|s| shard.contains(&s.uuid));
    }
    let positions = samples
        .iter()
        .map(|s| {
            (
                (s.capability_dir.clone(), s.domain.clone(), s.uuid.clone()),
                s.position,
            )
        })
        .collect::<HashMap<_, _>>();
    let (mut store, finished) = Store::open(&plan.out, positions, plan.retry_errors)?;
    let mut todo: Vec<(Arc<Sample>, u32)> = Vec::new();
    let mut already_done = 0;
    for sample in samples.into_iter().map(Arc::new) {
        for trial in 0..plan.trials {
            let key = (
                sample.capability_dir.clone(),
                sample.domain.clone(),
                sample.uuid.clone(),
                trial,
            );
            if finished.contains(&key) {
                already_done += 1;
            } else {
                todo.push((sample.clone(), trial));
            }
        }
    }
    let planned = todo.len() + already_done;
    let bar = progress_bar(plan.progress, todo.len());
    let setup = Arc::new(setup);
    let permits = Arc::new(tokio::sync::Semaphore::new(plan.jobs.max(1)));
    let mut tasks = JoinSet::new();
    for (sample, trial) in todo {
        let (setup, permits) = (setup.clone(), permits.clone());
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await;
            run_sample(setup, sample, trial).await
        });
    }
    let mut summary = RunSummary {
        planned,
        already_done,
        ran: 0,
        succeeded: 0,
        failed: 0,
        skipped_records: skipped.iter().map(describe_skipped).collect(),
        usage: Usage::default(),
        cost_usd: None,
        wall_s: 0.0,
        runner_step_p50_us: 0.0,
        runner_step_p99_us: 0.0,
        totals: Default::default(),
        interrupted: false,
    };
    let mut step_times = Vec::new();
    let interrupt = tokio::signal::ctrl_c();
    tokio::pin!(interrupt);
    loop {
        let joined = tokio::select! {
            joined = tasks.join_next() => joined,
            _ = &mut interrupt => {
                summary.interrupted = true;
                tasks.abort_all();
                break;
            }
        };
        let Some(joined) = joined else { break };
        let finished: Finished = match joined {
            Ok(finished) => finished,
            Err(e) => return Err(RunError::Internal(format!("a sample's task failed: {e}"))),
        };
        tokio::task::block_in_place(|| store.add(&finished))?;
        summary.ran += 1;
        if finished.succeeded {
            summary.succeeded += 1;
        } else {
            summary.failed += 1;
        }
        summary.usage += finished.usage;
        step_times.extend(finished.runner_us.iter().copied());
        bar.inc(1);
        bar.set_message(format!(
            "failed {} · tokens {} in / {} out",
            summary.failed, summary.usage.input_tokens, summary.usage.output_tokens
        ));
    }
    bar.finish_and_clear();
    summary.totals = store.totals();
    let all_usage = summary
        .totals
        .values()
        .fold(Usage::default(), |mut acc, t| {
            acc += t.all.usage;
            acc
        });
    summary.cost_usd = plan
        .prices
        .map(|(price_in, price_out)| cost(all_usage, price_in, price_out));
    step_times.sort_by(f64::total_cmp);
    summary.runner_step_p50_us = percentile(&step_times, 0.5);
    summary.runner_step_p99_us = percentile(&step_times, 0.99);
    summary.wall_s = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Dollars for `usage` at prices per million tokens.
pub fn cost(usage: Usage, price_in: f64, price_out: f64) -> f64 {
    (usage.input_tokens as f64 * price_in + usage.output_tokens as f64 * price_out) / 1e6
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn describe_skipped(skipped: &SkippedRecord) -> String {
    format!(
        "{} record {}: {}",
        skipped.file.display(),
        skipped.index,
        skipped.reason
    )
}

fn progress_bar(visible: bool, total: usize) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} samples · {msg} · ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

//! One report from the reports of a sharded run (`vakra eval --shard I/N`, one per shard): the
//! samples of all shards in their run order, scored and broken down by the same code as a whole
//! run, so the merged report equals the unsharded one. Only these may differ: `timing` (the
//! shards' seconds added up, so compute time rather than wall time), and `settings`'
//! `ground_truth`, `predictions`, `replay` and `jobs`, which are the first shard's.

use std::collections::{BTreeMap, HashSet};

use crate::records::Problem;
use crate::report::{self, CapabilityReport, ReplaySummary, Report, Timing};
use crate::trials::{Latency, Tokens};

/// Why shards' reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("no reports to merge")]
    Empty,
    #[error("report {0}: not the report of a shard (settings.shard is missing)")]
    NotSharded(usize),
    #[error("report {index}: settings.shard {shard:?} is not I/N")]
    BadShard { index: usize, shard: String },
    #[error("shard {shard} is given twice")]
    Duplicate { shard: String },
    #[error("the reports are shards of runs in {first} and {other} parts")]
    Counts { first: u64, other: u64 },
    #[error("shards {missing} of {count} are missing")]
    Missing { missing: String, count: u64 },
    #[error("shard {shard} was run with other settings than shard {first}: {field} differs")]
    Settings {
        shard: String,
        first: String,
        field: &'static str,
    },
    #[error("capability {capability} is {first:?} in one shard and {other:?} in another")]
    CapabilityName {
        capability: String,
        first: String,
        other: String,
    },
    #[error("capability {0:?} is not a capability number")]
    CapabilityKey(String),
}

/// Merges the reports of all N shards of one run, given in any order.
pub fn merge(reports: Vec<Report>) -> Result<Report, MergeError> {
    let shards = check_shards(&reports)?;
    let mut reports: Vec<(u64, Report)> = shards.into_iter().zip(reports).collect();
    reports.sort_by_key(|(index, _)| *index);
    let first = &reports[0].1;
    for (_, other) in &reports[1..] {
        same_settings(first, other)?;
    }

    let mut settings = first.settings.clone();
    settings.shard = None;
    let vakra_version = first.vakra_version.clone();
    let comparability = first.comparability.clone();
    let mut problems: Vec<Problem> = Vec::new();
    let mut seen_problems = HashSet::new();
    let mut replay = ReplaySummary::default();
    let (mut seconds, mut n_samples) = (0.0, 0);
    let mut capabilities: BTreeMap<String, CapabilityReport> = BTreeMap::new();
    let mut samples = Vec::new();
    for (_, shard) in reports {
        // Input problems are found by every shard (each reads every file); kept once, in order.
        for problem in shard.problems {
            let key = serde_json::to_string(&problem).unwrap_or_default();
            if seen_problems.insert(key) {
                problems.push(problem);
            }
        }
        replay.add(&shard.replay);
        seconds += shard.timing.seconds;
        n_samples += shard.timing.samples;
        for (key, mut part) in shard.capabilities {
            let number: u8 = key
                .parse()
                .map_err(|_| MergeError::CapabilityKey(key.clone()))?;
            samples.extend(
                std::mem::take(&mut part.samples)
                    .into_iter()
                    .map(|s| (number, s)),
            );
            match capabilities.get_mut(&key) {
                None => {
                    let mut whole = CapabilityReport::new(
                        part.name,
                        part.n_samples,
                        part.missing_prediction_uuids,
                        part.extra_prediction_uuids,
                    );
                    whole.tokens = part.tokens;
                    whole.latency = part.latency;
                    capabilities.insert(key, whole);
                }
                Some(whole) if whole.name != part.name => {
                    return Err(MergeError::CapabilityName {
                        capability: key,
                        first: whole.name.clone(),
                        other: part.name,
                    });
                }
                Some(whole) => {
                    if let Some(tokens) = part.tokens {
                        whole.tokens.get_or_insert_default().add(tokens);
                    }
                    if let Some(latency) = part.latency {
                        whole.latency.get_or_insert_default().add(latency);
                    }
                    whole.n_samples += part.n_samples;
                    whole.n_paired += part.n_paired;
                    whole
                        .missing_prediction_uuids
                        .extend(part.missing_prediction_uuids);
                    whole
                        .extra_prediction_uuids
                        .extend(part.extra_prediction_uuids);
                }
            }
        }
    }
    samples.sort_by_key(|(_, sample)| sample.position);
    let judge_errors: Vec<String> = samples
        .iter()
        .flat_map(|(_, sample)| &sample.problems)
        .filter_map(|line| {
            report::JUDGE_ERROR_PREFIXES
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))
                .map(str::to_owned)
        })
        .collect();
    for (number, sample) in samples {
        if let Some(whole) = capabilities.get_mut(&number.to_string()) {
            whole.add(number, sample);
        }
    }
    let prices = settings.prices_per_million_tokens.map(|[i, o]| (i, o));
    for whole in capabilities.values_mut() {
        whole.missing_prediction_uuids.sort();
        whole.extra_prediction_uuids.sort();
        whole.cost_usd = prices.zip(whole.tokens).map(|(p, t)| t.cost(p));
        whole.finish();
    }
    let tokens = Tokens::total(capabilities.values().filter_map(|c| c.tokens));
    let latency = Latency::total(capabilities.values().filter_map(|c| c.latency));
    let capability_names: Vec<String> = capabilities.keys().cloned().collect();
    let warnings = report::warnings(
        settings.answer_judge == "llm",
        &judge_errors,
        &replay,
        &capability_names,
    );
    Ok(Report {
        vakra_version,
        comparability,
        leaderboard_score: report::leaderboard_score(capabilities.values()),
        leaderboard_interval: report::leaderboard_interval(capabilities.values()),
        intervals: Default::default(),
        latency,
        cost_usd: prices.zip(tokens).map(|(p, t)| t.cost(p)),
        tokens,
        settings,
        capabilities,
        problems,
        warnings,
        replay,
        timing: Timing::new(seconds, n_samples),
    })
}

/// Each report's shard index, once every shard 0..N of one N is there exactly once.
fn check_shards(reports: &[Report]) -> Result<Vec<u64>, MergeError> {
    if reports.is_empty() {
        return Err(MergeError::Empty);
    }
    let mut shards = Vec::new();
    for (index, report) in reports.iter().enumerate() {
        let text = report
            .settings
            .shard
            .as_deref()
            .ok_or(MergeError::NotSharded(index + 1))?;
        let shard: vakra_records::Shard = text.parse().map_err(|_| MergeError::BadShard {
            index: index + 1,
            shard: text.to_owned(),
        })?;
        shards.push(shard);
    }
    let count = shards[0].count();
    let mut present = vec![false; count as usize];
    for shard in &shards {
        if shard.count() != count {
            return Err(MergeError::Counts {
                first: count,
                other: shard.count(),
            });
        }
        let slot = &mut present[shard.index() as usize];
        if *slot {
            return Err(MergeError::Duplicate {
                shard: shard.to_string(),
            });
        }
        *slot = true;
    }
    let missing: Vec<String> = (0..count)
        .filter(|&i| !present[i as usize])
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            missing: missing.join(", "),
            count,
        });
    }
    Ok(shards.iter().map(|s| s.index()).collect())
}

/// The settings that decide scores must be the same in every shard.
fn same_settings(first: &Report, other: &Report) -> Result<(), MergeError> {
    let (a, b) = (&first.settings, &other.settings);
    let field = if first.vakra_version != other.vakra_version {
        "vakra_version"
    } else if a.sessions != b.sessions {
        "sessions"
    } else if a.exact_match != b.exact_match {
        "exact_match"
    } else if a.policy_judge != b.policy_judge {
        "policy_judge"
    } else if a.answer_judge != b.answer_judge {
        "answer_judge"
    } else if a.llm_model != b.llm_model {
        "llm_model"
    } else if a.llm_base_url != b.llm_base_url {
        "llm_base_url"
    } else if a.prompts != b.prompts {
        "prompts"
    } else if a.fix_quirks != b.fix_quirks {
        "fix_quirks"
    } else {
        return Ok(());
    };
    Err(MergeError::Settings {
        shard: b.shard.clone().unwrap_or_default(),
        first: a.shard.clone().unwrap_or_default(),
        field,
    })
}

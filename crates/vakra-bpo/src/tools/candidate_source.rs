//! The seven core candidate-source tools: per-source metrics over the similar requisitions.

use serde_json::{Value, json};

use super::common::{lookup, not_found_with_suggestions, present, ratio, tally};
use super::{Call, Outcome};
use crate::data::{Flag, Group};
use crate::numeric::{days_between, format_1f, np_round1, round_to_int, trunc_to_int};

/// Runs `f` on a known requisition, or answers with suggestions.
fn with_group(call: &Call, f: impl FnOnce(&Group) -> Value) -> Outcome {
    let id = call.requisition_id();
    Outcome::Value(match lookup(call.data, id) {
        Some((_, group)) => f(group),
        None => not_found_with_suggestions(call.data, id),
    })
}

pub fn sla_per_source(call: &mut Call) -> Outcome {
    with_group(call, |group| {
        let counts = tally(call.data, &group.rows);
        let mut metrics: Vec<(&str, i64)> = present(call.data, &counts)
            .filter(|(_, t)| t.reviewed > 0)
            .map(|(name, t)| {
                (
                    name,
                    round_to_int(ratio(t.reviewed_sla_met, t.reviewed) * 100.0),
                )
            })
            .collect();
        metrics.sort_by_key(|m| m.1);
        json!({"metrics": metrics
            .into_iter()
            .map(|(name, pct)| json!({"source_name": name, "sla_percentage": pct}))
            .collect::<Vec<_>>()})
    })
}

pub fn total_hires_by_source(call: &mut Call) -> Outcome {
    let id = call.requisition_id().to_owned();
    with_group(call, |group| {
        let counts = tally(call.data, &group.rows);
        let mut metrics: Vec<(&str, u64)> = present(call.data, &counts)
            .filter(|(_, t)| t.hired > 0)
            .map(|(name, t)| (name, t.hired))
            .collect();
        metrics.sort_by_key(|m| std::cmp::Reverse(m.1));
        let total: u64 = counts.iter().map(|t| t.hired).sum();
        json!({
            "job_id": id,
            "metrics": metrics
                .into_iter()
                .map(|(name, n)| json!({"source_name": name, "total_hires": n}))
                .collect::<Vec<_>>(),
            "total_hires": total,
        })
    })
}

pub fn candidate_volume_by_source(call: &mut Call) -> Outcome {
    let id = call.requisition_id().to_owned();
    let filter: Option<Vec<String>> = call
        .args
        .list(1)
        .filter(|l| !l.is_empty())
        .map(<[_]>::to_vec);
    with_group(call, |group| {
        let counts = tally(call.data, &group.rows);
        let total = group.rows.len() as u64;
        let mut metrics: Vec<(&str, u64, i64)> = present(call.data, &counts)
            .map(|(name, t)| (name, t.rows, round_to_int(ratio(t.rows, total) * 100.0)))
            .filter(|(name, _, _)| filter.as_ref().is_none_or(|f| f.iter().any(|s| s == name)))
            .collect();
        metrics.sort_by_key(|m| std::cmp::Reverse(m.1));
        json!({
            "job_id": id,
            "total_candidate_volume": total,
            "metrics": metrics
                .into_iter()
                .map(|(name, n, pct)| json!({
                    "source_name": name,
                    "candidate_volume": n,
                    "percentage": pct,
                }))
                .collect::<Vec<_>>(),
            "heading": format!(
                "For requisitions similar to {id}, there were {total} candidates over the past \
                 three years. Here's how many candidates came from each source (with percentages \
                 from the total number):"
            ),
        })
    })
}

pub fn funnel_conversion_by_source(call: &mut Call) -> Outcome {
    let id = call.requisition_id().to_owned();
    with_group(call, |group| {
        let counts = tally(call.data, &group.rows);
        let pct = |a, b| np_round1(ratio(a, b) * 100.0);
        json!({
            "job_id": id,
            "metrics": present(call.data, &counts)
                .map(|(name, t)| json!({
                    "source_name": name,
                    "first_round_review_percentage": pct(t.reviewed, t.rows),
                    "interview_rate": pct(t.interviewed, t.rows),
                    "offer_acceptance_rate": pct(t.offer_extended, t.rows),
                }))
                .collect::<Vec<_>>(),
        })
    })
}

pub fn metadata_and_timeframe(call: &mut Call) -> Outcome {
    let id = call.requisition_id().to_owned();
    with_group(call, |group| {
        json!({
            "job_id": id,
            "time_frame_start": "2023-10-09",
            "time_frame_end": "2025-03-15",
            "data_last_updated": "2025-04-29",
            "total_requisitions_analysed": group.requisitions,
        })
    })
}

pub fn definitions_and_methodology(call: &mut Call) -> Outcome {
    let id = call.requisition_id().to_owned();
    let all_requisitions = call.data.requisitions.len();
    with_group(call, |group| {
        let applied = group
            .rows
            .iter()
            .filter_map(|&r| call.data.rows.applied_at[r as usize]);
        let span = applied
            .clone()
            .min()
            .zip(applied.max())
            .map(|(min, max)| days_between(max, min) as f64 / 365.25);
        let years = span.map_or_else(|| "nan".to_owned(), format_1f);
        json!({
            "job_id": id,
            "definitions": {
                "sla": "Percentage of candidates reviewed within the defined SLA window (e.g., 48 hours)",
                "time_to_fill": "Average time from job posting to accepted offer",
                "success_rate": "Ratio of candidates who accepted offers out of those interviewed",
            },
            "calculation_notes": format!(
                "Metrics are computed from {all_requisitions} requisitions over the last {years} \
                 years. Funnel stats are based on system timestamps and recruiter actions in ATS."
            ),
            "top_metrics_considered": [
                "SLA %",
                "First round review %",
                "Offer acceptance rate",
                "Candidate volume",
                "Total hires",
            ],
        })
    })
}

pub fn source_recommendation_summary(call: &mut Call) -> Outcome {
    with_group(call, |group| {
        let data = call.data;
        let counts = tally(data, &group.rows);
        let requisitions = group.requisitions as u64;
        let mut filled_requisitions = vec![Vec::new(); data.sources.len()];
        for &row in &group.rows {
            if data.rows.flag(row, Flag::Hired) {
                filled_requisitions[data.rows.source[row as usize] as usize]
                    .push(data.rows.requisition[row as usize]);
            }
        }
        let metrics: Vec<Value> = counts
            .iter()
            .enumerate()
            .filter(|(_, t)| t.rows > 0)
            .map(|(source, t)| {
                let filled = &mut filled_requisitions[source];
                filled.sort_unstable();
                filled.dedup();
                let offer_acceptance = if t.offer_extended > 0 {
                    round_to_int(ratio(t.offer_accepted, t.offer_extended) * 100.0)
                } else {
                    0
                };
                json!({
                    "source_name": data.sources[source],
                    "jobs_filled_percentage":
                        trunc_to_int(ratio(filled.len() as u64, requisitions) * 100.0),
                    "first_round_review_percentage": trunc_to_int(ratio(t.reviewed, t.rows) * 100.0),
                    "offer_acceptance_rate": offer_acceptance,
                    "total_hires": t.hired,
                })
            })
            .collect();
        json!({"total_requisitions": requisitions, "metrics": metrics})
    })
}

//! The six core skills tools: skill frequency, and a skill's association with SLA and fill rate
//! over the similar requisitions.

use serde_json::{Value, json};

use super::common::{
    lookup, not_found_with_suggestions, ratio, skill_counts, sla_percentage, sla_split,
};
use super::{Call, Outcome};
use crate::data::{BpoData, Flag, Group};
use crate::numeric::{days_between, py_round1, trunc_to_int};

pub fn skill_analysis(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    let Some((_, group)) = lookup(data, id) else {
        return Outcome::Value(not_found_with_suggestions(data, id));
    };
    let top: Vec<(u32, u64)> = skill_counts(data, &group.rows)
        .into_iter()
        .take(10)
        .collect();
    // One pass over the reviewed rows: (sla_met, rows) overall and among those listing each
    // top skill; the rows without a skill are the difference.
    let mut all = (0u64, 0u64);
    let mut with = vec![(0u64, 0u64); top.len()];
    for &row in &group.rows {
        if !data.rows.flag(row, Flag::Reviewed) {
            continue;
        }
        let met = u64::from(data.rows.flag(row, Flag::SlaMet));
        all = (all.0 + met, all.1 + 1);
        for (side, &(skill, _)) in with.iter_mut().zip(&top) {
            if data.rows.has_skill(row, Some(skill)) {
                *side = (side.0 + met, side.1 + 1);
            }
        }
    }
    let mean = |(met, n): (u64, u64)| if n == 0 { 0.0 } else { ratio(met, n) };
    let skills: Vec<Value> = top
        .iter()
        .zip(&with)
        .map(|(&(skill, count), &with)| {
            let without = (all.0 - with.0, all.1 - with.1);
            let diff = mean(with) - mean(without);
            let correlation = if diff < -0.10 {
                "highly negative impact on SLA"
            } else if diff < 0.0 {
                "slightly negative impact on SLA"
            } else if diff > 0.10 {
                "highly positive impact on SLA"
            } else if diff > 0.0 {
                "slightly positive impact on SLA"
            } else {
                "no impact on SLA"
            };
            json!({
                "name": data.skills[skill as usize],
                "skill_occurrence": count,
                "correlation": correlation,
            })
        })
        .collect();
    Outcome::Value(json!({
        "historical_jobs": group.requisitions,
        "input_skills": [],
        "historical_skills_with_analysis": skills,
    }))
}

/// Fill-rate metrics of one side of the requisitions split by a skill.
struct FillMetrics {
    fill_rate: f64,
    time_to_fill: i64,
    pool: usize,
}

impl FillMetrics {
    fn to_json(&self) -> Value {
        json!({
            "fill_rate_percentage": self.fill_rate,
            "time_to_fill_days": self.time_to_fill,
            "candidate_pool_size": self.pool,
        })
    }
}

/// The message of the `ValueError` `int(nan)` raises, when hired rows have no dates.
const NAN_TO_INT: &str = "cannot convert float NaN to integer";

/// Splits the group's requisitions into those where some candidate lists the skill and the
/// rest, and measures each side.
fn fill_split(
    data: &BpoData,
    group: &Group,
    skill: Option<u32>,
) -> Result<[FillMetrics; 2], &'static str> {
    let mut has_skill = vec![false; data.requisitions.len()];
    for &row in &group.rows {
        if data.rows.has_skill(row, skill) {
            has_skill[data.rows.requisition[row as usize] as usize] = true;
        }
    }
    let side = |with: bool| -> Result<FillMetrics, &'static str> {
        let rows: Vec<u32> = group
            .rows
            .iter()
            .copied()
            .filter(|&r| has_skill[data.rows.requisition[r as usize] as usize] == with)
            .collect();
        let mut requisitions: Vec<u32> = rows
            .iter()
            .map(|&r| data.rows.requisition[r as usize])
            .collect();
        requisitions.sort_unstable();
        requisitions.dedup();
        if requisitions.is_empty() {
            return Ok(FillMetrics {
                fill_rate: 0.0,
                time_to_fill: 0,
                pool: 0,
            });
        }
        let hired: Vec<u32> = rows
            .iter()
            .copied()
            .filter(|&r| data.rows.flag(r, Flag::Hired))
            .collect();
        let mut filled: Vec<u32> = hired
            .iter()
            .map(|&r| data.rows.requisition[r as usize])
            .collect();
        filled.sort_unstable();
        filled.dedup();
        let days: Vec<i64> = hired
            .iter()
            .filter_map(|&r| {
                let r = r as usize;
                Some(days_between(
                    data.rows.hire_date[r]?,
                    data.rows.applied_at[r]?,
                ))
            })
            .collect();
        let time_to_fill = match (hired.is_empty(), days.is_empty()) {
            (true, _) => 0,
            (false, true) => return Err(NAN_TO_INT),
            (false, false) => {
                trunc_to_int(days.iter().map(|&d| d as f64).sum::<f64>() / days.len() as f64)
            }
        };
        Ok(FillMetrics {
            fill_rate: py_round1(ratio(filled.len() as u64, requisitions.len() as u64) * 100.0),
            time_to_fill,
            pool: rows.len(),
        })
    };
    Ok([side(true)?, side(false)?])
}

fn raise(message: &str) -> Outcome {
    Outcome::Raise(message.to_owned())
}

pub fn skill_impact_fill_rate(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    let skill_name = call.args.str(1).unwrap_or_default();
    let Some((_, group)) = lookup(data, id) else {
        return Outcome::Value(not_found_with_suggestions(data, id));
    };
    match fill_split(data, group, data.skill(skill_name)) {
        Ok([impact, baseline]) => Outcome::Value(json!({
            "skill_name": skill_name,
            "impact": impact.to_json(),
            "compared_to_baseline": baseline.to_json(),
        })),
        Err(message) => raise(message),
    }
}

pub fn skill_impact_sla(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    let skill_name = call.args.str(1).unwrap_or_default();
    let Some((_, group)) = lookup(data, id) else {
        return Outcome::Value(not_found_with_suggestions(data, id));
    };
    let [with, without] = sla_split(data, &group.rows, data.skill(skill_name));
    let (with, without) = (sla_percentage(with), sla_percentage(without));
    Outcome::Value(json!({
        "requisition_id": id,
        "skill_name": skill_name,
        "sla_achievement_with_skill": with,
        "sla_achievement_without_skill": without,
        "delta": with - without,
    }))
}

pub fn skill_relevance_justification(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    let skill_name = call.args.str(1).unwrap_or_default();
    let Some((_, group)) = lookup(data, id) else {
        return Outcome::Value(not_found_with_suggestions(data, id));
    };
    let skill = data.skill(skill_name);
    let [with, without] = sla_split(data, &group.rows, skill);
    let (with, without) = (sla_percentage(with), sla_percentage(without));
    let delta = with - without;
    let [impact, baseline] = match fill_split(data, group, skill) {
        Ok(sides) => sides,
        Err(message) => return raise(message),
    };
    let is_relevant = delta > 5 || impact.fill_rate > baseline.fill_rate * 1.2;
    Outcome::Value(json!({
        "requisition_id": id,
        "skill_name": skill_name,
        "is_relevant": is_relevant,
        "justification": {
            "requisition_id": id,
            "skill_name": skill_name,
            "sla_achievement_with_skill": with,
            "sla_achievement_without_skill": without,
            "delta": delta,
            "impact": impact.to_json(),
            "compared_to_baseline": baseline.to_json(),
        },
    }))
}

pub fn successful_posting_criteria(_: &mut Call) -> Outcome {
    Outcome::Value(json!({
        "criteria": {
            "time_to_fill_threshold_days": 90,
            "offer_acceptance_rate_min": 50,
            "sla_compliance_min": 80,
            "candidate_quality_rating_avg": 3.5,
        },
        "justification": "Based on historical performance benchmarks and industry standards",
    }))
}

pub fn data_sources_used(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    if data.requisition(id).is_none() {
        return Outcome::Value(not_found_with_suggestions(data, id));
    }
    Outcome::Value(json!({
        "requisition_id": id,
        "datasets_used": [
            "Historical hiring success data",
            "Requisition skill tagging",
            "Funnel conversion metrics",
            "Candidate quality feedback",
        ],
        "models_involved": [
            "Skill relevance classifier",
            "SLA impact regression model",
            "Funnel conversion recommender",
        ],
    }))
}

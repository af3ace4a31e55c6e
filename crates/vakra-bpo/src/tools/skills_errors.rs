//! The error-prone skills tools: each answers in a deliberately awkward shape (a plain string,
//! an untyped dict, 15 levels of nesting, a mismatched parameter name).

use serde_json::{Map, Value, json};

use super::common::{lookup, not_found, ratio, skill_counts, sla_percentage, sla_split};
use super::{Call, Outcome};
use crate::numeric::{py_round1, trunc_to_int};
use crate::python_json_dumps;

pub fn skill_summary(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    let Some((_, group)) = lookup(data, id) else {
        return Outcome::Value(Value::String(python_json_dumps(&not_found(id))));
    };
    let mut present = vec![false; data.skills.len()];
    for &row in &group.rows {
        for &skill in data.rows.skills(row) {
            present[skill as usize] = true;
        }
    }
    let mut names: Vec<&str> = present
        .iter()
        .enumerate()
        .filter(|(_, p)| **p)
        .map(|(s, _)| data.skills[s].as_str())
        .collect();
    names.sort_unstable();
    Outcome::Value(Value::String(names.join(", ")))
}

pub fn model_registry(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    if call.data.requisition(id).is_none() {
        return Outcome::Value(not_found(id));
    }
    Outcome::Value(json!({
        "requisition_id": id,
        "models": [
            {
                "name": "Skill relevance classifier",
                "version": "2.1.0",
                "status": "active",
                "last_trained": "2024-11-15",
                "accuracy": 0.87,
            },
            {
                "name": "SLA impact regression model",
                "version": "1.4.2",
                "status": "active",
                "last_trained": "2024-10-01",
                "r_squared": 0.72,
            },
            {
                "name": "Funnel conversion recommender",
                "version": "3.0.0-beta",
                "status": "staging",
                "last_trained": "2025-01-20",
                "precision": 0.81,
            },
        ],
        "registry_updated": "2025-04-29",
    }))
}

/// How many of the group's rows list the skill.
fn rows_with_skill(call: &Call, rows: &[u32], skill_name: Option<&str>) -> u64 {
    let skill = skill_name.and_then(|name| call.data.skill(name));
    rows.iter()
        .filter(|&&r| call.data.rows.has_skill(r, skill))
        .count() as u64
}

pub fn skill_lookup(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let skill_name = call.args.str(1);
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let total = rows_with_skill(call, &group.rows, skill_name);
    let n = group.rows.len() as u64;
    let rate = if n > 0 {
        json!(py_round1(ratio(total, n) * 100.0))
    } else {
        json!(0)
    };
    Outcome::Value(json!({
        "requisition_id": id,
        "skill_name": skill_name,
        "occurrence_count": total,
        "total_candidates": n,
        "occurrence_rate": rate,
    }))
}

pub fn skill_deep_analysis(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    let Some((_, group)) = lookup(data, id) else {
        return Outcome::Value(not_found(id));
    };
    let nested: Vec<Value> = skill_counts(data, &group.rows)
        .into_iter()
        .take(5)
        .map(|(skill, count)| {
            let mut node = json!({"skill": data.skills[skill as usize], "count": count});
            for depth in 1..=15 {
                let mut level = Map::new();
                level.insert("level".into(), depth.into());
                level.insert(
                    "metadata".into(),
                    json!({"type": format!("analysis_layer_{depth}")}),
                );
                level.insert("data".into(), node);
                node = Value::Object(level);
            }
            node
        })
        .collect();
    Outcome::Value(json!({
        "requisition_id": id,
        "analysis_version": "3.0",
        "results": {"nested_skills": nested, "total_depth": 15},
    }))
}

pub fn analyze_skill_match(call: &mut Call) -> Outcome {
    let data = call.data;
    let id = call.requisition_id();
    let skill_name = call.args.str(1).unwrap_or_default();
    let Some((_, group)) = lookup(data, id) else {
        return Outcome::Value(not_found(id));
    };
    let [with, without] = sla_split(data, &group.rows, data.skill(skill_name));
    let delta = sla_percentage(with) - sla_percentage(without);
    let total_with_skill = rows_with_skill(call, &group.rows, Some(skill_name));
    let n = group.rows.len() as u64;
    let share = if n > 0 {
        ratio(total_with_skill, n) * 50.0
    } else {
        0.0
    };
    let match_score = trunc_to_int(share + delta.max(0) as f64).min(100);
    let occurrence_rate = if n > 0 {
        json!(py_round1(ratio(total_with_skill, n) * 100.0))
    } else {
        json!(0)
    };
    Outcome::Value(json!({
        "requisition_id": id,
        "skill_id": skill_name,
        "match_score": match_score,
        "sla_delta": delta,
        "occurrence_rate": occurrence_rate,
        "recommendation": if match_score >= 50 { "good match" } else { "weak match" },
    }))
}

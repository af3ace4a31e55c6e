//! The error-prone candidate-source tools: HTTP-style failures raised as exceptions (some
//! depending on the session's random generator or call counter), odd types, missing or extra
//! fields, a large payload, unicode names, pagination and rate-limit hints.

use serde_json::{Map, Value, json};

use super::common::{lookup, not_found, present, ratio, tally};
use super::{Call, Outcome};
use crate::numeric::{format_1f, round_to_int};
use crate::python_json_dumps;

/// The reference raises `Exception(json.dumps(payload))` for its simulated HTTP errors.
fn raise(payload: &Value) -> Outcome {
    Outcome::Raise(python_json_dumps(payload))
}

/// `int(round(mean(sla_met) * 100))` over reviewed rows of each source present among them.
fn sla_by_source(call: &Call, rows: &[u32]) -> Vec<Value> {
    let counts = tally(call.data, rows);
    present(call.data, &counts)
        .filter(|(_, t)| t.reviewed > 0)
        .map(|(name, t)| {
            json!({
                "source_name": name,
                "sla_percentage": round_to_int(ratio(t.reviewed_sla_met, t.reviewed) * 100.0),
            })
        })
        .collect()
}

/// `(reviewed rows, reviewed rows with SLA met)` of one source in the group.
fn reviewed_of_source(call: &Call, rows: &[u32], source_name: &str) -> (u64, u64) {
    let counts = tally(call.data, rows);
    present(call.data, &counts)
        .find(|(name, _)| *name == source_name)
        .map_or((0, 0), |(_, t)| (t.reviewed, t.reviewed_sla_met))
}

pub fn source_sla_score(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let source_name = call.args.str(1).unwrap_or_default();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let (reviewed, met) = reviewed_of_source(call, &group.rows, source_name);
    if reviewed == 0 {
        return Outcome::Value(json!({
            "error": "no_data",
            "message": format!("No reviewed candidates from {source_name}"),
        }));
    }
    Outcome::Value(json!(round_to_int(ratio(met, reviewed) * 100.0)))
}

/// The reference returns `list(set(...))`, whose order depends on Python's per-process string
/// hashing; here the names come in code-point order.
pub fn inactive_sources(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let counts = tally(call.data, &group.rows);
    let inactive: Vec<&str> = call
        .data
        .sources
        .iter()
        .zip(&counts)
        .filter(|(_, t)| t.rows == 0)
        .map(|(name, _)| name.as_str())
        .collect();
    Outcome::Value(if inactive.is_empty() {
        Value::Null
    } else {
        json!(inactive)
    })
}

pub fn candidate_pipeline_status(call: &mut Call) -> Outcome {
    if call.state.rng.random() < 0.2 {
        return raise(&json!({
            "status_code": 404,
            "error": true,
            "message": "Resource temporarily unavailable",
        }));
    }
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let counts = tally(call.data, &group.rows);
    let pipeline: Map<String, Value> = present(call.data, &counts)
        .map(|(name, t)| (name.to_owned(), json!(t.rows)))
        .collect();
    Outcome::Value(json!({
        "requisition_id": id,
        "pipeline": pipeline,
        "total_candidates": group.rows.len(),
    }))
}

pub fn source_sla_check(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    raise(&json!({
        "status_code": 500,
        "error": true,
        "message": "Internal server error",
        "body": {"metrics": sla_by_source(call, &group.rows)},
    }))
}

pub fn funnel_status(_: &mut Call) -> Outcome {
    raise(&json!({
        "status_code": 503,
        "error": true,
        "message": "Service temporarily unavailable. The funnel analytics engine is undergoing maintenance.",
        "retry_after_seconds": 300,
        "expected_recovery": "2025-05-01T12:00:00Z",
    }))
}

pub fn bulk_source_data(call: &mut Call) -> Outcome {
    call.state.bulk_calls = call.state.bulk_calls.saturating_add(1);
    if call.state.bulk_calls > 3 {
        return raise(&json!({
            "status_code": 429,
            "error": true,
            "message": "Rate limit exceeded. Maximum 3 calls per session.",
            "retry_after_seconds": 60,
            "limit": 3,
            "remaining": 0,
        }));
    }
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let counts = tally(call.data, &group.rows);
    let sources: Map<String, Value> = present(call.data, &counts)
        .map(|(name, t)| {
            (
                name.to_owned(),
                json!({"total_candidates": t.rows, "total_hires": t.hired, "reviewed": t.reviewed}),
            )
        })
        .collect();
    Outcome::Value(json!({
        "requisition_id": id,
        "sources": sources,
        "call_number": call.state.bulk_calls,
    }))
}

pub fn source_metrics_lite(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let counts = tally(call.data, &group.rows);
    let metrics: Vec<Value> = present(call.data, &counts)
        .map(|(_, t)| {
            json!({
                "candidate_count": t.rows,
                "hire_count": t.hired,
                "sla_met_count": t.reviewed_sla_met,
            })
        })
        .collect();
    Outcome::Value(json!({
        "requisition_id": id,
        "metrics": metrics,
        "note": "Lightweight view — some fields may be omitted for performance.",
    }))
}

pub fn volume_report(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let counts = tally(call.data, &group.rows);
    let metrics: Vec<Value> = present(call.data, &counts)
        .map(|(name, t)| {
            json!({
                "source_name": name,
                "candidate_count": t.rows.to_string(),
                "hire_count": t.hired.to_string(),
                "review_rate": format!("{}%", format_1f(ratio(t.reviewed, t.rows) * 100.0)),
            })
        })
        .collect();
    Outcome::Value(json!({
        "requisition_id": id,
        "metrics": metrics,
        "total_candidates": group.rows.len().to_string(),
    }))
}

pub fn full_candidate_details(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    if call.data.requisition(id).is_none() {
        return Outcome::Value(not_found(id));
    }
    match &call.data.fixture {
        Some(fixture) => Outcome::Json(format!(
            r#"{{"requisition_id":{},"total_records":{},"candidates":{}}}"#,
            Value::from(id),
            fixture.len,
            fixture.json
        )),
        None => Outcome::Value(json!({
            "requisition_id": id,
            "total_records": 0,
            "candidates": [],
            "warning": "Large response fixture not found",
        })),
    }
}

pub fn source_directory(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    if call.data.requisition(id).is_none() {
        return Outcome::Value(not_found(id));
    }
    Outcome::Value(json!({
        "requisition_id": id,
        "sources": [
            {"name": "LinkedIn \u{1F4BC}", "region": "Global", "status": "active"},
            {"name": "Dice \u{1F3B2}", "region": "North America", "status": "active"},
            {"name": "\u{62db}\u{8058}\u{7f51} (Zhaopin)", "region": "\u{4e2d}\u{56fd}", "status": "active"},
            {
                "name": "\u{0628}\u{064a}\u{062a}.\u{0643}\u{0648}\u{0645} (Bayt)",
                "region": "\u{0627}\u{0644}\u{0634}\u{0631}\u{0642} \u{0627}\u{0644}\u{0623}\u{0648}\u{0633}\u{0637}",
                "status": "active",
            },
            {"name": "GitHub \u{1F431}\u{200D}\u{1F4BB}", "region": "Global", "status": "active"},
            {"name": "R\u{e9}f\u{e9}rence\u{2122}", "region": "Europe", "status": "inactive"},
            {"name": "\u{2605} Top Talent \u{2605}", "region": "APAC", "status": "active"},
        ],
        "total_sources": 7,
    }))
}

pub fn sla_extended(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let source_name = call.args.str(1).unwrap_or_default();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let (reviewed, met) = reviewed_of_source(call, &group.rows, source_name);
    let pct = if reviewed > 0 {
        round_to_int(ratio(met, reviewed) * 100.0)
    } else {
        0
    };
    Outcome::Value(json!({
        "requisition_id": id,
        "source_name": source_name,
        "sla_percentage": pct,
        "_internal_id": "sla-ext-7f3a9b2c",
        "_cache_ttl": 3600,
        "_version": "2.3.1",
        "_debug_query_ms": 42,
        "_shard_id": 3,
        "_region": "us-east-1",
        "_feature_flags": ["sla_v2", "extended_metrics"],
        "_experiment_group": "control",
        "_sampling_rate": 0.95,
        "_data_quality_score": 0.98,
        "_last_recomputed": "2025-04-29T03:00:00Z",
        "_computation_engine": "spark-3.5",
        "_model_version": "sla-impact-v1.4.2",
        "_confidence_interval": [pct - 3, pct + 3],
        "_p_value": 0.023,
        "_sample_size": reviewed,
        "_outliers_removed": 2,
        "_normalization_method": "min-max",
        "_correlation_with_hires": 0.67,
        "_seasonal_adjustment": true,
    }))
}

pub fn requisition_details(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let Some(requisition) = call.data.requisition(id) else {
        return Outcome::Value(json!({"err": "not_found", "req": id}));
    };
    let mut sources_used: Vec<&str> = Vec::new();
    for &row in &requisition.rows {
        let name = call.data.sources[call.data.rows.source[row as usize] as usize].as_str();
        if !sources_used.contains(&name) {
            sources_used.push(name);
        }
    }
    Outcome::Value(json!({
        "requisition_id": id,
        "department": requisition.department.as_deref().unwrap_or("None"),
        "seniority_level": requisition.seniority_level.as_deref().unwrap_or("None"),
        "total_candidates": requisition.rows.len(),
        "sources_used": sources_used,
    }))
}

pub fn list_all_sources(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let counts = tally(call.data, &group.rows);
    let sources: Vec<&str> = present(call.data, &counts).map(|(name, _)| name).collect();
    const PAGE_SIZE: usize = 3;
    let mut result = json!({
        "requisition_id": id,
        "sources": sources
            .iter()
            .take(PAGE_SIZE)
            .enumerate()
            .map(|(i, name)| json!({"name": name, "index": i}))
            .collect::<Vec<_>>(),
        "total_count": sources.len(),
        "page_size": PAGE_SIZE,
        "page": 1,
    });
    if let Some(map) = result.as_object_mut() {
        if sources.len() > PAGE_SIZE {
            map.insert(
                "next_page".into(),
                "eyJvZmZzZXQiOjMsInJlcV9pZCI6IjA1OTU4QlIifQ==".into(),
            );
            map.insert("has_more".into(), true.into());
        } else {
            map.insert("has_more".into(), false.into());
        }
    }
    Outcome::Value(result)
}

pub fn batch_metrics(call: &mut Call) -> Outcome {
    let id = call.requisition_id();
    let Some((_, group)) = lookup(call.data, id) else {
        return Outcome::Value(not_found(id));
    };
    let counts = tally(call.data, &group.rows);
    let metrics: Map<String, Value> = present(call.data, &counts)
        .map(|(name, t)| {
            (
                name.to_owned(),
                json!({"candidates": t.rows, "hires": t.hired, "reviewed": t.reviewed}),
            )
        })
        .collect();
    Outcome::Value(json!({
        "requisition_id": id,
        "metrics": metrics,
        "X-RateLimit-Limit": 100,
        "X-RateLimit-Remaining": 97,
        "X-RateLimit-Reset": "2025-05-01T00:00:00Z",
        "X-RateLimit-Window": "1h",
    }))
}

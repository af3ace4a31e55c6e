//! What several tools share: the two not-found answers, per-source tallies over a group, and
//! skill counting.

use serde_json::{Value, json};

use crate::data::{BpoData, Flag, Group, Requisition};

/// The core tools' answer to an unknown requisition, with fuzzy suggestions.
pub fn not_found_with_suggestions(data: &BpoData, id: &str) -> Value {
    json!({
        "error": "requisition_not_found",
        "message": format!("No job can be found with the ID {id}."),
        "suggested_requisition_ids": data.suggestions(id),
    })
}

/// The error-prone tools' answer to an unknown requisition.
pub fn not_found(id: &str) -> Value {
    json!({
        "error": "requisition_not_found",
        "message": format!("Requisition {id} not found"),
    })
}

/// The requisition and its group of similar requisitions.
pub fn lookup<'a>(data: &'a BpoData, id: &str) -> Option<(&'a Requisition, &'a Group)> {
    data.requisition(id).map(|r| (r, data.group(r)))
}

/// Counts of one source's rows within a group.
#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub rows: u64,
    pub reviewed: u64,
    pub reviewed_sla_met: u64,
    pub interviewed: u64,
    pub offer_extended: u64,
    pub offer_accepted: u64,
    pub hired: u64,
}

/// Per-source counts over `rows`, indexed like [`BpoData::sources`].
pub fn tally(data: &BpoData, rows: &[u32]) -> Vec<Tally> {
    let mut out = vec![Tally::default(); data.sources.len()];
    let r = &data.rows;
    for &row in rows {
        let t = &mut out[r.source[row as usize] as usize];
        let reviewed = r.flag(row, Flag::Reviewed);
        t.rows += 1;
        t.reviewed += u64::from(reviewed);
        t.reviewed_sla_met += u64::from(reviewed && r.flag(row, Flag::SlaMet));
        t.interviewed += u64::from(r.flag(row, Flag::Interviewed));
        t.offer_extended += u64::from(r.flag(row, Flag::OfferExtended));
        t.offer_accepted += u64::from(r.flag(row, Flag::OfferAccepted));
        t.hired += u64::from(r.flag(row, Flag::Hired));
    }
    out
}

/// `(source name, tally)` for the sources present in the tally, in pandas' groupby order.
pub fn present<'a>(
    data: &'a BpoData,
    tally: &'a [Tally],
) -> impl Iterator<Item = (&'a str, Tally)> {
    data.sources
        .iter()
        .zip(tally)
        .filter(|(_, t)| t.rows > 0)
        .map(|(name, t)| (name.as_str(), *t))
}

/// `a / b` as the float division of two counts.
pub fn ratio(a: u64, b: u64) -> f64 {
    a as f64 / b as f64
}

/// Every skill mention in `rows` counted, most frequent first, ties in order of first
/// appearance (`value_counts` and `Counter.most_common` on this data).
pub fn skill_counts(data: &BpoData, rows: &[u32]) -> Vec<(u32, u64)> {
    let mut counts: Vec<u64> = vec![0; data.skills.len()];
    let mut first_seen: Vec<u32> = Vec::new();
    for &row in rows {
        for &skill in data.rows.skills(row) {
            if counts[skill as usize] == 0 {
                first_seen.push(skill);
            }
            counts[skill as usize] += 1;
        }
    }
    let mut ranked: Vec<(u32, u64)> = first_seen
        .into_iter()
        .map(|s| (s, counts[s as usize]))
        .collect();
    ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
    ranked
}

/// Mean of `sla_met` over the reviewed rows of `rows` that do (`with`) and do not list `skill`:
/// `(sla_met count, row count)` for each side.
pub fn sla_split(data: &BpoData, rows: &[u32], skill: Option<u32>) -> [(u64, u64); 2] {
    let mut sides = [(0u64, 0u64); 2];
    for &row in rows {
        if !data.rows.flag(row, Flag::Reviewed) {
            continue;
        }
        let side = &mut sides[usize::from(!data.rows.has_skill(row, skill))];
        side.0 += u64::from(data.rows.flag(row, Flag::SlaMet));
        side.1 += 1;
    }
    sides
}

/// `round(mean * 100)` of one side of [`sla_split`], 0 when the side is empty.
pub fn sla_percentage((met, n): (u64, u64)) -> i64 {
    if n == 0 {
        0
    } else {
        crate::numeric::round_to_int(ratio(met, n) * 100.0)
    }
}

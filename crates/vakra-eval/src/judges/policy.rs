//! The policy judge: did the turn's tool calls keep to the tool-use policy of the sample's
//! `additional_instructions`? The reference never shipped one (spec §3.1); these rules are this
//! project's, documented in docs/evaluator.md.
//!
//! Tools fall in two families, as in the reference: a retriever is a tool whose name contains
//! `query_`; every other tool is an API. Instructions are read case-insensitively (the
//! benchmark's "retrivers" spelling included):
//! - "only use retrievers for <category>…": retrievers only of that category. The category's
//!   retriever domains come from the data root's `retrievers/policy_categories.json`
//!   (`{"<category>": ["<domain>", …]}`) when it names the category; otherwise the retrievers
//!   the ground-truth turn calls are the allowed ones (the ground truth keeps its policy).
//! - "do not use retrievers" / "only use APIs": no retriever.
//! - "do not use APIs" / "only use retrievers" (with no category): no API.
//!
//! Text matching none of these is not checked (the verdict passes and says so).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

use super::Verdict;

/// Whether a tool is a document retriever (the reference's rule).
pub fn is_retriever(tool: &str) -> bool {
    tool.contains("query_")
}

/// What an instruction allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Policy {
    /// Retrievers only of this category.
    RetrieversFor(String),
    NoRetrievers,
    NoApis,
}

static RETRIEVERS_FOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bonly\s+use\s+(?:the\s+)?retrie?vers?\s+for\s+(.+?)(?:,|\s+which\b|\.|$)")
        .expect("a valid pattern")
});
static NO_RETRIEVERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:do\s+not|don't|never)\s+use\s+(?:any\s+|the\s+)?retrie?vers?|only\s+use\s+(?:the\s+)?apis?)\b",
    )
    .expect("a valid pattern")
});
static NO_APIS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:do\s+not|don't|never)\s+use\s+(?:any\s+|the\s+)?apis?\b|only\s+use\s+(?:the\s+)?retrie?vers?\s*(?:\.|$))",
    )
    .expect("a valid pattern")
});

/// Reads an instruction text; `None` when it states no rule these judges know.
pub fn parse(instructions: &str) -> Option<Policy> {
    if let Some(captures) = RETRIEVERS_FOR.captures(instructions) {
        return Some(Policy::RetrieversFor(captures[1].trim().to_owned()));
    }
    if NO_RETRIEVERS.is_match(instructions) {
        return Some(Policy::NoRetrievers);
    }
    NO_APIS.is_match(instructions).then_some(Policy::NoApis)
}

/// Judges a predicted turn's calls against the instructions; `None` when there is nothing to
/// judge (no instructions).
pub fn judge(
    instructions: &str,
    predicted_tools: &[&str],
    ground_truth_tools: &[&str],
    categories: &BTreeMap<String, Vec<String>>,
) -> Option<Verdict> {
    if instructions.trim().is_empty() {
        return None;
    }
    let Some(policy) = parse(instructions) else {
        return Some(Verdict::pass(
            "The instructions state no tool-use rule the policy judge knows; not checked.",
        ));
    };
    let offending: Vec<&str> = match &policy {
        Policy::NoRetrievers => predicted_tools
            .iter()
            .copied()
            .filter(|t| is_retriever(t))
            .collect(),
        Policy::NoApis => predicted_tools
            .iter()
            .copied()
            .filter(|t| !is_retriever(t))
            .collect(),
        Policy::RetrieversFor(category) => {
            let allowed = allowed_retrievers(category, ground_truth_tools, categories);
            predicted_tools
                .iter()
                .copied()
                .filter(|t| is_retriever(t) && !allowed.contains(*t))
                .collect()
        }
    };
    let rule = match &policy {
        Policy::RetrieversFor(category) => format!("retrievers only for {category:?}"),
        Policy::NoRetrievers => "no retrievers".into(),
        Policy::NoApis => "no APIs".into(),
    };
    Some(if offending.is_empty() {
        Verdict::pass(format!("Policy followed ({rule})."))
    } else {
        let unique: BTreeSet<&str> = offending.into_iter().collect();
        Verdict::fail(format!(
            "Policy violated ({rule}): called {}.",
            unique.into_iter().collect::<Vec<_>>().join(", ")
        ))
    })
}

fn allowed_retrievers(
    category: &str,
    ground_truth_tools: &[&str],
    categories: &BTreeMap<String, Vec<String>>,
) -> BTreeSet<String> {
    let wanted = category.to_lowercase();
    match categories
        .iter()
        .find(|(name, _)| name.to_lowercase() == wanted)
    {
        Some((_, domains)) => domains.iter().map(|d| format!("query_{d}")).collect(),
        None => ground_truth_tools
            .iter()
            .filter(|t| is_retriever(t))
            .map(|t| t.to_string())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Only use retrivers for Retail, Sales & Commerce, which is/are about Topics related to retail.";

    #[test]
    fn instructions_are_read() {
        assert_eq!(parse(SAMPLE), Some(Policy::RetrieversFor("Retail".into())));
        assert_eq!(
            parse("Do not use any retrievers."),
            Some(Policy::NoRetrievers)
        );
        assert_eq!(
            parse("Only use APIs to answer."),
            Some(Policy::NoRetrievers)
        );
        assert_eq!(parse("Don't use APIs"), Some(Policy::NoApis));
        assert_eq!(parse("Only use retrievers."), Some(Policy::NoApis));
        assert_eq!(parse("Be polite."), None);
    }

    #[test]
    fn retrievers_outside_the_category_violate() {
        let none = BTreeMap::new();
        let gt = ["get_x", "query_olympics"];
        assert!(
            judge(SAMPLE, &["get_y", "query_olympics"], &gt, &none)
                .unwrap()
                .passed()
        );
        let verdict = judge(SAMPLE, &["query_hockey"], &gt, &none).unwrap();
        assert!(!verdict.passed());
        assert!(verdict.explanation.contains("query_hockey"));
        let mapped = BTreeMap::from([("retail".to_owned(), vec!["hockey".to_owned()])]);
        assert!(
            judge(SAMPLE, &["query_hockey"], &gt, &mapped)
                .unwrap()
                .passed()
        );
        assert!(judge("", &["query_hockey"], &gt, &none).is_none());
        assert!(
            judge("Be polite.", &["query_hockey"], &gt, &none)
                .unwrap()
                .passed()
        );
        assert!(
            !judge("Do not use APIs.", &["get_x"], &gt, &none)
                .unwrap()
                .passed()
        );
    }
}

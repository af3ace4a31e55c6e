//! One side's replay of a sample (the prediction's or the ground truth's), as the judges read
//! it and [`crate::ground_truth_memo`] keeps it.

use serde_json::Value;

use crate::records::Call;
use crate::report::ReplayCounts;

/// What one side's replay produced: the calls as sent (legacy names translated) and the
/// responses, per turn.
pub(crate) struct Replayed {
    pub(crate) calls: Vec<Vec<Call>>,
    pub(crate) responses: Vec<Vec<Value>>,
    /// Capability 4: the retriever calls' live answers (documents with their ids and metadata,
    /// as the agent saw them), per turn; the compared `responses` keep only the texts.
    pub(crate) retrieved: Vec<Vec<String>>,
    pub(crate) problems: Vec<String>,
    pub(crate) counts: ReplayCounts,
}

impl Replayed {
    /// The bytes of text it holds, roughly (for [`crate::GroundTruthMemo`]'s bound).
    pub(crate) fn size(&self) -> usize {
        let responses: usize = self.responses.iter().flatten().map(value_size).sum();
        let retrieved: usize = self.retrieved.iter().flatten().map(String::len).sum();
        let calls: usize = self
            .calls
            .iter()
            .flatten()
            .map(|c| c.name.len() + value_size(&c.arguments))
            .sum();
        responses + retrieved + calls + self.problems.iter().map(String::len).sum::<usize>()
    }
}

fn value_size(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        other => other.to_string().len(),
    }
}

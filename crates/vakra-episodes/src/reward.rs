//! An episode's reward: its trajectory as a prediction record (what `vakra run` writes for a
//! sample), judged against the sample's ground truth by the evaluator's own per-sample judge.
//! The binary reward is the verdict `vakra eval` gives that record; the partial one is the
//! fraction of the ground truth's tool responses the trajectory recovered, by the same
//! comparison the exact-match judge uses.

use serde::Serialize;
use serde_json::{Map, Value};
use vakra_eval::judges::exact::{self, ExactMode};
use vakra_eval::report::SampleReport;
use vakra_eval::{Judging, Sample, judge_sample};
use vakra_records::records::parse_record;
use vakra_records::{PredictedCall, Prediction};

use crate::split::SplitSample;

/// Which number the reward is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RewardMode {
    /// 1 when `vakra eval` scores the trajectory correct, else 0.
    #[default]
    Binary,
    /// The fraction of the ground truth's tool responses (scored turn) that the trajectory's
    /// own calls returned; 1 when the ground truth has none and the verdict is correct.
    Partial,
}

impl RewardMode {
    pub fn as_str(self) -> &'static str {
        match self {
            RewardMode::Binary => "binary",
            RewardMode::Partial => "partial",
        }
    }
}

impl std::str::FromStr for RewardMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "binary" => Ok(RewardMode::Binary),
            "partial" => Ok(RewardMode::Partial),
            other => Err(format!("reward must be binary or partial; got {other:?}")),
        }
    }
}

/// A finished episode's reward and the verdicts behind it.
#[derive(Debug, Clone, Serialize)]
pub struct Reward {
    pub value: f64,
    pub mode: &'static str,
    /// The evaluator's report of the sample, as `vakra eval` writes it.
    pub verdict: SampleReport,
    /// Ground-truth responses recovered, of how many.
    pub recovered: [usize; 2],
}

/// A call the episode made.
#[derive(Debug, Clone)]
pub struct RecordedCall {
    pub name: String,
    pub arguments: Map<String, Value>,
}

/// The trajectory as a prediction record in the submission format (`vakra run`'s, so that
/// `vakra eval` reads it back).
pub fn prediction_record(sample: &SplitSample, calls: &[RecordedCall], answer: &Value) -> Value {
    let sample = &sample.sample;
    Prediction {
        uuid: sample.uuid.clone(),
        domain: sample.domain.clone(),
        error: None,
        duration_s: None,
        turn_id: sample.turn_id,
        query: sample.query.clone(),
        answer: answer.clone(),
        calls: calls
            .iter()
            .map(|c| PredictedCall {
                name: c.name.clone(),
                arguments: Value::Object(c.arguments.clone()),
            })
            .collect(),
        trial: None,
        usage: None,
    }
    .to_json()
}

/// Judges a prediction record against the sample's ground truth.
pub async fn judge(
    judging: &Judging,
    mode: RewardMode,
    sample: &SplitSample,
    prediction: &Value,
) -> Result<Reward, String> {
    let pred = parse_record(prediction)?;
    let (verdict, _judge_errors) = judge_sample(
        judging,
        Sample {
            position: 0,
            capability: sample.sample.capability,
            domain: sample.sample.domain.clone(),
            gt: sample.ground_truth.clone(),
            pred: Some(pred),
            problems: Vec::new(),
            trial: None,
        },
    )
    .await;
    let recovered = match &verdict.responses {
        Some(responses) => {
            let missing = match judging.exact_mode {
                ExactMode::Reference => {
                    exact::missing_reference(&responses.ground_truth, &responses.prediction)
                }
                ExactMode::Normalized => exact::missing_normalized(
                    &responses.ground_truth,
                    &responses.prediction,
                    &judging.normalization,
                ),
            };
            let total = responses.ground_truth.len();
            [total - missing.len(), total]
        }
        None => [0, 0],
    };
    let value = match mode {
        RewardMode::Binary => verdict.score,
        RewardMode::Partial => match recovered {
            [_, 0] => verdict.score,
            [found, total] => found as f64 / total as f64,
        },
    };
    Ok(Reward {
        value,
        mode: mode.as_str(),
        verdict,
        recovered,
    })
}

//! The one writer of prediction records (the submission format): `vakra run`, `vakra trace
//! export` and the RL episodes write their records here, and [`crate::parse_record`] is the one
//! (lenient) reader.

use serde_json::{Map, Value, json};

use crate::Tokens;

/// A sample's prediction: the scored turn's answer and calls, with the run's bookkeeping.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub uuid: String,
    pub domain: String,
    /// `None` for a finished sample (`status: success`), the error text of a failed one.
    pub error: Option<String>,
    /// The seconds the sample took, when known.
    pub duration_s: Option<f64>,
    pub turn_id: i64,
    pub query: String,
    pub answer: Value,
    /// The tool calls, each `{"name", "arguments"}` in the order made.
    pub calls: Vec<PredictedCall>,
    /// `vakra run --trials`: the trial index.
    pub trial: Option<u32>,
    /// `vakra run`: the model's token counts.
    pub usage: Option<Tokens>,
}

/// One recorded tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictedCall {
    pub name: String,
    /// An object, as MCP sends them (a trace may hold anything; it is written as it is).
    pub arguments: Value,
}

impl Prediction {
    /// The record: `uuid`, `domain`, `status`, `error`, `duration_s` when known, the one turn
    /// of `output`, then `trial` and `usage` when set (the reference's keys first, in its order).
    pub fn to_json(&self) -> Value {
        let mut record = Map::new();
        record.insert("uuid".into(), json!(self.uuid));
        record.insert("domain".into(), json!(self.domain));
        let status = if self.error.is_none() {
            "success"
        } else {
            "error"
        };
        record.insert("status".into(), json!(status));
        record.insert(
            "error".into(),
            json!(self.error.as_deref().unwrap_or_default()),
        );
        if let Some(duration_s) = self.duration_s {
            record.insert("duration_s".into(), json!(duration_s));
        }
        let calls: Vec<Value> = self
            .calls
            .iter()
            .map(|c| json!({"name": c.name, "arguments": c.arguments}))
            .collect();
        record.insert(
            "output".into(),
            json!([{
                "turn_id": self.turn_id,
                "query": self.query,
                "answer": self.answer,
                "sequence": {"tool_call": calls},
            }]),
        );
        if let Some(trial) = self.trial {
            record.insert("trial".into(), json!(trial));
        }
        if let Some(usage) = self.usage {
            record.insert("usage".into(), json!(usage));
        }
        Value::Object(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prediction() -> Prediction {
        let arguments = json!({"country": "Canada"});
        Prediction {
            uuid: "u-1".into(),
            domain: "weather".into(),
            error: None,
            duration_s: Some(1.5),
            turn_id: 3,
            query: "How many?".into(),
            answer: json!("4"),
            calls: vec![PredictedCall {
                name: "get_count".into(),
                arguments,
            }],
            trial: Some(2),
            usage: Some(Tokens {
                input_tokens: 10,
                output_tokens: 5,
            }),
        }
    }

    #[test]
    fn the_record_has_the_submission_keys_in_order() {
        let record = prediction().to_json();
        let keys: Vec<_> = record.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "uuid",
                "domain",
                "status",
                "error",
                "duration_s",
                "output",
                "trial",
                "usage"
            ]
        );
        assert_eq!(record["status"], "success");
        assert_eq!(
            record["usage"],
            json!({"input_tokens": 10, "output_tokens": 5})
        );
        let failed = Prediction {
            error: Some("Agent timed out".into()),
            duration_s: None,
            trial: None,
            usage: None,
            ..prediction()
        }
        .to_json();
        assert_eq!(
            (&failed["status"], &failed["error"]),
            (&json!("error"), &json!("Agent timed out"))
        );
        assert!(failed.get("duration_s").is_none() && failed.get("trial").is_none());
    }

    #[test]
    fn the_reader_reads_what_the_writer_writes() {
        let record = crate::parse_record(&prediction().to_json()).unwrap();
        assert_eq!((record.uuid.as_str(), record.trial), ("u-1", Some(2)));
        assert_eq!(record.duration_s, Some(1.5));
        assert_eq!(record.tokens, prediction().usage);
        let turn = &record.turns[0];
        assert_eq!((turn.turn_id, turn.query.as_str()), (Some(3), "How many?"));
        assert_eq!(turn.calls[0].name, "get_count");
        assert_eq!(turn.calls[0].arguments, json!({"country": "Canada"}));
    }
}

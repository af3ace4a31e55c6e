//! The LLM judges (correctness and groundedness) through any OpenAI-compatible chat endpoint.
//!
//! Prompts and output parsing follow the reference (spec §3.3–3.4). The reference's prompt
//! texts are not part of this project: `vakra import` copies them from a reference checkout
//! into the data root's `evaluator/prompts.json`; without that file the judges use this
//! project's own prompts (same placeholders, same output contract), and the report says which.

use std::path::Path;
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};
use vakra_catalog::files::{EVALUATOR_PROMPTS, EvaluatorPrompts};
use vakra_chat::{ChatClient, ChatConfig, ChatError, RetryPolicy};
use vakra_pytext::python_format;

use super::{Verdict, normalize_text};
use crate::judges::exact::response_text;

/// Where the judge model is and how to call it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LlmConfig {
    /// Base URL of the OpenAI-compatible API (`…/v1`); `/chat/completions` is appended.
    pub base_url: String,
    pub model: String,
    /// Sent as a bearer token when set.
    #[serde(skip)]
    pub api_key: Option<String>,
    pub timeout: Duration,
    /// Further attempts after a transport error or a 429/5xx answer.
    pub retries: u32,
    /// Parse fenced or prose-wrapped JSON from the correctness judge, which the reference
    /// means to do but scores 0 instead (the `--fix-quirks` switch).
    pub lenient_json: bool,
}

/// The two prompt templates (the data root's file format).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompts(pub EvaluatorPrompts);

impl std::ops::Deref for Prompts {
    type Target = EvaluatorPrompts;

    fn deref(&self) -> &EvaluatorPrompts {
        &self.0
    }
}

impl Prompts {
    /// The data root's imported prompts, or this project's own.
    pub fn load(root: &Path) -> Result<Self, String> {
        Ok(match EVALUATOR_PROMPTS.read_optional(root)? {
            Some((prompts, source)) => Self(EvaluatorPrompts { source, ..prompts }),
            None => Self::builtin(),
        })
    }

    /// This project's prompts.
    pub fn builtin() -> Self {
        Self(EvaluatorPrompts {
            correctness: include_str!("prompts/correctness.txt").to_owned(),
            groundedness: include_str!("prompts/groundedness.txt").to_owned(),
            source: "built-in".into(),
        })
    }
}

/// A chat client for the judges: one user message in, the reply's text out, through
/// `vakra-chat` (its retries of 429, 5xx and transport failures, its bounded answers).
#[derive(Clone)]
pub struct LlmClient {
    config: LlmConfig,
    chat: ChatClient,
}

impl LlmClient {
    pub fn new(config: LlmConfig) -> Result<Self, String> {
        let chat = ChatClient::new(ChatConfig {
            base_url: config.base_url.clone(),
            model: config.model.clone(),
            api_key: config.api_key.clone(),
            temperature: Some(0.0),
            request_timeout: config.timeout,
            retry: RetryPolicy {
                max_retries: config.retries,
                ..RetryPolicy::default()
            },
            max_answer_bytes: 16 << 20,
        });
        Ok(Self { config, chat })
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// One user message in, the reply's text out.
    pub async fn complete(&self, prompt: &str) -> Result<String, String> {
        let message = json!({"role": "user", "content": prompt});
        let reply = self
            .chat
            .complete(std::slice::from_ref(&message), &[], None)
            .await
            .map_err(|e| match e {
                // The report quotes the body only of answers that retrying cannot change.
                ChatError::Status { status, .. } if status == 429 || status >= 500 => {
                    format!("HTTP {status}")
                }
                ChatError::Status { status, body } => format!("HTTP {status}: {body}"),
                other => other.to_string(),
            })?;
        reply
            .content
            .ok_or_else(|| "the reply has no choices[0].message.content".to_owned())
    }
}

/// The correctness judge (spec §3.3): the verdict, and the judge's error when it failed (the
/// verdict then carries the reference's explanation, which does not say what went wrong).
pub async fn correctness(
    client: &LlmClient,
    prompts: &Prompts,
    query: &str,
    gt_answer: &str,
    pred_answer: &str,
) -> (Verdict, Option<String>) {
    let (query, gt, pred) = (
        normalize_text(query),
        normalize_text(gt_answer),
        normalize_text(pred_answer),
    );
    if gt.is_empty() && pred.is_empty() {
        return (Verdict::pass("Both empty."), None);
    }
    let prompt = python_format(
        &prompts.correctness,
        &[("question", &query), ("answer", &gt), ("prediction", &pred)],
    );
    let lenient = client.config.lenient_json;
    match client
        .complete(&prompt)
        .await
        .and_then(|text| parse_correctness(&text, lenient))
    {
        Ok(verdict) => (verdict, None),
        Err(e) if lenient => (Verdict::fail(format!("Judge Error {e}.")), Some(e)),
        // The reference's message lacks its f-string: the braces stay literal.
        Err(e) => (Verdict::fail("Judge Error {e}."), Some(e)),
    }
}

/// Reads the correctness judge's JSON reply.
pub fn parse_correctness(text: &str, lenient: bool) -> Result<Verdict, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty judge output".into());
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) if lenient => {
            embedded_json(text).ok_or(format!("no JSON object in the output: {e}"))?
        }
        Err(e) => return Err(format!("the output is not JSON: {e}")),
    };
    let object = value.as_object().ok_or("the output is not a JSON object")?;
    let explanation = match object.get("explanation") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => vakra_pytext::py_str(other),
    };
    let score = match object.get("score").ok_or("the output has no score")? {
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) if n.is_f64() => f64::from(u8::from(n.as_f64() == Some(1.0))),
        Value::Number(n) => f64::from(u8::from(n.as_i64() == Some(1))),
        Value::String(s) => {
            static DIGIT: LazyLock<Regex> =
                LazyLock::new(|| Regex::new(r"\b[01]\b").expect("a valid pattern"));
            match s.trim().to_lowercase().as_str() {
                "1" | "true" | "yes" | "y" => 1.0,
                "0" | "false" | "no" | "n" => 0.0,
                other => match DIGIT.find(other) {
                    Some(m) => m.as_str().parse().unwrap_or(0.0),
                    None => return Err(format!("cannot read the score {s:?}")),
                },
            }
        }
        other => return Err(format!("cannot read the score {other}")),
    };
    Ok(Verdict { score, explanation })
}

/// The first fenced ```json block or balanced `{…}` object in a text.
fn embedded_json(text: &str) -> Option<Value> {
    static FENCED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?s)```(?:json)?\s*(\{.*?\})\s*```").expect("a valid pattern")
    });
    if let Some(captures) = FENCED.captures(text)
        && let Ok(value) = serde_json::from_str(&captures[1])
    {
        return Some(value);
    }
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' if !in_string => depth += 1,
            '}' if !in_string => {
                depth -= 1;
                if depth == 0 {
                    return serde_json::from_str(&text[start..=start + i]).ok();
                }
            }
            _ => {}
        }
    }
    None
}

/// The groundedness judge (spec §3.4): is the predicted answer grounded in the turn's own
/// predicted tool responses (the last 20)? The verdict, and the judge's error when it failed.
pub async fn groundedness(
    client: &LlmClient,
    prompts: &Prompts,
    query: &str,
    pred_answer: &str,
    pred_responses: &[Value],
) -> (Verdict, Option<String>) {
    let window = &pred_responses[pred_responses.len().saturating_sub(20)..];
    let mut doc = format!("QUERY: {query} ");
    doc.push_str(
        &window
            .iter()
            .map(|r| match r {
                Value::Null => "none".to_owned(),
                other => normalize_text(&response_text(other)),
            })
            .collect::<Vec<_>>()
            .join(" "),
    );
    let prompt = python_format(
        &prompts.groundedness,
        &[("doc", &doc), ("response", &normalize_text(pred_answer))],
    );
    match client
        .complete(&prompt)
        .await
        .and_then(|text| parse_groundedness(&text))
    {
        Ok(verdict) => (verdict, None),
        Err(e) => (Verdict::fail(format!("Judge Error {e}.")), Some(e)),
    }
}

/// Reads the groundedness judge's labelled reply.
pub fn parse_groundedness(text: &str) -> Result<Verdict, String> {
    static CONCLUSION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?is)<conclusion>\s*(.*?)\s*</conclusion>").expect("a valid pattern")
    });
    static LABEL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b(yes|partial|no|unsure)\b").expect("a valid pattern"));
    static BULLET: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*[-*•\d.)]+\s*").expect("a valid pattern"));
    if text.trim().is_empty() {
        return Err("empty judge output".into());
    }
    let body = match CONCLUSION.captures(text) {
        Some(captures) => captures[1].trim().to_owned(),
        None => text.to_owned(),
    };
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut found = None;
    for (index, line) in lines.iter().take(10).enumerate() {
        let stripped = BULLET.replace(line, "");
        if let Some(m) = LABEL.find(&stripped) {
            found = Some((
                m.as_str().to_lowercase(),
                index,
                stripped[m.end()..].to_owned(),
            ));
            break;
        }
    }
    let (label, explanation) = match found {
        Some((label, index, after)) => {
            let after = after
                .trim_start_matches([' ', ':', '\\', '-', '–', '—'])
                .trim()
                .to_owned();
            let explanation = if after.is_empty() {
                lines
                    .get(index + 1)
                    .map(|l| l.to_string())
                    .unwrap_or_default()
            } else {
                after
            };
            (label, explanation)
        }
        None => match LABEL.find(&body) {
            Some(m) => (m.as_str().to_lowercase(), String::new()),
            None => return Err("no label among yes, partial, no, unsure".into()),
        },
    };
    Ok(Verdict {
        score: if label == "yes" { 1.0 } else { 0.0 },
        explanation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correctness_replies() {
        let read = |t: &str| parse_correctness(t, false).map(|v| v.score);
        assert_eq!(read(r#"{"explanation": "ok", "score": 1}"#), Ok(1.0));
        assert_eq!(read(r#"{"score": "Yes"}"#), Ok(1.0));
        assert_eq!(read(r#"{"score": 2}"#), Ok(0.0));
        assert_eq!(read(r#"{"score": "score 1 of 1"}"#), Ok(1.0));
        assert_eq!(read(r#"{"score": true}"#), Ok(1.0));
        assert!(
            read("```json\n{\"score\": 1}\n```").is_err(),
            "the reference's quirk"
        );
        assert_eq!(
            parse_correctness("Sure: ```json\n{\"score\": 1}\n```", true).map(|v| v.score),
            Ok(1.0)
        );
        assert_eq!(
            parse_correctness("I think {\"score\": 1, \"explanation\": \"a}\"} done", true)
                .map(|v| v.score),
            Ok(1.0)
        );
        assert!(read(r#"{"explanation": "x"}"#).is_err());
    }

    #[test]
    fn groundedness_replies() {
        let read = |t: &str| parse_groundedness(t).map(|v| (v.score, v.explanation));
        assert_eq!(
            read("thinking…\n<conclusion>\nYes\nAll claims are in the document.\n</conclusion>"),
            Ok((1.0, "All claims are in the document.".into()))
        );
        assert_eq!(
            read("1. partial: needs arithmetic"),
            Ok((0.0, "needs arithmetic".into()))
        );
        assert_eq!(read("Partially grounded. yes"), Ok((1.0, String::new())));
        assert!(
            read("not grounded").is_err(),
            "no label token: a parse error"
        );
        assert_eq!(read("<conclusion>No</conclusion>").map(|v| v.0), Ok(0.0));
        assert!(read("  ").is_err());
    }
}

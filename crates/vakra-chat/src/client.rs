//! Requests, retries and errors.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::reply::{Reply, excerpt};

/// When and how often a failed request is tried again.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Further attempts after the first (0: none).
    pub max_retries: u32,
    /// The wait before the first retry; it doubles each time.
    pub base_delay: Duration,
    /// No wait is longer, whatever `Retry-After` asks.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

/// Where the model is and how to ask it.
#[derive(Debug, Clone)]
pub struct ChatConfig {
    /// The API base, e.g. `http://127.0.0.1:8000/v1`; `/chat/completions` is appended.
    pub base_url: String,
    pub model: String,
    /// Sent as a bearer token when set; never logged.
    pub api_key: Option<String>,
    /// `temperature` in every request, when set.
    pub temperature: Option<f64>,
    /// The longest one request may take.
    pub request_timeout: Duration,
    pub retry: RetryPolicy,
    /// Answers longer than this are refused.
    pub max_answer_bytes: u64,
}

/// Why a request gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// An HTTP error status (after the retries, for 429 and 5xx).
    #[error("the model endpoint answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    /// No HTTP answer at all (after the retries).
    #[error("the model endpoint could not be reached: {0}")]
    Transport(String),
    #[error("the model endpoint did not answer within {0:?}")]
    Timeout(Duration),
    /// A 2xx answer that is not a Chat Completions answer.
    #[error("the model endpoint's answer is unusable: {0}")]
    BadReply(String),
}

impl ChatError {
    /// Whether trying again may help: rate limits, server errors, transport failures.
    fn is_transient(&self) -> bool {
        match self {
            ChatError::Status { status, .. } => *status == 429 || *status >= 500,
            ChatError::Transport(_) | ChatError::Timeout(_) => true,
            ChatError::BadReply(_) => false,
        }
    }
}

/// A client for one endpoint and model; cheap to clone.
#[derive(Clone)]
pub struct ChatClient {
    config: ChatConfig,
    url: String,
    agent: ureq::Agent,
}

/// A Chat Completions request body as the reference's runner (langchain-openai through the
/// `openai` client) writes it: `model`, `stream: false`, `messages`, `temperature` (when set),
/// `tools` (when there are any), compact, with non-ASCII text unescaped and numbers as Python
/// writes them; written without copying the conversation.
fn request_body(
    model: &str,
    messages: &[Value],
    tools: &[Value],
    temperature: Option<f64>,
) -> Result<String, vakra_pytext::DumpError> {
    let options = vakra_pytext::DumpOptions::compact_utf8();
    let mut body = String::from("{\"model\":");
    vakra_pytext::dump_to(&mut body, &Value::String(model.to_owned()), &options)?;
    body.push_str(",\"stream\":false,\"messages\":");
    write_list(&mut body, messages, &options)?;
    if let Some(temperature) = temperature {
        body.push_str(",\"temperature\":");
        body.push_str(&vakra_pytext::float_to_json(temperature, false)?);
    }
    if !tools.is_empty() {
        body.push_str(",\"tools\":");
        write_list(&mut body, tools, &options)?;
    }
    body.push('}');
    Ok(body)
}

fn write_list(
    out: &mut String,
    values: &[Value],
    options: &vakra_pytext::DumpOptions,
) -> Result<(), vakra_pytext::DumpError> {
    out.push('[');
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        vakra_pytext::dump_to(out, value, options)?;
    }
    out.push(']');
    Ok(())
}

/// One HTTP exchange's outcome: the status, `Retry-After` and the body.
struct Answer {
    status: u16,
    retry_after: Option<Duration>,
    body: String,
}

impl ChatClient {
    pub fn new(config: ChatConfig) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        Self { config, url, agent }
    }

    pub fn config(&self) -> &ChatConfig {
        &self.config
    }

    /// Asks the model for its next message. `tools` are OpenAI function definitions (none:
    /// the request has no `tools` key). Nothing is sent or waited for past `deadline`.
    pub async fn complete(
        &self,
        messages: &[Value],
        tools: &[Value],
        deadline: Option<Instant>,
    ) -> Result<Reply, ChatError> {
        let body: std::sync::Arc<str> =
            request_body(&self.config.model, messages, tools, self.config.temperature)
                .map_err(|e| ChatError::BadReply(format!("the request cannot be written: {e}")))?
                .into();
        let mut attempt = 0;
        let mut waited = Duration::ZERO;
        loop {
            let timeout = match deadline {
                Some(d) => self
                    .config
                    .request_timeout
                    .min(d.saturating_duration_since(Instant::now())),
                None => self.config.request_timeout,
            };
            if timeout.is_zero() {
                return Err(ChatError::Timeout(self.config.request_timeout));
            }
            let (client, request) = (self.clone(), std::sync::Arc::clone(&body));
            let sent = Instant::now();
            let outcome = tokio::task::spawn_blocking(move || client.post(&request, timeout))
                .await
                .unwrap_or_else(|e| Err(ChatError::Transport(format!("the request stopped: {e}"))));
            waited += sent.elapsed();
            let (error, retry_after) = match outcome {
                Ok(answer) if (200..300).contains(&answer.status) => {
                    let mut reply = Reply::parse(&answer.body).map_err(ChatError::BadReply)?;
                    reply.waited = waited;
                    return Ok(reply);
                }
                Ok(answer) => (
                    ChatError::Status {
                        status: answer.status,
                        body: excerpt(answer.body.trim()),
                    },
                    answer.retry_after,
                ),
                Err(error) => (error, None),
            };
            if !error.is_transient() || attempt >= self.config.retry.max_retries {
                return Err(error);
            }
            let backoff = self
                .config
                .retry
                .base_delay
                .saturating_mul(1 << attempt.min(16));
            let wait = retry_after
                .unwrap_or(backoff)
                .min(self.config.retry.max_delay);
            if deadline.is_some_and(|d| Instant::now() + wait >= d) {
                return Err(error);
            }
            tracing::debug!("model request failed ({error}); retrying in {wait:?}");
            tokio::time::sleep(wait).await;
            waited += wait;
            attempt += 1;
        }
    }

    /// One blocking POST.
    fn post(&self, body: &str, timeout: Duration) -> Result<Answer, ChatError> {
        let mut request = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("content-type", "application/json");
        if let Some(key) = &self.config.api_key {
            request = request.header("authorization", &format!("Bearer {key}"));
        }
        let mut response = request.send(body).map_err(|e| transport(e, timeout))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Duration::from_secs_f64(s.min(86_400.0)));
        let body = response
            .body_mut()
            .with_config()
            .limit(self.config.max_answer_bytes)
            .read_to_string()
            .map_err(|e| transport(e, timeout))?;
        Ok(Answer {
            status,
            retry_after,
            body,
        })
    }
}

fn transport(error: ureq::Error, timeout: Duration) -> ChatError {
    match error {
        ureq::Error::Timeout(_) => ChatError::Timeout(timeout),
        ureq::Error::BodyExceedsLimit(limit) => {
            ChatError::BadReply(format!("the answer is longer than {limit} bytes"))
        }
        other => ChatError::Transport(other.to_string()),
    }
}

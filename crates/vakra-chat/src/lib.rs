//! An OpenAI-compatible Chat Completions client, for every endpoint that speaks the protocol
//! (vLLM, SGLang, Ollama, llama.cpp's server, LiteLLM, hosted APIs).
//!
//! [`ChatClient::complete`] sends one request (messages, tool definitions) and returns the
//! assistant's message ([`Reply`]: content, tool calls with their raw argument text, token
//! usage). Transient failures — HTTP 429, 5xx and transport errors — are retried with
//! exponential backoff, waiting at least what a `Retry-After` header asks (capped); other 4xx
//! answers are returned at once. Answers are read up to a size cap, so a misbehaving endpoint
//! cannot make the caller hold unbounded memory. The API key is sent as a bearer token and never
//! appears in errors or logs.
//!
//! Requests are blocking ([`ureq`], with rustls for HTTPS) and run on tokio's blocking pool; each
//! has its own time limit, so a hanging endpoint frees its thread when the limit passes.

mod client;
mod reply;

pub use client::{ChatClient, ChatConfig, ChatError, RetryPolicy};
pub use reply::{Reply, ToolCall, Usage};

//! Reports for people: a Markdown summary and a self-contained HTML page (no network) with
//! per-domain tables, bar charts (inline SVG) and every sample's story (an embedded script);
//! and the comparison of two runs as text and as an HTML page.

mod board;
mod diff;
mod html;
mod markdown;
mod samples;

pub use board::{Run as BoardRun, board_html, board_markdown};
pub use diff::{diff_html, diff_markdown, diff_text};
pub use html::html;
pub use markdown::markdown;

use crate::intervals::{Interval, ScoreInterval};
use crate::report::{ReplayCounts, Report};

/// Escapes text for HTML content and attribute values.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A score in percent with two decimals, as the leaderboard prints it.
fn pct(score: f64) -> String {
    format!("{score:.2}")
}

/// An interval as `low–high`.
fn range(interval: &Interval) -> String {
    format!("{}–{}", pct(interval.low), pct(interval.high))
}

/// "95 % CI low–high (over trials too: low–high)" for a score's intervals, or "" without them.
pub fn interval_text(interval: Option<&ScoreInterval>) -> String {
    let Some(i) = interval else {
        return String::new();
    };
    let trials = i
        .trials
        .map(|t| format!(" (over trials too: {})", range(&t)))
        .unwrap_or_default();
    format!("95 % CI {}{trials}", range(&i.samples))
}

/// "A 95 % interval of ±1 point needs about N samples at this spread." when it can be said.
fn one_point_line(samples: Option<u64>) -> Option<String> {
    samples.map(|n| {
        format!("A 95 % interval of ±1 point would need about {n} samples at this spread.")
    })
}

/// One sentence on replay trouble (the report's `replay` counts), when there was any.
fn replay_trouble(report: &Report) -> Option<String> {
    let side = |name: &str, c: &ReplayCounts| {
        (c.unknown_tools + c.error_results + c.failures > 0).then(|| {
            format!(
                "{name} {} calls: {} to unknown tools, {} error answers, {} without an answer",
                c.calls, c.unknown_tools, c.error_results, c.failures
            )
        })
    };
    let sides: Vec<String> = [
        side("prediction", &report.replay.prediction),
        side("ground truth", &report.replay.ground_truth),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!sides.is_empty()).then(|| {
        format!(
            "Replay trouble (scored as is; see the samples' problems): {}.",
            sides.join("; ")
        )
    })
}

/// "Tokens: … in, … out (cost $…)." for a run's usage.
fn tokens_line(tokens: crate::trials::Tokens, cost_usd: Option<f64>) -> String {
    let cost = cost_usd
        .map(|c| format!(", cost ${c:.4}"))
        .unwrap_or_default();
    format!(
        "Tokens: {} in, {} out{cost}.",
        tokens.input_tokens, tokens.output_tokens
    )
}

//! Reports for people: a Markdown summary and a self-contained HTML page with per-domain tables
//! and bar charts (inline SVG, no scripts or network).

mod html;
mod markdown;

pub use html::html;
pub use markdown::markdown;

/// A score in percent with two decimals, as the leaderboard prints it.
fn pct(score: f64) -> String {
    format!("{score:.2}")
}

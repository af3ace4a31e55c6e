//! A board of runs (`vakra eval board REPORT...`): several reports side by side — the leaderboard
//! score with its interval, each capability's and domain's score, tokens, cost and latency — and
//! a cost–score plot (inline SVG), as one self-contained HTML page or as Markdown.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::{esc, interval_text, pct};
use crate::report::Report;

/// One run of the board: its name (the report's file name, as given) and its report.
pub struct Run {
    pub name: String,
    pub report: Report,
}

/// The capabilities any run evaluated, in order.
fn capabilities(runs: &[Run]) -> Vec<String> {
    let keys: BTreeSet<&String> = runs
        .iter()
        .flat_map(|r| r.report.capabilities.keys())
        .collect();
    keys.into_iter().cloned().collect()
}

/// Every (capability, domain) any run scored, in order.
fn domains(runs: &[Run]) -> Vec<(String, String)> {
    let keys: BTreeSet<(String, String)> = runs
        .iter()
        .flat_map(|r| {
            r.report
                .capabilities
                .iter()
                .flat_map(|(n, c)| c.domains.keys().map(move |d| (n.clone(), d.clone())))
        })
        .collect();
    keys.into_iter().collect()
}

fn capability_cell(run: &Run, n: &str) -> (String, String) {
    match run.report.capabilities.get(n) {
        Some(c) => (pct(c.score), interval_text(c.interval.as_ref())),
        None => ("—".into(), String::new()),
    }
}

fn domain_cell(run: &Run, n: &str, domain: &str) -> String {
    run.report
        .capabilities
        .get(n)
        .and_then(|c| c.domains.get(domain))
        .map_or_else(
            || "—".into(),
            |b| format!("{} ({}/{})", pct(b.score), b.n_correct, b.n_samples),
        )
}

fn tokens_cells(run: &Run) -> [String; 4] {
    let r = &run.report;
    [
        r.tokens
            .map_or_else(|| "—".into(), |t| t.input_tokens.to_string()),
        r.tokens
            .map_or_else(|| "—".into(), |t| t.output_tokens.to_string()),
        r.cost_usd.map_or_else(|| "—".into(), |c| format!("{c:.4}")),
        r.latency
            .map_or_else(|| "—".into(), |l| format!("{:.2}", l.mean_s)),
    ]
}

/// The board as Markdown.
pub fn board_markdown(runs: &[Run]) -> String {
    let caps = capabilities(runs);
    let mut out = String::from("# VAKRA board\n\n");
    let _ = write!(out, "| run | leaderboard score | 95 % CI |");
    for n in &caps {
        let _ = write!(out, " capability {n} |");
    }
    out.push_str(" input tokens | output tokens | cost ($) | mean latency (s) |\n|---|---:|---|");
    out.push_str(&"---:|".repeat(caps.len() + 4));
    out.push('\n');
    for run in runs {
        let r = &run.report;
        let _ = write!(
            out,
            "| `{}` | {} | {} |",
            run.name,
            pct(r.leaderboard_score),
            interval_text(r.leaderboard_interval.as_ref())
        );
        for n in &caps {
            let (score, interval) = capability_cell(run, n);
            let _ = write!(out, " {score} {interval} |");
        }
        for cell in tokens_cells(run) {
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out.push_str("\n## Domains\n\n| capability | domain |");
    for run in runs {
        let _ = write!(out, " `{}` |", run.name);
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---:|".repeat(runs.len()));
    out.push('\n');
    for (n, domain) in domains(runs) {
        let _ = write!(out, "| {n} | {domain} |");
        for run in runs {
            let _ = write!(out, " {} |", domain_cell(run, &n, &domain));
        }
        out.push('\n');
    }
    out
}

/// The plot's x value of a run: its cost in dollars, else its total tokens, else none.
fn spend(run: &Run, by_cost: bool) -> Option<f64> {
    if by_cost {
        run.report.cost_usd
    } else {
        run.report
            .tokens
            .map(|t| (t.input_tokens + t.output_tokens) as f64)
    }
}

/// The cost–score plot: one point per run (x cost, or tokens when no run has a cost; y the
/// leaderboard score) with its interval as a vertical bar.
fn plot(runs: &[Run]) -> String {
    let by_cost = runs.iter().any(|r| r.report.cost_usd.is_some());
    let axis = if by_cost { "cost ($)" } else { "tokens" };
    let points: Vec<(&Run, f64)> = runs
        .iter()
        .filter_map(|r| spend(r, by_cost).map(|x| (r, x)))
        .collect();
    let (width, height, margin) = (640.0, 360.0, 56.0);
    let max_x = points.iter().map(|(_, x)| *x).fold(0.0, f64::max);
    let max_x = if max_x > 0.0 { max_x * 1.1 } else { 1.0 };
    let x_of = |x: f64| margin + (width - 2.0 * margin) * x / max_x;
    let y_of = |y: f64| height - margin - (height - 2.0 * margin) * y.clamp(0.0, 100.0) / 100.0;
    let mut out = format!(
        "<svg id=cost-score class=plot width='{width}' height='{height}' viewBox='0 0 {width} {height}' role=img aria-label='Leaderboard score against {axis}'>\
<line class=axis x1='{margin}' y1='{b}' x2='{r}' y2='{b}'/><line class=axis x1='{margin}' y1='{margin}' x2='{margin}' y2='{b}'/>\
<text x='{cx}' y='{ly}' text-anchor=middle>{axis}</text><text x='14' y='{cy}' transform='rotate(-90 14 {cy})' text-anchor=middle>leaderboard score</text>",
        b = height - margin,
        r = width - margin,
        cx = width / 2.0,
        ly = height - 16.0,
        cy = height / 2.0,
    );
    for tick in [0.0, 50.0, 100.0] {
        let _ = write!(
            out,
            "<text class=tick x='{}' y='{}' text-anchor=end>{tick:.0}</text>",
            margin - 6.0,
            y_of(tick) + 4.0
        );
    }
    let _ = write!(
        out,
        "<text class=tick x='{}' y='{}' text-anchor=end>{}</text>",
        width - margin,
        height - margin + 16.0,
        if by_cost {
            format!("{max_x:.4}")
        } else {
            format!("{max_x:.0}")
        }
    );
    for (run, x) in &points {
        let r = &run.report;
        let (cx, cy) = (x_of(*x), y_of(r.leaderboard_score));
        if let Some(i) = &r.leaderboard_interval {
            let _ = write!(
                out,
                "<line class=ci x1='{cx:.1}' y1='{:.1}' x2='{cx:.1}' y2='{:.1}'/>",
                y_of(i.samples.low),
                y_of(i.samples.high)
            );
        }
        let _ = write!(
            out,
            "<circle class=run data-run=\"{name}\" cx='{cx:.1}' cy='{cy:.1}' r='6'><title>{name}: {score} at {x}</title></circle><text class=label x='{lx:.1}' y='{ly:.1}'>{name}</text>",
            name = esc(&run.name),
            score = pct(r.leaderboard_score),
            lx = cx + 9.0,
            ly = cy - 8.0,
        );
    }
    out.push_str("</svg>");
    let unplotted: Vec<&str> = runs
        .iter()
        .filter(|r| spend(r, by_cost).is_none())
        .map(|r| r.name.as_str())
        .collect();
    if !unplotted.is_empty() {
        let _ = write!(
            out,
            "<p class=meta id=unplotted>Not plotted (no {axis}): {}.</p>",
            esc(&unplotted.join(", "))
        );
    }
    out
}

const BOARD_STYLE: &str = "svg.plot{display:block;margin:1em 0;background:#fff;overflow:visible}\
.axis{stroke:#444;stroke-width:1}.ci{stroke:#2b6cb0;stroke-width:2}circle.run{fill:#2b6cb0}\
text{font:12px sans-serif;fill:#222}td.ci{color:#555;font-size:90%}";

/// The board as one self-contained HTML page (no script, no network).
pub fn board_html(runs: &[Run]) -> String {
    let caps = capabilities(runs);
    let mut out = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>VAKRA board</title><style>{}{BOARD_STYLE}</style></head><body><h1>VAKRA board</h1>",
        super::html::STYLE
    );
    out.push_str(
        "<table id=runs><thead><tr><th>run</th><th>leaderboard score</th><th>95 % CI</th>",
    );
    for n in &caps {
        let _ = write!(out, "<th>capability {n}</th>");
    }
    out.push_str("<th>input tokens</th><th>output tokens</th><th>cost ($)</th><th>mean latency (s)</th></tr></thead><tbody>");
    for run in runs {
        let r = &run.report;
        let _ = write!(
            out,
            "<tr data-run=\"{name}\"><td><code>{name}</code></td><td class=num>{}</td><td class=ci>{}</td>",
            pct(r.leaderboard_score),
            esc(&interval_text(r.leaderboard_interval.as_ref())),
            name = esc(&run.name),
        );
        for n in &caps {
            let (score, interval) = capability_cell(run, n);
            let _ = write!(
                out,
                "<td class=num>{score}<br><span class=ci>{}</span></td>",
                esc(&interval)
            );
        }
        for cell in tokens_cells(run) {
            let _ = write!(out, "<td class=num>{cell}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table><h2>Cost and score</h2>");
    out.push_str(&plot(runs));
    out.push_str("<h2>Domains</h2><table id=domains><thead><tr><th>capability</th><th>domain</th>");
    for run in runs {
        let _ = write!(out, "<th><code>{}</code></th>", esc(&run.name));
    }
    out.push_str("</tr></thead><tbody>");
    let mut by_capability: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (n, domain) in domains(runs) {
        by_capability.entry(n).or_default().push(domain);
    }
    for (n, list) in &by_capability {
        for domain in list {
            let _ = write!(out, "<tr><td>{}</td><td>{}</td>", esc(n), esc(domain));
            for run in runs {
                let _ = write!(
                    out,
                    "<td class=num>{}</td>",
                    esc(&domain_cell(run, n, domain))
                );
            }
            out.push_str("</tr>");
        }
    }
    out.push_str("</tbody></table></body></html>\n");
    out
}

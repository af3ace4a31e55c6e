use std::collections::BTreeMap;
use std::fmt::Write;

use super::{esc, interval_text, one_point_line, pct};
use crate::report::{Breakdown, Report};

/// A horizontal bar chart of scores (0–100), one bar per row, as inline SVG.
fn bar_chart(title: &str, rows: &[(String, f64)]) -> String {
    let (label_width, bar_width, row_height) = (220.0, 420.0, 24.0);
    let height = row_height * rows.len() as f64 + 34.0;
    let mut svg = format!(
        r#"<svg class="chart" role="img" aria-label="{t}" width="{w}" height="{height}" viewBox="0 0 {w} {height}"><text x="0" y="16" class="chart-title">{t}</text>"#,
        t = esc(title),
        w = label_width + bar_width + 70.0,
    );
    for (i, (label, score)) in rows.iter().enumerate() {
        let y = 28.0 + row_height * i as f64;
        let width = bar_width * score.clamp(0.0, 100.0) / 100.0;
        let _ = write!(
            svg,
            r#"<text x="{lx}" y="{ty}" text-anchor="end">{label}</text><rect x="{label_width}" y="{y}" width="{bar_width}" height="18" class="track"/><rect x="{label_width}" y="{y}" width="{width:.1}" height="18" class="bar"/><text x="{vx}" y="{ty}">{value}</text>"#,
            lx = label_width - 8.0,
            ty = y + 14.0,
            label = esc(label),
            vx = label_width + bar_width + 6.0,
            value = pct(*score),
        );
    }
    svg.push_str("</svg>");
    svg
}

fn table(title: &str, rows: &BTreeMap<String, Breakdown>) -> String {
    let mut out = format!(
        "<table><thead><tr><th>{}</th><th>score</th><th>correct</th><th>samples</th></tr></thead><tbody>",
        esc(title)
    );
    for (key, b) in rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{}</td></tr>",
            esc(key),
            pct(b.score),
            b.n_correct,
            b.n_samples
        );
    }
    out.push_str("</tbody></table>");
    out
}

pub(super) const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2330;max-width:1100px}\
h1{margin-bottom:.2rem}.headline{font-size:2.4rem;font-weight:700;color:#0b5cad}\
table{border-collapse:collapse;margin:.6rem 0 1.4rem}th,td{border:1px solid #cfd6e2;padding:.3rem .7rem}\
th{background:#eef2f8;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}\
.chart text{font-size:13px;fill:#1d2330}.chart .chart-title{font-weight:600}.track{fill:#e8edf5}.bar{fill:#2f7ae5}\
.warn{background:#fff6d6;border-left:4px solid #e0b100;padding:.5rem .8rem}\
.meta{color:#566}\
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:.5rem 0}.filters input{width:16rem}\
#sample-table{width:100%;font-size:.9rem}.sample-row{cursor:pointer}.sample-row:hover,.sample-row.open{background:#f3f6fb}\
.sample-row.fail .verdict,.verdict-word.fail,tr.fail>td:nth-child(2){color:#a11;font-weight:600}\
.sample-row.pass .verdict,.verdict-word.pass,tr.pass>td:nth-child(2){color:#17702f;font-weight:600}\
.story>td{background:#fafbfd}.story pre{line-height:1.4;white-space:pre-wrap;word-break:break-word;margin:.2rem 0;max-height:18rem;overflow:auto}\
.answers{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.question{font-style:italic}\
.calls{width:100%;table-layout:fixed}.calls td{vertical-align:top}.calls th:first-child{width:2rem}\
.differs{background:#fff0f0}.missing{background:#fff0f0}.found{background:#effaf1}.mark{font-size:.8rem;color:#566}";

/// The report as one self-contained HTML page.
pub fn html(report: &Report) -> String {
    let mut out = String::from("<!doctype html><html lang=en><head><meta charset=utf-8>");
    let _ = write!(
        out,
        "<title>VAKRA evaluation</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(
        out,
        "<h1>VAKRA evaluation</h1><p>Leaderboard score</p><p class=headline id=leaderboard>{}</p><p class=meta id=leaderboard-interval>{}</p>",
        pct(report.leaderboard_score),
        esc(&interval_text(report.leaderboard_interval.as_ref()))
    );
    let s = &report.settings;
    let _ = write!(
        out,
        "<p class=meta>Replay {}, {} sessions; exact match {}; policy judge {}; answers judged {}; groundedness judged {}; {} samples in {:.1} s.</p>",
        esc(&s.replay),
        esc(&s.sessions),
        s.exact_match,
        if s.policy_judge { "on" } else { "off" },
        esc(&s.answer_judge),
        esc(&s.groundedness_judge),
        report.timing.samples,
        report.timing.seconds
    );
    if let Some(record) = &report.comparability {
        let _ = write!(
            out,
            "<p class=meta id=comparability>The run is {}.</p>",
            esc(&record.summary())
        );
    }
    if let Some(tokens) = report.tokens {
        let _ = write!(
            out,
            "<p class=meta id=tokens>{}</p>",
            esc(&super::tokens_line(tokens, report.cost_usd))
        );
    }
    for warning in &report.warnings {
        let _ = write!(out, "<p class=warn>{}</p>", esc(warning));
    }
    if let Some(trouble) = super::replay_trouble(report) {
        let _ = write!(out, "<p class=meta id=replay>{}</p>", esc(&trouble));
    }
    let capabilities: Vec<(String, f64)> = report
        .capabilities
        .iter()
        .map(|(n, c)| (format!("capability {n}"), c.score))
        .collect();
    out.push_str(&bar_chart("Score by capability", &capabilities));
    for (n, c) in &report.capabilities {
        let _ = write!(
            out,
            "<section id=capability-{n}><h2>Capability {n}: {}</h2><p>Score <b>{}</b> ({} of {} correct",
            esc(&c.name),
            pct(c.score),
            c.n_correct,
            c.n_scored()
        );
        if c.score != c.unweighted_score {
            let _ = write!(out, "; unweighted {}", pct(c.unweighted_score));
        }
        let _ = write!(
            out,
            "; {} predictions missing).</p>",
            c.missing_prediction_uuids.len()
        );
        let _ = write!(
            out,
            "<p class=meta id=interval-{n}>{}",
            esc(&interval_text(c.interval.as_ref()))
        );
        if let Some(line) = one_point_line(c.samples_for_one_point) {
            let _ = write!(out, " {}", esc(&line));
        }
        out.push_str("</p>");
        if let Some(trials) = &c.trials {
            let _ = write!(
                out,
                "<table class=trials><thead><tr><th>k of {} trials</th><th>pass^k</th><th>pass@k</th></tr></thead><tbody>",
                trials.trials
            );
            for (k, hat) in &trials.pass_hat_k {
                let _ = write!(
                    out,
                    "<tr><td class=num>{k}</td><td class=num>{}</td><td class=num>{}</td></tr>",
                    pct(*hat),
                    pct(trials.pass_at_k[k])
                );
            }
            out.push_str("</tbody></table>");
        }
        if let Some(tokens) = c.tokens {
            let _ = write!(
                out,
                "<p class=meta>{}</p>",
                esc(&super::tokens_line(tokens, c.cost_usd))
            );
        }
        let domains: Vec<(String, f64)> = c
            .domains
            .iter()
            .map(|(d, b)| (d.clone(), b.score))
            .collect();
        out.push_str(&bar_chart("Score by domain", &domains));
        out.push_str(&table("domain", &c.domains));
        out.push_str(&table("hops", &c.by_hops));
        if !c.by_source.is_empty() {
            out.push_str(&table("source", &c.by_source));
        }
        if !c.errors.is_empty() {
            out.push_str("<table><thead><tr><th>first failing stage</th><th>samples</th></tr></thead><tbody>");
            for (stage, count) in &c.errors {
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td class=num>{count}</td></tr>",
                    esc(stage)
                );
            }
            out.push_str("</tbody></table>");
        }
        out.push_str("</section>");
    }
    out.push_str(&super::samples::explorer(report));
    if !report.problems.is_empty() {
        out.push_str("<h2>Problems</h2><ul>");
        for p in &report.problems {
            let _ = write!(
                out,
                "<li><code>{}</code>: {}</li>",
                esc(&p.file),
                esc(&p.message)
            );
        }
        out.push_str("</ul>");
    }
    out.push_str("</body></html>\n");
    out
}

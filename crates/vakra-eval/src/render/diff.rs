//! Two runs compared ([`crate::diff`]), for people: a text summary for the terminal and a
//! self-contained HTML page.

use std::fmt::Write;

use super::{esc, pct, range};
use crate::diff::{ChangedSample, Delta, Diff, Verdict};
use crate::intervals::Paired;

fn signed(delta: f64) -> String {
    format!("{delta:+.2}")
}

fn counted(delta: &Delta) -> String {
    format!("{} → {} ({:+})", delta.a, delta.b, delta.delta)
}

fn verdict(v: &Verdict) -> String {
    let mut out = if v.score == 1.0 { "pass" } else { "fail" }.to_owned();
    if let Some(stage) = &v.error_stage {
        let _ = write!(out, " ({stage})");
    }
    out
}

fn decided(v: &Verdict) -> String {
    v.decided_by
        .as_ref()
        .map(|d| format!("{} ({})", d.judge, d.method))
        .unwrap_or_default()
}

/// A p-value: four decimals, or "< 0.0001".
fn p_value(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else {
        format!("{p:.4}")
    }
}

/// One sentence on a paired difference: its interval, the tests and the samples a 1-point
/// difference needs.
pub fn paired_text(p: &Paired) -> String {
    let mut out = format!(
        "paired on {} samples: B − A = {} points, 95 % CI {}; paired bootstrap p = {}",
        p.n_pairs,
        signed(p.difference),
        range(&p.interval),
        p_value(p.bootstrap_p)
    );
    if let Some(m) = &p.mcnemar {
        let _ = write!(
            out,
            "; McNemar p = {} ({} fixed, {} broken)",
            p_value(m.p),
            m.fixed,
            m.broken
        );
    }
    if let Some(n) = p.samples_for_one_point {
        let _ = write!(
            out,
            "; a 1-point difference needs about {n} samples (80 % power, 5 % level)"
        );
    }
    out
}

/// The comparison as Markdown: scores with their paired differences, domains that moved, error
/// categories and the samples whose verdict changed.
pub fn diff_markdown(diff: &Diff) -> String {
    let mut out = String::from("# Run against run\n\n");
    let l = &diff.leaderboard_score;
    let _ = writeln!(
        out,
        "A: `{}`  \nB: `{}`\n\n**Leaderboard score {} → {} ({})**\n",
        diff.a,
        diff.b,
        pct(l.a),
        pct(l.b),
        signed(l.delta)
    );
    if let Some(p) = &diff.paired {
        let _ = writeln!(out, "{}.\n", paired_text(p));
    }
    out.push_str("| capability | A | B | delta | paired difference (95 % CI) | bootstrap p | McNemar p |\n|---|---:|---:|---:|---|---:|---:|\n");
    for (n, c) in &diff.capabilities {
        let (difference, bootstrap, mcnemar) = c.paired.as_ref().map_or_else(
            || ("no shared samples".to_owned(), String::new(), String::new()),
            |p| {
                (
                    format!("{} ({})", signed(p.difference), range(&p.interval)),
                    p_value(p.bootstrap_p),
                    p.mcnemar.map(|m| p_value(m.p)).unwrap_or_default(),
                )
            },
        );
        let _ = writeln!(
            out,
            "| {n} | {} | {} | {} | {difference} | {bootstrap} | {mcnemar} |",
            pct(c.score.a),
            pct(c.score.b),
            signed(c.score.delta)
        );
    }
    let s = &diff.summary;
    let _ = writeln!(
        out,
        "\n## Verdicts that changed\n\n{} broken, {} fixed, {} unchanged.\n",
        s.broken, s.fixed, s.unchanged
    );
    if !diff.changed.is_empty() {
        out.push_str(
            "| change | capability | domain | uuid | A | B |\n|---|---|---|---|---|---|\n",
        );
        for c in &diff.changed {
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` | {} | {} |",
                c.change,
                c.capability,
                c.domain,
                c.uuid,
                verdict(&c.a),
                verdict(&c.b)
            );
        }
    }
    out
}

/// The comparison as text.
pub fn diff_text(diff: &Diff) -> String {
    let mut out = String::new();
    let l = &diff.leaderboard_score;
    let _ = writeln!(
        out,
        "A: {}\nB: {}\nleaderboard score {} → {} ({})",
        diff.a,
        diff.b,
        pct(l.a),
        pct(l.b),
        signed(l.delta)
    );
    if let Some(p) = &diff.paired {
        let _ = writeln!(out, "  {}", paired_text(p));
    }
    for (n, c) in &diff.capabilities {
        let _ = writeln!(
            out,
            "capability {n}: {} → {} ({}); samples {} → {}",
            pct(c.score.a),
            pct(c.score.b),
            signed(c.score.delta),
            c.n_samples.0,
            c.n_samples.1
        );
        if let Some(p) = &c.paired {
            let _ = writeln!(out, "  {}", paired_text(p));
        }
        for (domain, d) in c.domains.iter().filter(|(_, d)| d.delta != 0.0) {
            let _ = writeln!(
                out,
                "  domain {domain}: {} → {} ({})",
                pct(d.a),
                pct(d.b),
                signed(d.delta)
            );
        }
        for (stage, d) in &c.errors {
            let _ = writeln!(out, "  errors {stage}: {}", counted(d));
        }
    }
    let s = &diff.summary;
    let _ = writeln!(
        out,
        "verdicts changed: {} ({} broken, {} fixed; {} unchanged)",
        diff.changed.len(),
        s.broken,
        s.fixed,
        s.unchanged
    );
    for c in &diff.changed {
        let _ = writeln!(
            out,
            "  {:<6}  capability {}  {}  {}  {} → {}",
            c.change,
            c.capability,
            c.domain,
            c.uuid,
            verdict(&c.a),
            verdict(&c.b)
        );
    }
    for (label, keys) in [
        ("only in A", &diff.only_in_a),
        ("only in B", &diff.only_in_b),
    ] {
        if !keys.is_empty() {
            let _ = writeln!(out, "{label}: {} samples", keys.len());
        }
    }
    out
}

fn delta_cell(delta: f64) -> String {
    let class = if delta > 0.0 {
        "up"
    } else if delta < 0.0 {
        "down"
    } else {
        "same"
    };
    format!("<td class='num {class}'>{}</td>", signed(delta))
}

fn changed_row(c: &ChangedSample) -> String {
    format!(
        "<tr class='{change}' data-uuid='{uuid}'><td>{change}</td><td>{cap}</td><td>{domain}</td><td><code>{uuid}</code></td><td>{a}</td><td>{b}</td><td>{da}</td><td>{db}</td></tr>",
        change = esc(&c.change),
        cap = esc(&c.capability),
        domain = esc(&c.domain),
        uuid = esc(&c.uuid),
        a = esc(&verdict(&c.a)),
        b = esc(&verdict(&c.b)),
        da = esc(&decided(&c.a)),
        db = esc(&decided(&c.b)),
    )
}

/// The comparison as one self-contained HTML page.
pub fn diff_html(diff: &Diff) -> String {
    let mut out = format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>VAKRA run against run</title><style>{}\
.up{{color:#17702f}}.down{{color:#a11}}tr.broken td:first-child{{color:#a11;font-weight:600}}tr.fixed td:first-child{{color:#17702f;font-weight:600}}</style></head><body>",
        super::html::STYLE
    );
    let l = &diff.leaderboard_score;
    let _ = write!(
        out,
        "<h1>Run against run</h1><p class=meta>A: <code>{}</code><br>B: <code>{}</code></p>\
<p>Leaderboard score <b>{}</b> → <b id=leaderboard-b>{}</b> (<span id=leaderboard-delta>{}</span>)</p>",
        esc(&diff.a),
        esc(&diff.b),
        pct(l.a),
        pct(l.b),
        signed(l.delta)
    );
    if let Some(p) = &diff.paired {
        let _ = write!(out, "<p class=meta id=paired>{}.</p>", esc(&paired_text(p)));
    }
    out.push_str("<h2>Capabilities</h2><table id=capabilities><thead><tr><th>capability</th><th>A</th><th>B</th><th>delta</th><th>samples A</th><th>samples B</th><th>paired comparison</th></tr></thead><tbody>");
    for (n, c) in &diff.capabilities {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=num>{}</td><td class=num>{}</td>{}<td class=num>{}</td><td class=num>{}</td><td class=paired>{}</td></tr>",
            esc(n),
            pct(c.score.a),
            pct(c.score.b),
            delta_cell(c.score.delta),
            c.n_samples.0,
            c.n_samples.1,
            esc(&c.paired.as_ref().map(paired_text).unwrap_or_default())
        );
    }
    out.push_str("</tbody></table><h2>Domains</h2><table id=domains><thead><tr><th>capability</th><th>domain</th><th>A</th><th>B</th><th>delta</th></tr></thead><tbody>");
    for (n, c) in &diff.capabilities {
        for (domain, d) in &c.domains {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=num>{}</td><td class=num>{}</td>{}</tr>",
                esc(n),
                esc(domain),
                pct(d.a),
                pct(d.b),
                delta_cell(d.delta)
            );
        }
    }
    out.push_str("</tbody></table><h2>Error categories that moved</h2><table id=errors><thead><tr><th>capability</th><th>error category</th><th>A</th><th>B</th><th>delta</th></tr></thead><tbody>");
    for (n, c) in &diff.capabilities {
        for (stage, d) in &c.errors {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=num>{}</td><td class=num>{}</td><td class=num>{:+}</td></tr>",
                esc(n),
                esc(stage),
                d.a,
                d.b,
                d.delta
            );
        }
    }
    let s = &diff.summary;
    let _ = write!(
        out,
        "</tbody></table><h2>Verdicts that changed</h2><p id=summary>{} broken, {} fixed, {} unchanged.</p>\
<table id=changed><thead><tr><th>change</th><th>capability</th><th>domain</th><th>uuid</th><th>A</th><th>B</th><th>decided by in A</th><th>decided by in B</th></tr></thead><tbody>",
        s.broken, s.fixed, s.unchanged
    );
    for c in &diff.changed {
        out.push_str(&changed_row(c));
    }
    out.push_str("</tbody></table>");
    for (label, keys) in [
        ("Only in A", &diff.only_in_a),
        ("Only in B", &diff.only_in_b),
    ] {
        if !keys.is_empty() {
            let _ = write!(out, "<h2>{label}</h2><ul>");
            for k in keys {
                let _ = write!(
                    out,
                    "<li>capability {} <code>{}</code></li>",
                    esc(&k.capability),
                    esc(&k.uuid)
                );
            }
            out.push_str("</ul>");
        }
    }
    out.push_str("</body></html>\n");
    out
}

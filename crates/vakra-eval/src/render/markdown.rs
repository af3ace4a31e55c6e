use std::fmt::Write;

use super::{interval_text, one_point_line, pct};
use crate::report::Report;

/// The report as Markdown: the headline scores, then per capability its domains, hops, sources
/// and error stages.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# VAKRA evaluation\n");
    let _ = writeln!(
        out,
        "**Leaderboard score: {}** {}\n",
        pct(report.leaderboard_score),
        interval_text(report.leaderboard_interval.as_ref())
    );
    if let Some(record) = &report.comparability {
        let _ = writeln!(out, "The run is {}.\n", record.summary());
    }
    let _ = writeln!(
        out,
        "| capability | score | interval | correct | samples | missing predictions |"
    );
    let _ = writeln!(out, "|---|---:|---|---:|---:|---:|");
    for (n, c) in &report.capabilities {
        let _ = writeln!(
            out,
            "| {n} `{}` | {} | {} | {} | {} | {} |",
            c.name,
            pct(c.score),
            interval_text(c.interval.as_ref()),
            c.n_correct,
            c.n_scored(),
            c.missing_prediction_uuids.len()
        );
    }
    let s = &report.settings;
    let _ = writeln!(
        out,
        "\nReplay: {}, {} sessions; exact match: {}; policy judge: {}; answers: {}; groundedness: {}; {} samples in {:.1} s.\n",
        s.replay,
        s.sessions,
        s.exact_match,
        if s.policy_judge { "on" } else { "off" },
        s.answer_judge,
        s.groundedness_judge,
        report.timing.samples,
        report.timing.seconds
    );
    if let Some(tokens) = report.tokens {
        let _ = writeln!(out, "{}\n", super::tokens_line(tokens, report.cost_usd));
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "> {warning}\n");
    }
    if let Some(trouble) = super::replay_trouble(report) {
        let _ = writeln!(out, "{trouble}\n");
    }
    for (n, c) in &report.capabilities {
        let _ = writeln!(out, "## Capability {n}: {}\n", c.name);
        if let Some(line) = one_point_line(c.samples_for_one_point) {
            let _ = writeln!(out, "{line}\n");
        }
        if c.score != c.unweighted_score {
            let _ = writeln!(
                out,
                "Score {} (multi-source samples weigh double); unweighted {}.\n",
                pct(c.score),
                pct(c.unweighted_score)
            );
        }
        if let Some(trials) = &c.trials {
            let _ = writeln!(
                out,
                "{} trials per sample.\n\n| k | pass^k | pass@k |\n|---:|---:|---:|",
                trials.trials
            );
            for (k, hat) in &trials.pass_hat_k {
                let _ = writeln!(
                    out,
                    "| {k} | {} | {} |",
                    pct(*hat),
                    pct(trials.pass_at_k[k])
                );
            }
            out.push('\n');
        }
        if let Some(tokens) = c.tokens {
            let _ = writeln!(out, "{}\n", super::tokens_line(tokens, c.cost_usd));
        }
        for (title, rows) in [
            ("domain", &c.domains),
            ("hops", &c.by_hops),
            ("source", &c.by_source),
        ] {
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "| {title} | score | correct | samples |\n|---|---:|---:|---:|"
            );
            for (key, b) in rows {
                let _ = writeln!(
                    out,
                    "| {key} | {} | {} | {} |",
                    pct(b.score),
                    b.n_correct,
                    b.n_samples
                );
            }
            out.push('\n');
        }
        if !c.errors.is_empty() {
            let _ = writeln!(out, "| first failing stage | samples |\n|---|---:|");
            for (stage, count) in &c.errors {
                let _ = writeln!(out, "| {stage} | {count} |");
            }
            out.push('\n');
        }
    }
    if !report.problems.is_empty() {
        let _ = writeln!(out, "## Problems\n");
        for p in &report.problems {
            let uuid = p
                .uuid
                .as_deref()
                .map(|u| format!(" ({u})"))
                .unwrap_or_default();
            let _ = writeln!(out, "- `{}`{uuid}: {}", p.file, p.message);
        }
    }
    out
}

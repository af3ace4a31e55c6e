//! What `vakra eval` and its `diff` and `merge` write: report files (their folders created)
//! and the summary printed.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use vakra_eval::render::interval_text;

/// Writes the report (JSON, and Markdown and HTML when asked) and prints its summary.
pub(crate) fn publish(
    report: &vakra_eval::Report,
    json: &Path,
    markdown: Option<&Path>,
    html: Option<&Path>,
) -> anyhow::Result<()> {
    write(json, &(serde_json::to_string_pretty(report)? + "\n"))?;
    if let Some(path) = markdown {
        write(path, &vakra_eval::render::markdown(report))?;
    }
    if let Some(path) = html {
        write(path, &vakra_eval::render::html(report))?;
    }
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    if !report.problems.is_empty() {
        eprintln!(
            "{} problems with the input (listed in the report)",
            report.problems.len()
        );
    }
    println!(
        "leaderboard score {:.2} {}",
        report.leaderboard_score,
        interval_text(report.leaderboard_interval.as_ref())
    );
    for (n, capability) in &report.capabilities {
        println!(
            "capability {n} ({}): {:.2} ({} of {} correct) {}",
            capability.name,
            capability.score,
            capability.n_correct,
            capability.n_scored(),
            interval_text(capability.interval.as_ref())
        );
        if let Some(trials) = &capability.trials {
            let row = |values: &BTreeMap<usize, f64>| {
                values
                    .iter()
                    .map(|(k, v)| format!("{k}: {v:.2}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            println!("  pass^k {}", row(&trials.pass_hat_k));
            println!("  pass@k {}", row(&trials.pass_at_k));
        }
    }
    Ok(())
}

/// A report of `vakra eval` read from `path`.
pub(crate) fn read(path: &Path) -> anyhow::Result<vakra_eval::Report> {
    let text = vakra_records::records::read_text(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{}: not a report of `vakra eval`", path.display()))
}

/// Writes a report file, creating its folder.
pub(crate) fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

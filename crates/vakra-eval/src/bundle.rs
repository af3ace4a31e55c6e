//! The leaderboard submission bundle: what the public leaderboard's submission template asks
//! for — a ZIP of the JSON outputs and a metadata JSON — written from validated prediction
//! files, so that a run goes to a submission with no hand work.
//!
//! The bundle folder holds:
//! - `predictions.zip`: `capability_<n>_<name>/<domain>.json` for every file, under the
//!   benchmark's folder names whatever the run's folders were called (the reference runner
//!   writes `capability_2_mar_22_11_30am`), the files' bytes as they are; entries sorted and
//!   dated 1980-01-01, so the same files give the same ZIP;
//! - `metadata.json`: the template's fields (agent name, maintainer, models, description),
//!   the caller's extra metadata, the vakra version, the ZIP's SHA-256 and size, per capability
//!   the folder, the domains with their record counts and SHA-256, and, when a report of the
//!   same predictions is given, its scores;
//! - `submission.md`: the template's fields filled in, to paste into the submission issue.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use vakra_records::{RunFile, benchmark_dir};

/// The ZIP's name inside the bundle folder.
pub const ZIP_NAME: &str = "predictions.zip";

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("{0}: not in a capability_<n>_<name> folder, so its capability is unknown")]
    NoCapability(String),
    #[error("{0} and {1} are both capability {2}'s {3}.json; give one run per capability")]
    Duplicate(String, String, u8, String),
    #[error("no prediction files to bundle")]
    Empty,
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Zip { path: String, message: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BundleError + '_ {
    move |source| BundleError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// What the submission template asks about the agent.
#[derive(Debug, Clone, Serialize)]
pub struct AgentInfo {
    pub agent_name: String,
    pub maintainer: String,
    pub models: Vec<String>,
    pub description: String,
    /// Further structured metadata (the template's "Metadata (JSON)").
    pub metadata: Value,
}

/// `metadata.json`.
#[derive(Debug, Clone, Serialize)]
pub struct BundleMetadata {
    #[serde(flatten)]
    pub agent: AgentInfo,
    pub vakra_version: String,
    pub zip: ZipInfo,
    pub capabilities: BTreeMap<String, CapabilityFiles>,
    /// From the evaluation report of these predictions, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Scores>,
    /// What the scores compare with: the report's record, else the run folder's `run.json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparability: Option<crate::comparability::Comparability>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ZipInfo {
    pub file: String,
    pub sha256: String,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CapabilityFiles {
    /// The folder inside the ZIP.
    pub folder: String,
    /// Where the files came from.
    pub source: String,
    pub domains: BTreeMap<String, DomainFile>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DomainFile {
    pub records: usize,
    pub sha256: String,
}

/// A report's scores (percent).
#[derive(Debug, Clone, Serialize)]
pub struct Scores {
    pub leaderboard_score: f64,
    pub capabilities: BTreeMap<String, f64>,
    #[serde(skip)]
    pub comparability: Option<crate::comparability::Comparability>,
}

/// The scores of an evaluation report's JSON.
pub fn scores_of(report: &Value) -> Option<Scores> {
    Some(Scores {
        leaderboard_score: report.get("leaderboard_score")?.as_f64()?,
        capabilities: report
            .get("capabilities")?
            .as_object()?
            .iter()
            .filter_map(|(n, c)| Some((n.clone(), c.get("score")?.as_f64()?)))
            .collect(),
        comparability: report
            .get("comparability")
            .and_then(|c| serde_json::from_value(c.clone()).ok()),
    })
}

/// One file going into the ZIP.
struct Entry {
    capability: u8,
    domain: String,
    path: PathBuf,
}

/// Writes the bundle of these (validated) prediction files into `out`.
pub fn write_bundle(
    files: &[PathBuf],
    out: &Path,
    agent: AgentInfo,
    scores: Option<Scores>,
) -> Result<BundleMetadata, BundleError> {
    let mut entries: BTreeMap<(u8, String), Entry> = BTreeMap::new();
    for path in files {
        let (capability, domain) = RunFile::place_of(path)
            .ok_or_else(|| BundleError::NoCapability(path.display().to_string()))?;
        let entry = Entry {
            capability,
            domain: domain.clone(),
            path: path.clone(),
        };
        if let Some(previous) = entries.insert((capability, domain.clone()), entry) {
            return Err(BundleError::Duplicate(
                previous.path.display().to_string(),
                path.display().to_string(),
                capability,
                domain,
            ));
        }
    }
    if entries.is_empty() {
        return Err(BundleError::Empty);
    }
    std::fs::create_dir_all(out).map_err(io(out))?;
    let zip_path = out.join(ZIP_NAME);
    let zip_error = |e: zip::result::ZipError| BundleError::Zip {
        path: zip_path.display().to_string(),
        message: e.to_string(),
    };
    let file = std::fs::File::create(&zip_path).map_err(io(&zip_path))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let mut capabilities: BTreeMap<String, CapabilityFiles> = BTreeMap::new();
    for entry in entries.values() {
        let bytes = std::fs::read(&entry.path).map_err(io(&entry.path))?;
        let (Some(folder), Some(zip_path_of)) = (
            benchmark_dir(entry.capability),
            RunFile::submission_path(entry.capability, &entry.domain),
        ) else {
            return Err(BundleError::NoCapability(entry.path.display().to_string()));
        };
        zip.start_file(zip_path_of, options).map_err(zip_error)?;
        zip.write_all(&bytes).map_err(io(&zip_path))?;
        let records = serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| v.as_array().map(Vec::len))
            .unwrap_or(0);
        capabilities
            .entry(entry.capability.to_string())
            .or_insert_with(|| CapabilityFiles {
                folder: folder.to_owned(),
                source: entry
                    .path
                    .parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                domains: BTreeMap::new(),
            })
            .domains
            .insert(
                entry.domain.clone(),
                DomainFile {
                    records,
                    sha256: hex::encode(Sha256::digest(&bytes)),
                },
            );
    }
    zip.finish().map_err(zip_error)?;
    let zipped = std::fs::read(&zip_path).map_err(io(&zip_path))?;
    let comparability = scores
        .as_ref()
        .and_then(|s| s.comparability.clone())
        .or_else(|| {
            entries.values().find_map(|e| {
                let run_folder = e.path.parent()?.parent()?;
                crate::comparability::Comparability::of_run(run_folder)
            })
        });
    let metadata = BundleMetadata {
        agent,
        comparability,
        vakra_version: env!("CARGO_PKG_VERSION").into(),
        zip: ZipInfo {
            file: ZIP_NAME.into(),
            sha256: hex::encode(Sha256::digest(&zipped)),
            bytes: zipped.len() as u64,
        },
        capabilities,
        scores,
    };
    let metadata_path = out.join("metadata.json");
    let text = serde_json::to_string_pretty(&metadata).unwrap_or_default() + "\n";
    std::fs::write(&metadata_path, text).map_err(io(&metadata_path))?;
    let form_path = out.join("submission.md");
    std::fs::write(&form_path, submission_form(&metadata)).map_err(io(&form_path))?;
    Ok(metadata)
}

/// The submission template's fields, filled in.
fn submission_form(m: &BundleMetadata) -> String {
    let contents: Vec<String> = m
        .capabilities
        .values()
        .flat_map(|c| {
            c.domains.iter().map(move |(domain, f)| {
                let plural = if f.records == 1 { "" } else { "s" };
                format!(
                    "- `{}/{}` ({} record{plural})",
                    c.folder,
                    RunFile::Records.name(domain),
                    f.records
                )
            })
        })
        .collect();
    let scores = m.scores.as_ref().map_or(String::new(), |s| {
        let per: Vec<String> = s
            .capabilities
            .iter()
            .map(|(n, v)| format!("capability {n}: {v:.2}"))
            .collect();
        format!(
            "\nScores of `vakra eval` on these predictions: leaderboard {:.2} ({}).\n",
            s.leaderboard_score,
            per.join(", ")
        )
    });
    format!(
        "# [Benchmark Output Submission]: {name}\n\n\
## Agent Name\n{name}\n\n## Maintainer\n{maintainer}\n\n## Model(s) Used\n{models}\n\n\
## Agent Description\n{description}\n\n## Metadata (JSON)\n```json\n{metadata}\n```\n\n\
## ZIP File Link\n(upload `{zip}` — SHA-256 {sha}, {bytes} bytes — and link it here)\n\n\
## ZIP Contents Description\n{contents}\n{scores}\n\
## Validation Checklist\n- [x] JSON files are valid and well-formed (checked by `vakra validate`)\n\
- [ ] ZIP file is accessible via the provided link\n- [ ] No sensitive or PII data included\n\
- [ ] Agent has been tested locally\n",
        name = m.agent.agent_name,
        maintainer = m.agent.maintainer,
        models = m.agent.models.join(" / "),
        description = m.agent.description,
        metadata = serde_json::to_string_pretty(&m.agent.metadata).unwrap_or_default(),
        zip = m.zip.file,
        sha = m.zip.sha256,
        bytes = m.zip.bytes,
        contents = contents.join("\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent() -> AgentInfo {
        AgentInfo {
            agent_name: "a".into(),
            maintainer: "m".into(),
            models: vec!["x".into()],
            description: "d".into(),
            metadata: serde_json::json!({}),
        }
    }

    #[test]
    fn files_outside_capability_folders_or_given_twice_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "[]").unwrap();
            path
        };
        let out = dir.path().join("bundle");
        let loose = write("results/library.json");
        let error = write_bundle(&[loose], &out, agent(), None).unwrap_err();
        assert!(matches!(error, BundleError::NoCapability(_)), "{error}");
        let twice = [
            write("capability_2_run_a/library.json"),
            write("capability_2_run_b/library.json"),
        ];
        let error = write_bundle(&twice, &out, agent(), None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("both capability 2's library.json"),
            "{error}"
        );
        assert!(matches!(
            write_bundle(&[], &out, agent(), None),
            Err(BundleError::Empty)
        ));
        assert!(!out.exists(), "nothing written for refused input");
    }
}

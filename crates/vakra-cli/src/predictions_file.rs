//! `vakra eval --predictions FILE`: the single combined prediction file that `vakra validate`
//! accepts (records of every capability and domain in one array) is laid out as the folders
//! the evaluator reads, `capability_<N>_*/<domain>.json`, each record under the capability
//! whose ground truth holds its uuid and the domain it names.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Context;
use serde_json::Value;
use vakra_records::records::{for_each_item, read_array, read_text};
use vakra_records::{RunFile, Side, Split};

/// Warns when the predictions are the ground truth itself (a mistaken path scores 100).
pub fn warn_if_ground_truth(predictions: &Path, ground_truth: &Path) {
    let same = match (predictions.canonicalize(), ground_truth.canonicalize()) {
        (Ok(p), Ok(g)) => p == g || p.starts_with(&g),
        _ => false,
    };
    if same {
        eprintln!(
            "Warning: --predictions {} is the ground truth (or inside it): its scores say nothing \
             about an agent",
            predictions.display()
        );
    }
}

/// Writes the records of `file` into a new temporary folder laid out like `ground_truth`,
/// reading them one at a time and keeping only those of the ground truth's samples.
pub fn lay_out(file: &Path, ground_truth: &Path) -> anyhow::Result<tempfile::TempDir> {
    let context = || format!("--predictions {}", file.display());
    let text = read_text(file)
        .map_err(|e| anyhow::anyhow!("cannot read: {e}"))
        .with_context(context)?;
    let capability_of = ground_truth_uuids(ground_truth)?;
    let mut files: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
    let mut unmatched = 0usize;
    for_each_item(text.as_bytes(), |record| {
        let uuid = record.get("uuid").and_then(Value::as_str);
        let Some((folder, truth_domain)) = uuid.and_then(|u| capability_of.get(u)) else {
            unmatched += 1;
            return;
        };
        let domain = record
            .get("domain")
            .and_then(Value::as_str)
            .filter(|d| vakra_catalog::is_valid_domain_name(d))
            .unwrap_or(truth_domain)
            .to_owned();
        files
            .entry((folder.clone(), domain))
            .or_default()
            .push(record);
    })
    .with_context(context)?;
    drop(text);
    if unmatched > 0 {
        eprintln!(
            "Warning: {unmatched} records of {} have no uuid of the ground truth; they are not scored",
            file.display()
        );
    }
    let dir = tempfile::tempdir().context("a temporary folder for the predictions")?;
    for ((folder, domain), records) in files {
        let folder = dir.path().join(folder);
        std::fs::create_dir_all(&folder)?;
        std::fs::write(
            RunFile::Records.path(&folder, &domain),
            serde_json::to_vec(&records)?,
        )?;
    }
    Ok(dir)
}

/// Every ground-truth uuid with its capability folder's name and its file's domain.
fn ground_truth_uuids(root: &Path) -> anyhow::Result<HashMap<String, (String, String)>> {
    std::fs::read_dir(root).with_context(|| format!("--ground-truth {}", root.display()))?;
    let mut uuids = HashMap::new();
    for folder in Split::new(root).capabilities(Side::GroundTruth, &[]) {
        for (domain, path) in folder.domain_files(Side::GroundTruth) {
            let Ok(records) = read_array(&path) else {
                continue;
            };
            for record in records {
                if let Some(uuid) = record.get("uuid").and_then(Value::as_str) {
                    uuids.insert(uuid.to_owned(), (folder.name.clone(), domain.clone()));
                }
            }
        }
    }
    Ok(uuids)
}

//! The samples episodes are drawn from: a split's agent inputs
//! (`capability_<n>_<name>/input/<domain>.json`, read as `vakra run` reads them) paired with
//! their ground truth (`…/output/<domain>.json`) by the pairing `vakra eval`'s plan uses
//! ([`vakra_records::CapabilityFolder::ground_truth`]), so an episode's reward is the verdict
//! `vakra eval` gives the same trajectory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use vakra_records::records::Record;
use vakra_records::{CapabilityFolder, Side};
use vakra_runner::sample::{Sample, read_split};

/// One sample with its ground truth.
#[derive(Debug)]
pub struct SplitSample {
    pub sample: Sample,
    pub ground_truth: Record,
}

/// Why a split cannot serve episodes.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    #[error("{0}")]
    Input(#[from] vakra_runner::RunError),
    #[error("{path}: {message}")]
    GroundTruth { path: PathBuf, message: String },
    #[error("{0}: no sample has both an agent input and a ground-truth record")]
    Empty(PathBuf),
}

/// What a reset asks for: a uuid, or a seed among the samples of an optional capability and
/// domain (no seed: a random one, reported in the observation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pick {
    pub uuid: Option<String>,
    pub seed: Option<u64>,
    pub capability: Option<u8>,
    pub domain: Option<String>,
}

/// Why a reset found no sample.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum PickError {
    #[error("no sample has the uuid {0:?} in this split")]
    UnknownUuid(String),
    #[error("no sample of this split matches capability {capability:?}, domain {domain:?}")]
    NoMatch {
        capability: Option<u8>,
        domain: Option<String>,
    },
}

/// A split's samples, in capability, domain file and record order.
#[derive(Debug)]
pub struct Split {
    path: PathBuf,
    samples: Vec<Arc<SplitSample>>,
    by_uuid: HashMap<String, usize>,
    /// Input records left out (unreadable, or without a ground-truth record).
    pub skipped: Vec<String>,
}

impl Split {
    /// Reads every capability and domain of the split.
    pub fn load(path: &Path) -> Result<Self, SplitError> {
        let (inputs, unreadable) = read_split(path, &[], &[])?;
        let split = vakra_records::Split::new(path);
        let mut skipped: Vec<String> = unreadable
            .into_iter()
            .map(|s| format!("{} record {}: {}", s.file.display(), s.index, s.reason))
            .collect();
        let mut truths: HashMap<(String, String), HashMap<String, Record>> = HashMap::new();
        let mut samples = Vec::new();
        let mut by_uuid = HashMap::new();
        for sample in inputs {
            let key = (sample.capability_dir.clone(), sample.domain.clone());
            if !truths.contains_key(&key) {
                let folder = split.folder(&sample.capability_dir);
                truths.insert(key.clone(), ground_truth(folder.as_ref(), &sample.domain)?);
            }
            let Some(ground_truth) = truths[&key].get(&sample.uuid).cloned() else {
                skipped.push(format!(
                    "{} {}: no ground-truth record",
                    sample.capability_dir, sample.uuid
                ));
                continue;
            };
            if by_uuid.contains_key(&sample.uuid) {
                skipped.push(format!("{}: duplicate uuid", sample.uuid));
                continue;
            }
            by_uuid.insert(sample.uuid.clone(), samples.len());
            samples.push(Arc::new(SplitSample {
                sample,
                ground_truth,
            }));
        }
        if samples.is_empty() {
            return Err(SplitError::Empty(path.to_owned()));
        }
        Ok(Self {
            path: path.to_owned(),
            samples,
            by_uuid,
            skipped,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    pub fn samples(&self) -> impl Iterator<Item = &Arc<SplitSample>> {
        self.samples.iter()
    }

    /// The sample a reset asks for, and the seed that picked it (none for a uuid). The same
    /// seed and filters always pick the same sample of the same split.
    pub fn pick(&self, pick: &Pick) -> Result<(Arc<SplitSample>, Option<u64>), PickError> {
        if let Some(uuid) = &pick.uuid {
            let index = self
                .by_uuid
                .get(uuid)
                .ok_or_else(|| PickError::UnknownUuid(uuid.clone()))?;
            return Ok((Arc::clone(&self.samples[*index]), None));
        }
        let matching: Vec<&Arc<SplitSample>> = self
            .samples
            .iter()
            .filter(|s| pick.capability.is_none_or(|c| c == s.sample.capability))
            .filter(|s| pick.domain.as_ref().is_none_or(|d| *d == s.sample.domain))
            .collect();
        if matching.is_empty() {
            return Err(PickError::NoMatch {
                capability: pick.capability,
                domain: pick.domain.clone(),
            });
        }
        let seed = pick
            .seed
            .unwrap_or_else(|| uuid::Uuid::new_v4().as_u64_pair().0);
        let index = (splitmix64(seed) % matching.len() as u64) as usize;
        Ok((Arc::clone(matching[index]), Some(seed)))
    }
}

/// A domain's ground-truth records by uuid, as `vakra eval` scores them; none when the split
/// has no ground truth for the domain.
fn ground_truth(
    folder: Option<&CapabilityFolder>,
    domain: &str,
) -> Result<HashMap<String, Record>, SplitError> {
    let Some(folder) = folder.filter(|f| f.file(Side::GroundTruth, domain).exists()) else {
        return Ok(HashMap::new());
    };
    let truth = folder.ground_truth(domain);
    if truth.records.is_empty()
        && let Some(problem) = truth.problems.first()
    {
        return Err(SplitError::GroundTruth {
            path: truth.path,
            message: problem.message.clone(),
        });
    }
    Ok(truth
        .records
        .into_iter()
        .map(|record| (record.uuid.clone(), record))
        .collect())
}

/// A well-mixed 64-bit hash of a seed (SplitMix64's finaliser), so that consecutive seeds
/// pick unrelated samples.
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Split {
        let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/tasks");
        Split::load(&tasks).expect("the demo split loads")
    }

    #[test]
    fn seeds_pick_deterministically_within_the_filters() {
        let split = demo();
        let pick = |seed, capability| Pick {
            seed: Some(seed),
            capability,
            ..Pick::default()
        };
        for seed in 0..50 {
            let (a, _) = split.pick(&pick(seed, None)).unwrap();
            let (b, _) = split.pick(&pick(seed, None)).unwrap();
            assert_eq!(a.sample.uuid, b.sample.uuid);
            let (c, used) = split.pick(&pick(seed, Some(4))).unwrap();
            assert_eq!(c.sample.capability, 4);
            assert_eq!(used, Some(seed));
        }
        let distinct: std::collections::HashSet<String> = (0..200)
            .map(|seed| split.pick(&pick(seed, None)).unwrap().0.sample.uuid.clone())
            .collect();
        assert!(distinct.len() > split.len() / 2, "seeds cover the split");
    }

    #[test]
    fn uuids_and_filters_that_match_nothing_are_errors() {
        let split = demo();
        let first = split.samples().next().unwrap().sample.uuid.clone();
        let (found, seed) = split
            .pick(&Pick {
                uuid: Some(first.clone()),
                ..Pick::default()
            })
            .unwrap();
        assert_eq!((found.sample.uuid.as_str(), seed), (first.as_str(), None));
        assert_eq!(
            split
                .pick(&Pick {
                    uuid: Some("nope".into()),
                    ..Pick::default()
                })
                .err(),
            Some(PickError::UnknownUuid("nope".into()))
        );
        assert!(matches!(
            split.pick(&Pick {
                capability: Some(2),
                domain: Some("bpo".into()),
                ..Pick::default()
            }),
            Err(PickError::NoMatch { .. })
        ));
    }
}

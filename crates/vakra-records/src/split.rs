//! A split's layout: `capability_<n>_<name>/input/<domain>.json` (what the agent is asked) and
//! `capability_<n>_<name>/output/<domain>.json` (the ground truth), and the rule that pairs a
//! ground-truth record with its input. A folder of predictions (a run's output, a submission)
//! has the same capability folders with the domain files in them directly
//! ([`Side::Predictions`], the files of a domain: [`RunFile`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::records::{
    CAPABILITY_DIRS, Problem, Record, TOOLS_SUFFIX, capability_of_dir, domain_files, read_array,
    read_records,
};

/// Where a capability folder keeps a kind of records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `input/`: the agent-facing records `vakra run` reads.
    Input,
    /// `output/`: the ground truth `vakra eval` scores against.
    GroundTruth,
    /// The capability folder itself: predictions, as `vakra run` writes them and a submission
    /// holds them.
    Predictions,
}

impl Side {
    fn dir_name(self) -> Option<&'static str> {
        match self {
            Side::Input => Some("input"),
            Side::GroundTruth => Some("output"),
            Side::Predictions => None,
        }
    }
}

/// The files of one domain in a capability folder of predictions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunFile {
    /// `<domain>.json`: the prediction records (the only file of a submission).
    Records,
    /// `<domain>_tools.json`: `vakra run`'s (and the reference runner's) tool names per sample.
    Tools,
    /// `<domain>.trajectory.jsonl`: `vakra run`'s line per finished sample.
    Trajectory,
}

impl RunFile {
    /// The file's name for `domain`.
    pub fn name(self, domain: &str) -> String {
        match self {
            RunFile::Records => format!("{domain}.json"),
            RunFile::Tools => format!("{domain}{TOOLS_SUFFIX}.json"),
            RunFile::Trajectory => format!("{domain}.trajectory.jsonl"),
        }
    }

    /// Whether `path` names a [`RunFile::Tools`] file (`…_tools.json`), which is no records file.
    pub fn is_tools(path: &Path) -> bool {
        path.to_string_lossy()
            .ends_with(&format!("{TOOLS_SUFFIX}.json"))
    }

    /// The file of `domain` in the capability folder `dir`.
    pub fn path(self, dir: &Path, domain: &str) -> PathBuf {
        dir.join(self.name(domain))
    }

    /// A submission's path of a domain's records: `capability_<n>_<name>/<domain>.json`, under
    /// the benchmark's folder name of the capability (1–4).
    pub fn submission_path(capability: u8, domain: &str) -> Option<String> {
        let folder = benchmark_dir(capability)?;
        Some(format!("{folder}/{}", RunFile::Records.name(domain)))
    }

    /// The capability and domain of a prediction records file, from its place
    /// (`…/capability_<n>_<name>/<domain>.json`).
    pub fn place_of(path: &Path) -> Option<(u8, String)> {
        let capability = capability_of_dir(path.parent()?.file_name()?.to_str()?)?;
        let domain = path.file_stem()?.to_str()?.to_owned();
        Some((capability, domain))
    }
}

/// The benchmark's folder name of capability `capability` (1–4).
pub fn benchmark_dir(capability: u8) -> Option<&'static str> {
    CAPABILITY_DIRS
        .get(usize::from(capability).checked_sub(1)?)
        .copied()
}

/// A split folder, or a folder of predictions (see [`Side::Predictions`]).
#[derive(Debug, Clone)]
pub struct Split {
    path: PathBuf,
}

/// One capability folder of a split.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CapabilityFolder {
    /// 1–4.
    pub capability: u8,
    /// `capability_2_dashboard_apis`.
    pub name: String,
    pub path: PathBuf,
}

impl Split {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The capability folders that have `side`, of the capabilities `wanted` (all when empty),
    /// in capability order. An unreadable split has none.
    pub fn capabilities(&self, side: Side, wanted: &[u8]) -> Vec<CapabilityFolder> {
        let mut found: Vec<CapabilityFolder> = std::fs::read_dir(&self.path)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_str()?.to_owned();
                let capability = capability_of_dir(&name)?;
                let folder = CapabilityFolder {
                    capability,
                    name,
                    path: entry.path(),
                };
                (folder.dir(side).is_dir() && (wanted.is_empty() || wanted.contains(&capability)))
                    .then_some(folder)
            })
            .collect();
        found.sort();
        found
    }

    /// The split folder itself when it is a capability folder with `side` (of the capabilities
    /// `wanted`), for commands that accept one capability's folder in place of a split.
    pub fn as_capability_folder(&self, side: Side, wanted: &[u8]) -> Option<CapabilityFolder> {
        let name = self.path.file_name()?.to_str()?;
        let capability = capability_of_dir(name)?;
        let folder = CapabilityFolder {
            capability,
            name: name.to_owned(),
            path: self.path.clone(),
        };
        (folder.dir(side).is_dir() && (wanted.is_empty() || wanted.contains(&capability)))
            .then_some(folder)
    }

    /// The folder of the capability named `name` (`capability_<n>_<name>`).
    pub fn folder(&self, name: &str) -> Option<CapabilityFolder> {
        Some(CapabilityFolder {
            capability: capability_of_dir(name)?,
            name: name.to_owned(),
            path: self.path.join(name),
        })
    }

    /// In this folder of predictions, the folder answering the ground truth's `truth`: the one
    /// of the same name, else another of the same capability, else this folder itself when it
    /// holds domain files and no benchmark folder of that capability (one capability's
    /// predictions given alone).
    pub fn predictions_for(&self, truth: &CapabilityFolder) -> Option<CapabilityFolder> {
        let capability = truth.capability;
        let exact = self.path.join(&truth.name);
        if exact.is_dir() {
            return self.folder(&truth.name);
        }
        let by_number = self
            .capabilities(Side::Predictions, &[capability])
            .into_iter()
            .next();
        by_number.or_else(|| {
            let default_name = benchmark_dir(capability)?;
            let is_plain =
                !domain_files(&self.path).is_empty() && !self.path.join(default_name).exists();
            is_plain.then(|| CapabilityFolder {
                capability,
                name: truth.name.clone(),
                path: self.path.clone(),
            })
        })
    }
}

impl CapabilityFolder {
    /// `input/`, `output/`, or the folder itself for predictions.
    pub fn dir(&self, side: Side) -> PathBuf {
        match side.dir_name() {
            Some(name) => self.path.join(name),
            None => self.path.clone(),
        }
    }

    /// One domain's records file of `side`.
    pub fn file(&self, side: Side, domain: &str) -> PathBuf {
        RunFile::Records.path(&self.dir(side), domain)
    }

    /// The domain files of `side`, by domain name.
    pub fn domain_files(&self, side: Side) -> Vec<(String, PathBuf)> {
        domain_files(&self.dir(side))
    }

    /// A domain's ground truth as it is scored, paired with its input: each uuid once (the
    /// first record), with the policy its input states when it has none ([`inherit_policy`]).
    /// `vakra eval`'s plan and the episodes read the ground truth here.
    pub fn ground_truth(&self, domain: &str) -> GroundTruth {
        let path = self.file(Side::GroundTruth, domain);
        let (read, problems) = read_records(&path);
        let policies = self.input_policies(domain);
        let mut seen = std::collections::HashSet::new();
        let mut records = Vec::with_capacity(read.len());
        let mut duplicates = Vec::new();
        for mut record in read {
            if !seen.insert(record.uuid.clone()) {
                duplicates.push(Problem {
                    file: path.display().to_string(),
                    uuid: Some(record.uuid),
                    message: "duplicate ground-truth uuid: scored once".into(),
                });
                continue;
            }
            let policy = policies.get(&record.uuid).cloned();
            inherit_policy(&mut record, policy.as_deref());
            records.push(record);
        }
        GroundTruth {
            path,
            records,
            problems,
            duplicates,
        }
    }

    /// The policies (`additional_instructions`) of a domain's input records, by uuid; none
    /// when the input is missing or unreadable.
    fn input_policies(&self, domain: &str) -> HashMap<String, String> {
        let Ok(items) = read_array(&self.file(Side::Input, domain)) else {
            return HashMap::new();
        };
        items
            .iter()
            .filter_map(|item| {
                let uuid = item.get("uuid")?.as_str()?.to_owned();
                let text = item.get("additional_instructions")?.as_str()?.to_owned();
                Some((uuid, text))
            })
            .collect()
    }
}

/// A domain's ground truth as it is scored ([`CapabilityFolder::ground_truth`]).
#[derive(Debug, Clone)]
pub struct GroundTruth {
    /// The file.
    pub path: PathBuf,
    /// Its records, each uuid once, in file order, paired with the input's policy.
    pub records: Vec<Record>,
    /// What could not be read.
    pub problems: Vec<Problem>,
    /// A problem for each later record of a repeated uuid (not scored).
    pub duplicates: Vec<Problem>,
}

/// The pairing rule of ground truth and input: a ground-truth record without a policy takes
/// the one its input record states (the reference's ground truth keeps it only in the input).
pub fn inherit_policy(ground_truth: &mut Record, input_policy: Option<&str>) {
    if ground_truth.additional_instructions.is_empty()
        && let Some(text) = input_policy
    {
        ground_truth.additional_instructions = text.to_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn capability_folders_by_side_in_order() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "capability_4_multiturn/input/d.json", "[]");
        write(dir.path(), "capability_4_multiturn/output/d.json", "[]");
        write(
            dir.path(),
            "capability_2_dashboard_apis/output/d.json",
            "[]",
        );
        write(dir.path(), "notes/output/d.json", "[]");
        let split = Split::new(dir.path());
        let names = |folders: Vec<CapabilityFolder>| -> Vec<String> {
            folders.into_iter().map(|f| f.name).collect()
        };
        assert_eq!(
            names(split.capabilities(Side::GroundTruth, &[])),
            ["capability_2_dashboard_apis", "capability_4_multiturn"]
        );
        assert_eq!(
            names(split.capabilities(Side::Input, &[])),
            ["capability_4_multiturn"]
        );
        assert_eq!(
            names(split.capabilities(Side::GroundTruth, &[2])),
            ["capability_2_dashboard_apis"]
        );
        assert!(split.as_capability_folder(Side::GroundTruth, &[]).is_none());
        let one = Split::new(dir.path().join("capability_4_multiturn"));
        assert_eq!(
            one.as_capability_folder(Side::Input, &[])
                .unwrap()
                .capability,
            4
        );
        assert!(one.as_capability_folder(Side::Input, &[1]).is_none());
    }

    #[test]
    fn ground_truth_inherits_the_inputs_policy_only_when_it_has_none() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "capability_4_multiturn/input/d.json",
            r#"[{"uuid": "a", "additional_instructions": "only docs"}, {"uuid": "b"}]"#,
        );
        let folder = Split::new(dir.path())
            .folder("capability_4_multiturn")
            .unwrap();
        let policies = folder.input_policies("d");
        assert_eq!(policies.len(), 1);
        let record = |policy: &str| Record {
            uuid: "a".into(),
            domain: "d".into(),
            additional_instructions: policy.into(),
            turns: Vec::new(),
            trial: None,
            tokens: None,
            duration_s: None,
        };
        let mut inherits = record("");
        inherit_policy(&mut inherits, policies.get("a").map(String::as_str));
        assert_eq!(inherits.additional_instructions, "only docs");
        let mut keeps = record("its own");
        inherit_policy(&mut keeps, policies.get("a").map(String::as_str));
        assert_eq!(keeps.additional_instructions, "its own");
        assert!(folder.input_policies("missing").is_empty());
        write(
            dir.path(),
            "capability_4_multiturn/output/d.json",
            r#"[{"uuid": "a", "output": []}, {"uuid": "b", "additional_instructions": "own", "output": []},
                {"uuid": "a", "additional_instructions": "later", "output": []}, 3]"#,
        );
        let truth = folder.ground_truth("d");
        let paired: Vec<(&str, &str)> = truth
            .records
            .iter()
            .map(|r| (r.uuid.as_str(), r.additional_instructions.as_str()))
            .collect();
        assert_eq!(paired, [("a", "only docs"), ("b", "own")]);
        assert_eq!(truth.problems.len(), 1, "{:?}", truth.problems);
        assert_eq!(truth.duplicates.len(), 1);
        assert_eq!(truth.duplicates[0].uuid.as_deref(), Some("a"));
        assert_eq!(
            truth.duplicates[0].message,
            "duplicate ground-truth uuid: scored once"
        );
    }

    #[test]
    fn predictions_are_found_by_name_by_number_or_alone() {
        let truth = Split::new("split")
            .folder("capability_2_dashboard_apis")
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let found = |root: &Path| {
            Split::new(root)
                .predictions_for(&truth)
                .map(|f| (f.name.clone(), f.file(Side::Predictions, "d")))
        };
        assert_eq!(found(dir.path()), None);
        write(dir.path(), "run/capability_2_mar_22/d.json", "[]");
        write(
            dir.path(),
            "run/capability_3_multihop_reasoning/d.json",
            "[]",
        );
        let run = dir.path().join("run");
        assert_eq!(
            found(&run),
            Some((
                "capability_2_mar_22".into(),
                run.join("capability_2_mar_22/d.json")
            ))
        );
        write(dir.path(), "run/capability_2_dashboard_apis/d.json", "[]");
        assert_eq!(
            found(&run).unwrap().1,
            run.join("capability_2_dashboard_apis/d.json")
        );
        write(dir.path(), "alone/d.json", "[]");
        write(dir.path(), "alone/d_tools.json", "[]");
        let alone = dir.path().join("alone");
        assert_eq!(
            found(&alone),
            Some(("capability_2_dashboard_apis".into(), alone.join("d.json")))
        );
        assert_eq!(
            Split::new(&alone).capabilities(Side::Predictions, &[]),
            Vec::new()
        );
        assert_eq!(
            Split::new(&run).capabilities(Side::Predictions, &[2]).len(),
            2
        );
    }

    #[test]
    fn run_files_and_their_places() {
        let dir = Path::new("out/capability_4_multiturn");
        assert_eq!(RunFile::Tools.path(dir, "d"), dir.join("d_tools.json"));
        assert_eq!(
            RunFile::Trajectory.path(dir, "d"),
            dir.join("d.trajectory.jsonl")
        );
        assert_eq!(
            RunFile::place_of(&RunFile::Records.path(dir, "d")),
            Some((4, "d".to_owned()))
        );
        assert_eq!(RunFile::place_of(Path::new("out/d.json")), None);
        assert!(RunFile::is_tools(&RunFile::Tools.path(dir, "d")));
        assert!(!RunFile::is_tools(&RunFile::Records.path(dir, "d")));
        assert_eq!(
            RunFile::submission_path(1, "d").as_deref(),
            Some("capability_1_bi_apis/d.json")
        );
        assert_eq!(RunFile::submission_path(5, "d"), None);
        assert_eq!(benchmark_dir(0), None);
    }
}

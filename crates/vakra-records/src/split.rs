//! A split's layout: `capability_<n>_<name>/input/<domain>.json` (what the agent is asked) and
//! `capability_<n>_<name>/output/<domain>.json` (the ground truth), and the rule that pairs a
//! ground-truth record with its input.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::records::{Record, capability_of_dir, domain_files, read_array};

/// The two halves of a capability folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `input/`: the agent-facing records `vakra run` reads.
    Input,
    /// `output/`: the ground truth `vakra eval` scores against.
    GroundTruth,
}

impl Side {
    fn dir_name(self) -> &'static str {
        match self {
            Side::Input => "input",
            Side::GroundTruth => "output",
        }
    }
}

/// A split folder.
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
}

impl CapabilityFolder {
    /// `input/` or `output/`.
    pub fn dir(&self, side: Side) -> PathBuf {
        self.path.join(side.dir_name())
    }

    /// One domain's file of `side`.
    pub fn file(&self, side: Side, domain: &str) -> PathBuf {
        self.dir(side).join(format!("{domain}.json"))
    }

    /// The domain files of `side`, by domain name.
    pub fn domain_files(&self, side: Side) -> Vec<(String, PathBuf)> {
        domain_files(&self.dir(side))
    }

    /// The policies (`additional_instructions`) of a domain's input records, by uuid; none
    /// when the input is missing or unreadable.
    pub fn input_policies(&self, domain: &str) -> HashMap<String, String> {
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
    }
}

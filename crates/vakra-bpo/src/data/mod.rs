//! The candidate data set: one row per candidate application, read from
//! `candidate_data.parquet` (the reference's file) or, when that is absent,
//! `candidate_data.jsonl` (one JSON object per line with the same columns, used by the demo), plus
//! the optional `large_response_fixture.json`, and the listing's texts from `descriptions.json`.

mod jsonl;
mod parquet_file;
mod skills;
mod time;

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::descriptions::{DESCRIPTIONS_FILE, Descriptions};
use crate::error::BpoError;
use crate::fuzzy::Choices;

pub(crate) use skills::parse_skill_list;

const PARQUET_FILE: &str = "candidate_data.parquet";
const JSONL_FILE: &str = "candidate_data.jsonl";
const FIXTURE_FILE: &str = "large_response_fixture.json";

/// The boolean columns, in the order of their bits in [`Rows::flags`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flag {
    OfferAccepted,
    SlaMet,
    Reviewed,
    Interviewed,
    OfferExtended,
    Hired,
}

impl Flag {
    pub(crate) const ALL: [(Flag, &'static str); 6] = [
        (Flag::OfferAccepted, "offer_accepted"),
        (Flag::SlaMet, "sla_met"),
        (Flag::Reviewed, "reviewed"),
        (Flag::Interviewed, "interviewed"),
        (Flag::OfferExtended, "offer_extended"),
        (Flag::Hired, "hired"),
    ];

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The columns the tools use, as read from a file (other columns are ignored).
#[derive(Default)]
pub(crate) struct RawTable {
    pub requisition_id: Vec<String>,
    pub department: Vec<Option<String>>,
    pub seniority_level: Vec<Option<String>>,
    pub requisition_template_id: Vec<Option<String>>,
    pub source_name: Vec<String>,
    pub applied_at: Vec<Option<i64>>,
    pub hire_date: Vec<Option<i64>>,
    /// Skill lists, as read.
    pub skills: Vec<RawSkills>,
    /// One bit per [`Flag`].
    pub flags: Vec<u8>,
}

/// One row's `skills` value as stored in the file.
pub(crate) enum RawSkills {
    /// A Python list literal (parsed once per distinct text when the table is indexed).
    Literal(String),
    /// Already a list.
    List(Vec<String>),
}

impl RawTable {
    pub(crate) fn set_flag(&mut self, row: usize, flag: Flag, value: bool) {
        if value {
            self.flags[row] |= flag.bit();
        }
    }
}

/// Row-oriented facts of every candidate, indexed by row number in file order.
pub(crate) struct Rows {
    pub requisition: Vec<u32>,
    pub source: Vec<u32>,
    pub applied_at: Vec<Option<i64>>,
    pub hire_date: Vec<Option<i64>>,
    flags: Vec<u8>,
    skill_start: Vec<u32>,
    skill_ids: Vec<u32>,
    /// Bit `s` set when the row lists skill `s`, for the first 64 skills.
    skill_mask: Vec<u64>,
}

impl Rows {
    pub fn flag(&self, row: u32, flag: Flag) -> bool {
        self.flags[row as usize] & flag.bit() != 0
    }

    /// The row's skills (interned ids, in the order of its list, duplicates kept).
    pub fn skills(&self, row: u32) -> &[u32] {
        let row = row as usize;
        &self.skill_ids[self.skill_start[row] as usize..self.skill_start[row + 1] as usize]
    }

    pub fn has_skill(&self, row: u32, skill: Option<u32>) -> bool {
        match skill {
            Some(s) if s < 64 => self.skill_mask[row as usize] & (1 << s) != 0,
            Some(s) => self.skills(row).contains(&s),
            None => false,
        }
    }
}

/// One requisition id with its own rows and the group of similar requisitions it is compared
/// with.
pub(crate) struct Requisition {
    pub id: String,
    pub department: Option<String>,
    pub seniority_level: Option<String>,
    pub rows: Vec<u32>,
    pub group: usize,
}

/// The rows of "similar requisitions" every metric is computed on.
pub(crate) struct Group {
    pub rows: Vec<u32>,
    pub requisitions: usize,
}

/// The pre-generated records the large-response tool returns, serialized once.
pub(crate) struct Fixture {
    /// The records as compact JSON.
    pub json: String,
    /// Python's `len()` of the value (a list's items or an object's keys).
    pub len: usize,
}

/// The loaded data set, read once and shared by every session.
pub struct BpoData {
    pub(crate) rows: Rows,
    pub(crate) requisitions: Vec<Requisition>,
    by_id: HashMap<String, u32>,
    pub(crate) groups: Vec<Group>,
    /// Distinct source names in code-point order (pandas' groupby order).
    pub(crate) sources: Vec<String>,
    pub(crate) skills: Vec<String>,
    skill_by_name: HashMap<String, u32>,
    pub(crate) fixture: Option<Fixture>,
    suggestions: Choices,
    pub(crate) descriptions: Descriptions,
}

impl BpoData {
    /// Loads a BPO data folder (a data root's `bpo/`): `candidate_data.parquet`, or
    /// `candidate_data.jsonl` when there is no parquet file, `descriptions.json` (required) and
    /// `large_response_fixture.json` if present.
    pub fn load(dir: &Path) -> Result<Self, BpoError> {
        let table = candidate_table(dir)?;
        let descriptions = Descriptions::read(&dir.join(DESCRIPTIONS_FILE))?;
        Self::load_table(dir, table, descriptions)
    }

    /// Loads a data folder's candidate data and fixture with descriptions from elsewhere (its
    /// `descriptions.json`, if any, is not read): for a reference checkout's data folder.
    pub fn load_with_descriptions(
        dir: &Path,
        descriptions: Descriptions,
    ) -> Result<Self, BpoError> {
        let table = candidate_table(dir)?;
        Self::load_table(dir, table, descriptions)
    }

    fn load_table(
        dir: &Path,
        table: TableFile,
        descriptions: Descriptions,
    ) -> Result<Self, BpoError> {
        let table = match table {
            TableFile::Parquet(path) => parquet_file::read(&path)?,
            TableFile::Jsonl(path) => jsonl::read(&path)?,
        };
        let fixture_path = dir.join(FIXTURE_FILE);
        let fixture = if fixture_path.exists() {
            Some(read_fixture(&fixture_path)?)
        } else {
            None
        };
        Ok(Self::from_table(table, fixture, descriptions))
    }

    fn from_table(table: RawTable, fixture: Option<Fixture>, descriptions: Descriptions) -> Self {
        let n = table.requisition_id.len();

        let mut sources: Vec<String> = table
            .source_name
            .iter()
            .map(String::as_str)
            .collect::<std::collections::HashSet<&str>>()
            .into_iter()
            .map(str::to_owned)
            .collect();
        sources.sort();
        let source_index: HashMap<&str, u32> = sources
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), i as u32))
            .collect();
        let source: Vec<u32> = table
            .source_name
            .iter()
            .map(|s| source_index[s.as_str()])
            .collect();

        let mut skills = Vec::new();
        let mut skill_by_name: HashMap<String, u32> = HashMap::new();
        let mut skill_start = Vec::with_capacity(n + 1);
        let mut skill_ids = Vec::new();
        let mut skill_mask = Vec::with_capacity(n);
        let mut parsed: HashMap<&str, Vec<String>> = HashMap::new();
        skill_start.push(0);
        for raw in &table.skills {
            let list: &[String] = match raw {
                RawSkills::Literal(text) => parsed
                    .entry(text.as_str())
                    .or_insert_with(|| parse_skill_list(text)),
                RawSkills::List(list) => list,
            };
            let mut mask = 0u64;
            for name in list {
                let id = match skill_by_name.get(name) {
                    Some(&id) => id,
                    None => {
                        skills.push(name.clone());
                        let id = (skills.len() - 1) as u32;
                        skill_by_name.insert(name.clone(), id);
                        id
                    }
                };
                skill_ids.push(id);
                if id < 64 {
                    mask |= 1 << id;
                }
            }
            skill_start.push(skill_ids.len() as u32);
            skill_mask.push(mask);
        }

        let mut requisitions: Vec<Requisition> = Vec::new();
        let mut by_id: HashMap<String, u32> = HashMap::new();
        let mut requisition = Vec::with_capacity(n);
        for (row, id) in table.requisition_id.iter().enumerate() {
            let index = match by_id.get(id) {
                Some(&index) => index,
                None => {
                    requisitions.push(Requisition {
                        id: id.clone(),
                        department: table.department[row].clone(),
                        seniority_level: table.seniority_level[row].clone(),
                        rows: Vec::new(),
                        group: 0,
                    });
                    let index = (requisitions.len() - 1) as u32;
                    by_id.insert(id.clone(), index);
                    index
                }
            };
            requisitions[index as usize].rows.push(row as u32);
            requisition.push(index);
        }

        let groups = assign_groups(&table, &requisition, &mut requisitions);
        let suggestions = Choices::new(requisitions.iter().map(|r| r.id.as_str()));
        let rows = Rows {
            requisition,
            source,
            applied_at: table.applied_at,
            hire_date: table.hire_date,
            flags: table.flags,
            skill_start,
            skill_ids,
            skill_mask,
        };
        Self {
            rows,
            requisitions,
            by_id,
            groups,
            sources,
            skills,
            skill_by_name,
            fixture,
            suggestions,
            descriptions,
        }
    }

    /// Number of candidate rows.
    pub fn len(&self) -> usize {
        self.rows.requisition.len()
    }

    /// Whether the data set has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.requisition.is_empty()
    }

    /// Requisition ids in order of first appearance (the order suggestions break ties in).
    pub fn requisition_ids(&self) -> impl Iterator<Item = &str> {
        self.requisitions.iter().map(|r| r.id.as_str())
    }

    pub(crate) fn requisition(&self, id: &str) -> Option<&Requisition> {
        self.by_id.get(id).map(|&i| &self.requisitions[i as usize])
    }

    pub(crate) fn group(&self, requisition: &Requisition) -> &Group {
        &self.groups[requisition.group]
    }

    /// The interned id of a skill name, `None` if no candidate lists it.
    pub(crate) fn skill(&self, name: &str) -> Option<u32> {
        self.skill_by_name.get(name).copied()
    }

    /// The four requisition ids the reference suggests for an unknown one.
    pub(crate) fn suggestions(&self, id: &str) -> Vec<String> {
        self.suggestions
            .extract(id, 4)
            .into_iter()
            .map(|i| self.requisitions[i].id.clone())
            .collect()
    }
}

/// The candidate file of a data folder, found before the (cheaper) descriptions are read.
enum TableFile {
    Parquet(std::path::PathBuf),
    Jsonl(std::path::PathBuf),
}

fn candidate_table(dir: &Path) -> Result<TableFile, BpoError> {
    let parquet_path = dir.join(PARQUET_FILE);
    let jsonl_path = dir.join(JSONL_FILE);
    if parquet_path.exists() {
        Ok(TableFile::Parquet(parquet_path))
    } else if jsonl_path.exists() {
        Ok(TableFile::Jsonl(jsonl_path))
    } else {
        Err(BpoError::NoCandidateData {
            dir: dir.to_path_buf(),
        })
    }
}

/// Python's `str.strip()` whitespace.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

#[derive(Hash, PartialEq, Eq)]
enum GroupKey<'a> {
    Template(&'a str),
    DepartmentSeniority(&'a str, &'a str),
    Nothing,
}

/// The reference's similar-requisition rule: every row with the requisition's template id, or,
/// when the template is blank or covers fewer than two requisitions, every row with its
/// department and seniority level (nulls match nothing).
fn assign_groups(
    table: &RawTable,
    requisition_of_row: &[u32],
    requisitions: &mut [Requisition],
) -> Vec<Group> {
    let mut by_template: HashMap<&str, Vec<u32>> = HashMap::new();
    let mut by_department: HashMap<(&str, &str), Vec<u32>> = HashMap::new();
    for row in 0..table.requisition_id.len() {
        if let Some(t) = &table.requisition_template_id[row] {
            by_template.entry(t).or_default().push(row as u32);
        }
        if let (Some(d), Some(s)) = (&table.department[row], &table.seniority_level[row]) {
            by_department.entry((d, s)).or_default().push(row as u32);
        }
    }
    let count_requisitions = |rows: &[u32]| -> usize {
        let mut ids: Vec<u32> = rows
            .iter()
            .map(|&r| requisition_of_row[r as usize])
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    };

    let template_requisitions: HashMap<&str, usize> = by_template
        .iter()
        .map(|(t, rows)| (*t, count_requisitions(rows)))
        .collect();
    let nothing = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of_key: HashMap<GroupKey, usize> = HashMap::new();
    for requisition in requisitions.iter_mut() {
        let first = requisition.rows[0] as usize;
        let template = table.requisition_template_id[first]
            .as_deref()
            .filter(|t| !t.trim_matches(is_py_space).is_empty());
        let key = match template {
            Some(t) if template_requisitions[t] >= 2 => GroupKey::Template(t),
            _ => match (&table.department[first], &table.seniority_level[first]) {
                (Some(d), Some(s)) => GroupKey::DepartmentSeniority(d, s),
                _ => GroupKey::Nothing,
            },
        };
        let rows = match &key {
            GroupKey::Template(t) => &by_template[t],
            GroupKey::DepartmentSeniority(d, s) => &by_department[&(*d, *s)],
            GroupKey::Nothing => &nothing,
        };
        requisition.group = *group_of_key.entry(key).or_insert_with(|| {
            groups.push(Group {
                rows: rows.clone(),
                requisitions: count_requisitions(rows),
            });
            groups.len() - 1
        });
    }
    groups
}

fn read_fixture(path: &Path) -> Result<Fixture, BpoError> {
    let text = std::fs::read_to_string(path).map_err(|source| BpoError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| BpoError::Fixture {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let len = match &value {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        _ => {
            return Err(BpoError::Fixture {
                path: path.to_path_buf(),
                message: "expected a JSON array of records".into(),
            });
        }
    };
    Ok(Fixture {
        json: value.to_string(),
        len,
    })
}

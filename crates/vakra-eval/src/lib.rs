//! The benchmark's evaluator.
//!
//! Researchers score an agent by its traces: for every ground-truth sample (the split and the
//! records read by `vakra-records`), the prediction's tool calls and the ground truth's are
//! replayed against the same MCP servers — the project's own in-process, or any server given as a
//! command or URL, through `vakra-client` — each in a fresh session ([`judging`]), and the scored
//! turn goes through the judges' waterfall ([`judges`]): the policy judge, exact match of the tool
//! responses ([`judges::exact`], the reference's rule or a normalised one), then the LLM judges, or
//! a deterministic answer match and groundedness judge when no LLM is configured. Scores aggregate
//! as published ([`report`]), with pass^k and token costs of repeated trials ([`trials`]);
//! [`render`] turns a report into Markdown and HTML, [`diff`] compares two runs, [`merge`] joins
//! the reports of a run's shards (`vakra_records::Shard`), [`validate`] checks prediction files as
//! the reference's `validate_output.py` does, and [`bundle`] writes the leaderboard submission.
//!
//! Unlike the reference, nothing in the input stops a run: malformed files and records, turns
//! that do not line up, unknown tools, server errors and timeouts are recorded in the report.

pub mod bundle;
pub mod comparability;
pub mod diff;
pub mod evaluate;
pub mod ground_truth_memo;
pub mod intervals;
pub mod judges;
pub mod judging;
pub mod merge;
pub mod operation_ids;
pub mod render;
mod replayed;
pub mod report;
pub mod taxonomy;
pub mod trials;
pub mod validate;

pub use evaluate::{EvalConfig, run};
pub use ground_truth_memo::GroundTruthMemo;
pub use judging::{Judging, Sample, judge_sample};
pub use merge::{MergeError, merge};
pub use operation_ids::read_operation_id_map;
pub use report::Report;
use vakra_records::{records, shard};

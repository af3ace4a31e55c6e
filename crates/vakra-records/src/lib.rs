//! The benchmark's files of samples and predictions, with one owner.
//!
//! A split is a folder per capability (`capability_1_bi_apis`, …) holding a JSON file per
//! domain; ground truth and agent input sit side by side in it ([`Split`], with the rule that
//! pairs them, [`inherit_policy`]) and predictions follow the same names ([`CAPABILITY_DIRS`],
//! [`domain_files`]); so do predictions ([`Side::Predictions`], [`RunFile`]). Records are read leniently and boundedly: every record
//! parses on its own and what cannot be used becomes a [`Problem`]; a file is a regular file of
//! bounded size, its array read an item at a time. [`Prediction`] is the one writer of a
//! prediction record, [`parse_record`] its one reader. [`Shard`] is the one rule that splits a run's
//! samples over machines. The runner, the stand-in model, the episodes and the evaluator read
//! the benchmark's files here.

mod answer;
mod prediction;
pub mod records;
pub mod shard;
mod split;
mod tokens;

pub use answer::answer_text;
pub use prediction::{PredictedCall, Prediction};
pub use records::{
    CAPABILITY_DIRS, Call, Problem, Record, Turn, capability_of_dir, domain_files, parse_record,
    read_array, read_records,
};
pub use shard::{Shard, ShardError};
pub use split::{
    CapabilityFolder, GroundTruth, RunFile, Side, Split, benchmark_dir, inherit_policy,
};
pub use tokens::Tokens;

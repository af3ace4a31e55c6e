//! `vakra run`: the benchmark's agent run for any model behind an OpenAI-compatible Chat
//! Completions endpoint.
//!
//! For every sample of a split (`SPLIT/capability_<n>_<name>/input/<domain>.json`, read by
//! [`sample`]) and every trial, [`episode`] opens a fresh MCP session — the project's servers
//! in-process, or any server by command or URL, through the evaluator's
//! [`vakra_client::Connector`] — does what the reference's runner does before its agent starts
//! (capability 1's `get_data` and the first messages of [`opening`], the tool shortlist of
//! [`shortlist`], the prompts of [`prompts`]), and runs [`agent`]'s loop with the model ([`vakra_chat`]). [`run`] keeps
//! `jobs` samples in flight and hands each finished one to [`store`], which writes the
//! submission-format records, the tools log and the trajectories sample by sample, and reads
//! them back to resume.
//!
//! The agent is the reference's (spec §6): its prompts, its message layout per capability, its
//! answer rule and its quirks, so that scores compare with the leaderboard; `--fix-quirks`
//! turns the quirks off. What differs is listed in `docs/compatibility.md`.

pub mod agent;
pub mod episode;
pub mod langchain;
pub mod opening;
pub mod peek_json;
pub mod prompts;
pub mod run;
pub mod sample;
pub mod shortlist;
pub mod store;

use std::path::{Path, PathBuf};

pub use episode::Setup;
pub use prompts::Prompts;
pub use run::{RunPlan, RunSummary, cost, run};
pub use shortlist::Ranker;

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{}: {message}", path.display())]
    Input { path: PathBuf, message: String },
    #[error("cannot write {}: {source}", path.display())]
    Output {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Internal(String),
}

impl RunError {
    fn output(path: &Path, source: std::io::Error) -> Self {
        RunError::Output {
            path: path.to_owned(),
            source,
        }
    }
}

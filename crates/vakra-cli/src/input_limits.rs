//! The flags of the evaluator's input and report limits, shared by `vakra eval`, `vakra
//! validate` and `vakra serve --episodes`; their defaults and their one home are in
//! `vakra_eval` (`records`, `report`).

use clap::Args;
use vakra_eval::report::DEFAULT_MAX_SHOWN_CHARS;
use vakra_records::records::{DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_LISTED};

/// How much of an input file is read and how many of its problems are listed.
#[derive(Args)]
pub struct ReadLimitArgs {
    /// The largest input file (predictions, ground truth, reports, run.json) read, in bytes; a
    /// larger one is refused with its size, as a problem of the file.
    #[arg(long = "max-input-bytes", default_value_t = DEFAULT_MAX_FILE_BYTES)]
    max_input_bytes: u64,
    /// Problems (or validation errors) listed per file; the rest are counted.
    #[arg(long = "max-listed", default_value_t = DEFAULT_MAX_LISTED)]
    max_listed: usize,
}

impl ReadLimitArgs {
    /// Sets these limits for this process.
    pub fn install(&self) -> anyhow::Result<()> {
        anyhow::ensure!(self.max_listed > 0, "--max-listed must be at least 1");
        vakra_records::records::set_input_limits(self.max_input_bytes, self.max_listed);
        Ok(())
    }
}

/// How much of a long text (an answer, a call's arguments, a replayed response) a report or an
/// episode's observation shows.
#[derive(Args)]
pub struct ShownLimitArg {
    /// Characters of a prediction's answer or a call's arguments (and, in an episode's submit
    /// observation, of the verdict's replayed responses and problems) shown; the rest is
    /// counted. Judging and rewards use the texts whole.
    #[arg(long = "max-shown-chars", default_value_t = DEFAULT_MAX_SHOWN_CHARS)]
    max_shown_chars: usize,
}

impl ShownLimitArg {
    /// Sets this limit for this process.
    pub fn install(&self) {
        vakra_eval::report::set_max_shown_chars(self.max_shown_chars);
    }
}

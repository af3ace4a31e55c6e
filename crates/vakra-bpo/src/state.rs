//! The state the reference keeps in module globals of a server process that lives for one
//! session: the generator behind the simulated 404s and the counter behind the simulated 429s.

use crate::rng::PyRandom;

/// The seed of the reference's `random.Random(42)` in its error-prone tools.
const RNG_SEED: u64 = 42;

/// The state the reference keeps per server process.
pub(crate) struct SessionState {
    /// Drawn once per `candidate_source_candidate_pipeline_status` call.
    pub rng: PyRandom,
    /// Calls of `candidate_source_bulk_source_data` so far.
    pub bulk_calls: u64,
}

impl SessionState {
    /// The state of a freshly started reference server.
    pub(crate) fn fresh() -> Self {
        Self {
            rng: PyRandom::new(RNG_SEED),
            bulk_calls: 0,
        }
    }
}

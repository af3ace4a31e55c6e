//! The BPO domain of capability 3: the reference's `bpo_benchmark` FastMCP server (13 tools over
//! a recruiting data set and 19 deliberately error-prone ones), reproduced so that an agent sees
//! the same tool list, result texts, error texts and per-session behaviour.
//!
//! The tool and model descriptions are the reference's prose and are not embedded: they are read
//! from the data folder's `descriptions.json` (see [`Descriptions`]).
//!
//! [`BpoData`] is loaded once from a data folder and shared; each MCP session gets a
//! [`BpoSession`], which holds what the reference keeps per server process: the seeded random
//! generator behind the simulated 404s and the call counter behind the simulated 429s.
//!
//! Result texts are FastMCP's: compact JSON with raw UTF-8 (pydantic's serializer), strings as
//! they are, `None` as no content, raised exceptions as `Error calling tool '<name>': <text>`,
//! and pydantic's validation errors for bad arguments. Numbers follow the reference's pandas and
//! numpy arithmetic (see [`numeric`]); suggestions for unknown requisitions follow rapidfuzz's
//! `WRatio` (see [`fuzzy`]).

mod data;
mod descriptions;
mod error;
pub mod fuzzy;
pub mod numeric;
pub mod rng;
mod session;
mod state;
mod tools;
mod validate;

pub use data::BpoData;
pub use descriptions::{DESCRIPTIONS_FILE, Descriptions};
pub use error::BpoError;
pub use session::{BpoSession, ToolOutput, tool_meta};

/// Python's `json.dumps(value)` with its default separators and ASCII escapes, as the
/// reference's `Exception(json.dumps(...))` texts use.
pub(crate) fn python_json_dumps(value: &serde_json::Value) -> String {
    vakra_pytext::dumps(value, &vakra_pytext::DumpOptions::python_default()).unwrap_or_default()
}

//! Capability 1 (API chaining): the SLOT-BIRD and SEL-BIRD tool server of the reference,
//! without its transport.
//!
//! `get_data(tool_universe_id)` builds a universe's table (via [`vakra_frame`]) and keeps it
//! server-side under a handle; every later tool names handles and stores its table results
//! under new ones. This crate owns everything around the engine: the universe mapping (its file
//! format, [`Universes`], and the listing's prose, [`ToolTexts`], are `vakra-catalog`'s data-root
//! files), the listing and its schemas ([`tools`]), what
//! all sessions of a domain share ([`ChainingEnv`]: settings, schemas, the universe-table
//! cache), and one session's state and call pipeline ([`Session`]): toolset switching, handle
//! naming and counters, getter accumulation, the server's own checks and error texts. A call's
//! arguments are decoded by its tool's input model with pydantic's errors (`inputs.rs`) and
//! dispatched to the engine (`dispatch.rs`). The MCP layer adds the SDK's argument validation
//! and the transports.
//!
//! [`LegacyTranslator`] turns ground-truth traces of the older `initialize_active_data` /
//! `"$label.data_path$"` form into live calls, for the evaluator.

mod dispatch;
mod env;
mod error;
mod inputs;
mod legacy;
mod pandas_file;
pub mod pydantic;
mod reply;
mod session;
pub mod tools;

pub use env::{ChainingEnv, ChainingOptions, ServerMode};
pub use error::ChainingError;
pub use legacy::{LegacyTranslator, LiveCall, handle_of_peek};
pub use pandas_file::{root_pandas, write_root_pandas};
pub use reply::{ListedTool, Reply};
pub use session::Session;
pub use vakra_catalog::{ModelTexts, ToolTexts, Toolset, Universe, Universes};
pub use vakra_frame::{PANDAS_ENV, Pandas};

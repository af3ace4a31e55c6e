//! Runs catalog operations as the reference's FastAPI handlers do.
//!
//! A handler in the reference parses its query parameters (FastAPI + pydantic), optionally
//! computes local variables, executes one SQL statement with a positional bind tuple, fetches one
//! row or all rows, returns the empty template when nothing came back, and otherwise builds the
//! response from the rows. [`Endpoint`] compiles a catalog [`Operation`] into that program once;
//! [`RestBird`] holds every endpoint of a data root, indexed by path, with their databases.
//!
//! Expressions in catalogs are a small Python subset evaluated with Python's semantics
//! ([`eval`]): the special endpoints (spread bind lists, UNION-packed results, string
//! concatenation, the `dict(row)` bug) need nothing more.

mod builtins;
mod endpoint;
pub mod eval;
mod exception;
mod params;
mod pyops;
mod restbird;
mod value;

pub use endpoint::{CallError, CompileError, Endpoint, Statement};
pub use params::{PYDANTIC_DOCS_VERSION, ParamError, ParamsError, parse_params, validation_body};
pub use restbird::{LoadError, LoadedDomain, Outcome, RestBird};
pub use value::{JsonError, PyValue};

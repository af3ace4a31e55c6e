//! REST-BIRD catalogs as data.
//!
//! A domain's endpoints are one OpenAPI 3.1 document under a data root's `openapi/`. Besides the
//! usual OpenAPI fields (path, operation id, summary, typed query parameters), every operation
//! carries an `x-vakra` extension with what the generic server needs to run it: the SQL, the bind
//! list, the fetch mode, the empty and success response templates and the few special forms of
//! the reference (see [`SqlProgram`]). No domain has Rust code of its own.
//!
//! This crate reads and writes those documents, knows the layout of a data root ([`DataRoot`]
//! for its folders, [`files`] for each of its single files, with its path and type — capability
//! 1's [`Universes`] and [`ToolTexts`], the runner's and the evaluator's prompts, …),
//! builds the merged `/openapi.json`, and derives the MCP tools agents see from the operations
//! exactly as the reference's wrapper does ([`tools`]).

mod document;
mod error;
pub mod files;
mod model;
mod root;
mod root_file;
mod tool_texts;
pub mod tools;
mod universes;

pub use document::{merged_openapi_json, parse_domain, read_domain, write_domain};
pub use error::CatalogError;
pub use model::{
    Binding, Binds, DomainCatalog, FetchMode, Operation, Param, ParamType, SqlProgram, SqlText,
    python_title,
};
pub use root::{DataRoot, DomainIndex, is_valid_domain_name};
pub use tool_texts::{ModelTexts, ToolTexts};
pub use universes::{InitArgs, TableSpec, Toolset, Universe, Universes};

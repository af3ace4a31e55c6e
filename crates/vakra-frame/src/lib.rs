//! The table engine of capability 1 (SLOT-BIRD and SEL-BIRD).
//!
//! The reference keeps every intermediate result as a Python dict of lists and runs its tools
//! through pandas, numpy and the standard library; agents read the results byte for byte. This
//! crate reproduces those semantics without Python, under pandas 3.1.1 or 2.3.3 ([`Pandas`]:
//! the reference's requirement is unpinned): pandas' dtype inference (from SQLite result sets
//! and from plain lists, pandas 3's `str` columns included), its comparisons, stable sorts and
//! concatenation rules, numpy's nan-aware reductions down to the summation order, CPython's `re` grammar,
//! `datetime.fromisoformat`, number parsing and `str()` formatting, and every error text the
//! reference shows (`repr` and `json.dumps` themselves are `vakra_pytext`'s).
//!
//! It is pure computation: the server layer owns universes, handles, tool listings and argument
//! validation, resolves handles to [`Table`]s, calls the tool functions with typed arguments,
//! and turns a [`ToolValue`] or [`ToolError`] into the answer text.
//!
//! Tables are columns of [`Cell`]s (one Python object each) rather than typed arrays, because
//! the reference's tables routinely hold mixed-type "object" columns whose Python values
//! (ints next to strings next to `None`) are visible to agents.

mod cell;
mod column;
mod dtype;
mod error;
mod isoformat;
mod like;
mod loader;
mod numpy;
mod pandas;
mod pdrepr;
mod pyre;
mod pystr;
mod render;
mod table;
mod text;
mod tools;

pub use cell::Cell;
pub use column::Column;
pub use dtype::Dtype;
pub use error::{FrameError, RenderError, ToolError};
pub use loader::{DirectLimits, initialize_active_data, load_universe, make_safe};
pub use pandas::{PANDAS_ENV, Pandas, ParsePandasError};
pub use render::{handle_suffix, peek, python_str, render_list};
pub use table::Table;
pub use text::Text;
pub use tools::{
    AggregationOperation, CalcOperand, CalculatorOperation, FilterCondition, KeyName, ToolValue,
    TransformOperation, aggregate_data, calculator, concatenate_data, filter_data, getter,
    retrieve_data, select_unique_values, sort_data, transform_data,
    transform_data_to_absolute_value, transform_data_to_datetime_part, transform_data_to_substring,
    truncate,
};
pub use vakra_catalog::{InitArgs, TableSpec};

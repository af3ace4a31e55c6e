//! Python's text rules, in one place: how CPython 3.11 and pydantic write
//! the values agents read.
//!
//! The reference benchmark server is written in Python, and agents read its
//! responses byte for byte. This crate formats [`serde_json::Value`]s exactly
//! as CPython's `json.dumps`, `repr` and `str` would format the same value
//! after `json.loads` (float digits and exponents, string escapes,
//! separators, indentation and key order); it holds `repr` of `str`, `bytes`
//! and `float` for the crates that keep their own values, the character
//! classes behind them (`str.isprintable`, `str.isspace`), and the text of
//! pydantic's `ValidationError` ([`pydantic`]). Every other crate writes
//! Python text through these functions.
//! [`loads`] reads JSON text as deep as Python's `json` reads it; [`digits`] prints integers
//! beyond 64 bits with the digits they arrived with.

pub mod digits;
mod dump;
mod float;
mod format;
pub mod loads;
pub mod pydantic;
mod repr;
mod unicode;

pub use dump::{DumpError, DumpOptions, dump_str_to, dump_to, dumps, float_to_json};
pub use float::float_repr;
pub use format::python_format;
pub use repr::{ascii, bytes_repr, push_escape, push_str_repr_body, py_repr, py_str, str_repr};
pub use unicode::{is_printable, is_space};

/// Appends `value` as exactly `width` lowercase hex digits (the form both
/// `json.dumps` and `repr` use in their `\u`/`\x` escapes).
fn push_hex(out: &mut String, value: u32, width: u32) {
    for shift in (0..width).rev() {
        let nibble = (value >> (4 * shift)) & 0xf;
        out.push(char::from_digit(nibble, 16).unwrap_or('0'));
    }
}

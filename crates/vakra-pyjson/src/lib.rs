//! Python-compatible text formatting for JSON values, and JSON read as deep as Python reads it.
//!
//! The reference benchmark server is written in Python, and agents read its
//! responses byte for byte. This crate formats [`serde_json::Value`]s exactly
//! as CPython's `json.dumps`, `repr` and `str` would format the same value
//! after `json.loads`, so the texts produced by the Rust server match the
//! Python reference: float digits and exponents, string escapes, separators,
//! indentation and key order. [`loads`] reads JSON text as deep as Python's `json` reads it;
//! [`digits`] prints integers beyond 64 bits with the digits they arrived with.

pub mod digits;
mod dump;
mod float;
pub mod loads;
pub mod pydantic;
mod repr;

pub use dump::{DumpError, DumpOptions, dump_to, dumps, float_to_json};
pub use float::float_repr;
pub use repr::{py_repr, py_str};

/// Appends `value` as exactly `width` lowercase hex digits (the form both
/// `json.dumps` and `repr` use in their `\u`/`\x` escapes).
fn push_hex(out: &mut String, value: u32, width: u32) {
    for shift in (0..width).rev() {
        let nibble = (value >> (4 * shift)) & 0xf;
        out.push(char::from_digit(nibble, 16).unwrap_or('0'));
    }
}

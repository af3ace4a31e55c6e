//! CPython's `json.dumps`.

use serde_json::{Map, Number, Value};

use crate::{float::float_repr, push_hex};

/// Why a value could not be encoded; mirrors the `ValueError` CPython raises.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum DumpError {
    /// A NaN or infinite float was met while `allow_nan` is off. The message
    /// is the C encoder's (used when `indent` is `None`); CPython's
    /// pure-Python encoder, used with `indent`, appends `": "` and the
    /// float's repr, which callers can build from the carried value.
    #[error("Out of range float values are not JSON compliant")]
    OutOfRangeFloat(f64),
}

/// The `json.dumps` parameters that change the output text, so each call
/// site can state which Python call it reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpOptions {
    /// `indent=`: `None` keeps everything on one line; `Some(n)` puts each
    /// item on its own line, indented by `n` spaces per level.
    pub indent: Option<usize>,
    /// First element of `separators=`, written between items.
    pub item_separator: &'static str,
    /// Second element of `separators=`, written between a key and its value.
    pub key_separator: &'static str,
    /// `ensure_ascii=`: escape every non-ASCII character as `\uXXXX`.
    pub ensure_ascii: bool,
    /// `sort_keys=`: order object keys by code point instead of insertion.
    pub sort_keys: bool,
    /// `allow_nan=`: write `NaN`/`Infinity` instead of failing.
    pub allow_nan: bool,
}

impl DumpOptions {
    /// `json.dumps(x)`.
    pub const fn python_default() -> Self {
        Self {
            indent: None,
            item_separator: ", ",
            key_separator: ": ",
            ensure_ascii: true,
            sort_keys: false,
            allow_nan: true,
        }
    }

    /// `json.dumps(x, indent=2)`; Python drops the space after `,` when
    /// indenting.
    pub const fn indent2() -> Self {
        Self {
            indent: Some(2),
            item_separator: ",",
            ..Self::python_default()
        }
    }

    /// Starlette's `JSONResponse`: `json.dumps(x, ensure_ascii=False,
    /// allow_nan=False, indent=None, separators=(",", ":"))`.
    pub const fn compact_utf8() -> Self {
        Self {
            item_separator: ",",
            key_separator: ":",
            ensure_ascii: false,
            allow_nan: false,
            ..Self::python_default()
        }
    }

    /// Canonical text for checksums: `json.dumps(x, sort_keys=True,
    /// separators=(",", ":"))`.
    pub const fn checksum() -> Self {
        Self {
            item_separator: ",",
            key_separator: ":",
            sort_keys: true,
            ..Self::python_default()
        }
    }
}

impl Default for DumpOptions {
    fn default() -> Self {
        Self::python_default()
    }
}

/// Encodes `value` as `json.dumps(value, ...)` would with the given options.
pub fn dumps(value: &Value, opts: &DumpOptions) -> Result<String, DumpError> {
    let mut out = String::new();
    dump_to(&mut out, value, opts)?;
    Ok(out)
}

/// Appends the encoding of `value` to `out`, so large documents can be built
/// without intermediate strings. On error `out` holds a partial text.
pub fn dump_to(out: &mut String, value: &Value, opts: &DumpOptions) -> Result<(), DumpError> {
    Encoder { out, opts }.value(value, 0)
}

/// Appends one string as `json.dumps` encodes it with `opts` (quotes and escapes), for
/// writers that encode their own values.
pub fn dump_str_to(out: &mut String, s: &str, opts: &DumpOptions) {
    Encoder { out, opts }.string(s);
}

/// Encodes one float as the JSON encoder does, for floats that never were a
/// `serde_json::Value` (which cannot hold NaN or infinities).
pub fn float_to_json(x: f64, allow_nan: bool) -> Result<String, DumpError> {
    if x.is_finite() {
        Ok(float_repr(x))
    } else if !allow_nan {
        Err(DumpError::OutOfRangeFloat(x))
    } else if x.is_nan() {
        Ok("NaN".to_owned())
    } else if x > 0.0 {
        Ok("Infinity".to_owned())
    } else {
        Ok("-Infinity".to_owned())
    }
}

struct Encoder<'a> {
    out: &'a mut String,
    opts: &'a DumpOptions,
}

impl Encoder<'_> {
    fn value(&mut self, value: &Value, level: usize) -> Result<(), DumpError> {
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(true) => self.out.push_str("true"),
            Value::Bool(false) => self.out.push_str("false"),
            Value::Number(n) => self.number(n)?,
            Value::String(s) => self.string(s),
            Value::Array(items) => self.array(items, level)?,
            Value::Object(map) => self.object(map, level)?,
        }
        Ok(())
    }

    fn number(&mut self, n: &Number) -> Result<(), DumpError> {
        match n.as_f64() {
            Some(x) if n.is_f64() => match crate::digits::digits_of(x) {
                Some(digits) => self.out.push_str(&digits),
                None => self.out.push_str(&float_to_json(x, self.opts.allow_nan)?),
            },
            _ => self.out.push_str(&n.to_string()),
        }
        Ok(())
    }

    fn array(&mut self, items: &[Value], level: usize) -> Result<(), DumpError> {
        if items.is_empty() {
            self.out.push_str("[]");
            return Ok(());
        }
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            self.item_start(i, level + 1);
            self.value(item, level + 1)?;
        }
        self.newline(level);
        self.out.push(']');
        Ok(())
    }

    fn object(&mut self, map: &Map<String, Value>, level: usize) -> Result<(), DumpError> {
        if map.is_empty() {
            self.out.push_str("{}");
            return Ok(());
        }
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        if self.opts.sort_keys {
            // Byte order of UTF-8 equals code point order, which Python uses.
            entries.sort_by(|a, b| a.0.cmp(b.0));
        }
        self.out.push('{');
        for (i, (key, item)) in entries.into_iter().enumerate() {
            self.item_start(i, level + 1);
            self.string(key);
            self.out.push_str(self.opts.key_separator);
            self.value(item, level + 1)?;
        }
        self.newline(level);
        self.out.push('}');
        Ok(())
    }

    fn item_start(&mut self, index: usize, level: usize) {
        if index > 0 {
            self.out.push_str(self.opts.item_separator);
        }
        self.newline(level);
    }

    /// With `indent` set: a newline and the indentation of `level`.
    fn newline(&mut self, level: usize) {
        if let Some(indent) = self.opts.indent {
            self.out.push('\n');
            self.out
                .extend(std::iter::repeat_n(' ', indent.saturating_mul(level)));
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                // With ensure_ascii everything outside ' '..='~' is escaped, DEL
                // included; without it only the C0 controls are.
                c if c < ' ' || (self.opts.ensure_ascii && c > '~') => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        self.out.push_str("\\u");
                        push_hex(self.out, u32::from(*unit), 4);
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }
}

//! The pandas dtypes a table's `_dtypes` sidecar can name.

/// A pandas dtype name that can appear in a table's `_dtypes` sidecar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtype {
    Int64,
    Float64,
    Object,
    Bool,
    UInt64,
    /// pandas 3's string dtype (`StringDtype(na_value=nan)`), named `str`.
    Str,
}

impl Dtype {
    /// `str(dtype)`, the text peeks and getter descriptions show.
    pub fn as_str(self) -> &'static str {
        match self {
            Dtype::Int64 => "int64",
            Dtype::Float64 => "float64",
            Dtype::Object => "object",
            Dtype::Bool => "bool",
            Dtype::UInt64 => "uint64",
            Dtype::Str => "str",
        }
    }
}

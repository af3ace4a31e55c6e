//! The tool semantics of SLOT-BIRD and SEL-BIRD (§7 and §8 of the spec), one module per family.
//! Every function takes arguments that already passed schema validation and the resolved
//! tables, and never changes its inputs.

mod aggregate;
mod calculator;
mod concat;
mod filter;
mod retrieve;
mod sort;
mod timsort;
mod transform;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::cell::Cell;
use crate::error::RenderError;
use crate::render::render_list;
use crate::table::Table;

pub use aggregate::aggregate_data;
pub use calculator::{CalcOperand, calculator};
pub use concat::concatenate_data;
pub use filter::filter_data;
pub use retrieve::{KeyName, getter, retrieve_data, select_unique_values, truncate};
pub use sort::sort_data;
pub use transform::{
    transform_data, transform_data_to_absolute_value, transform_data_to_datetime_part,
    transform_data_to_substring,
};

/// What a tool returned, which decides how the server answers.
#[derive(Debug, Clone)]
pub enum ToolValue {
    /// A table: stored under a new handle and answered with its peek.
    Table(Table),
    /// A list: answered with `json.dumps(list)`.
    List(Vec<Cell>),
    /// A scalar, already in Python's `str()` form.
    Scalar(String),
    /// A list whose `json.dumps` text is already built (values a [`Cell`] cannot hold, such
    /// as nested JSON or integers beyond 64 bits).
    Json(String),
}

impl ToolValue {
    /// The answer text for a non-table result; `None` for tables, whose text (the peek) needs
    /// the handle they are stored under.
    pub fn text(&self) -> Option<Result<String, RenderError>> {
        match self {
            ToolValue::Table(_) => None,
            ToolValue::List(cells) => Some(render_list(cells)),
            ToolValue::Scalar(text) | ToolValue::Json(text) => Some(Ok(text.clone())),
        }
    }
}

macro_rules! string_enum {
    ($(#[$doc:meta])* $name:ident, $python:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// Every value, in the reference's declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as it appears in JSON arguments.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// How Python 3.11 formats the `str, Enum` member in f-strings
            /// (`AggregationOperation.MAX`), which shows in some error texts.
            pub fn python_member(self) -> String {
                format!("{}.{}", $python, self.as_str().to_uppercase())
            }
        }

        impl FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| format!("unknown {}: {s}", $python))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// `aggregate_data`'s operations (and the `compute_data_*` variants).
    AggregationOperation, "AggregationOperation" {
        Min => "min",
        Max => "max",
        Sum => "sum",
        Mean => "mean",
        Count => "count",
        Std => "std",
        Argmin => "argmin",
        Argmax => "argmax",
    }
);

string_enum!(
    /// `filter_data`'s conditions (and the `select_data_*` variants).
    FilterCondition, "FilterCondition" {
        EqualTo => "equal_to",
        NotEqualTo => "not_equal_to",
        GreaterThan => "greater_than",
        LessThan => "less_than",
        GreaterThanEqualTo => "greater_than_equal_to",
        LessThanEqualTo => "less_than_equal_to",
        Contains => "contains",
        Like => "like",
    }
);

string_enum!(
    /// `transform_data`'s operations.
    TransformOperation, "TransformOperation" {
        Substring => "substring",
        Abs => "abs",
        Datetime => "datetime",
    }
);

string_enum!(
    /// `Calculator`'s operations.
    CalculatorOperation, "CalculatorOperation" {
        Add => "add",
        Subtract => "subtract",
        Multiply => "multiply",
        Divide => "divide",
    }
);

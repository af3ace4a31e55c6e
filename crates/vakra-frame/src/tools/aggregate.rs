//! `aggregate_data` and the `compute_data_*` variants (§7.1).

use crate::cell::{CmpOp, distinct};
use crate::column::Column;
use crate::error::ToolError;
use crate::numpy::{Reduction, reduce};
use crate::table::Table;

use super::{AggregationOperation, ToolValue};

/// Aggregates one column (or counts the rows when `key_name` is empty).
///
/// `distinct` keeps the first occurrence of each value (Python dict semantics, every NaN its
/// own value) before `limit` (when `>= 0`) keeps a prefix. `min`, `max`, `sum`, `mean` and
/// `std` are numpy's nan-aware reductions converted to `float`; `count` is the length;
/// `argmin`/`argmax` use Python's `min`/`max` and `list.index`.
pub fn aggregate_data(
    data: &Table,
    key_name: &str,
    aggregation_operation: AggregationOperation,
    distinct_values: bool,
    limit: i64,
) -> Result<ToolValue, ToolError> {
    let column = if key_name.is_empty() {
        if aggregation_operation != AggregationOperation::Count {
            return Err(ToolError::new(format!(
                "Can't aggregate '*' with aggregation type {}",
                aggregation_operation.python_member()
            )));
        }
        data.columns()
            .first()
            .ok_or_else(|| ToolError::new("list index out of range"))?
    } else {
        let column = &data.columns()[data.best_key(key_name)?];
        if column.is_empty() {
            return Err(ToolError::new("Empty data can't be aggregated. "));
        }
        column
    };
    let column = if distinct_values {
        column.with_cells(distinct(&column.values()))
    } else {
        column.clone()
    };
    let column = match usize::try_from(limit) {
        Ok(limit) => column.prefix(limit),
        Err(_) => column,
    };
    apply(&column, aggregation_operation)
}

fn apply(values: &Column, op: AggregationOperation) -> Result<ToolValue, ToolError> {
    let float = |r: Reduction| {
        reduce(values.iter(), r).map(|x| ToolValue::Scalar(vakra_pytext::float_repr(x)))
    };
    match op {
        AggregationOperation::Count => Ok(ToolValue::Scalar(values.len().to_string())),
        AggregationOperation::Sum => float(Reduction::Sum),
        AggregationOperation::Mean => float(Reduction::Mean),
        AggregationOperation::Std => float(Reduction::Std),
        AggregationOperation::Min => float(Reduction::Min),
        AggregationOperation::Max => float(Reduction::Max),
        AggregationOperation::Argmin => arg_extreme(values, CmpOp::Lt, "min"),
        AggregationOperation::Argmax => arg_extreme(values, CmpOp::Gt, "max"),
    }
}

/// `list(data).index(min(data))` (or `max`): Python's `min` keeps the first of equal values
/// and replaces its candidate only when `item < candidate`; `index` then finds the first value
/// equal to the winner.
fn arg_extreme(values: &Column, op: CmpOp, name: &str) -> Result<ToolValue, ToolError> {
    if values.is_empty() {
        return Err(ToolError::new(format!("{name}() arg is an empty sequence")));
    }
    let mut best = 0;
    for i in 1..values.len() {
        if values
            .get(i)
            .py_compare(values.get(best), op)
            .map_err(ToolError::new)?
        {
            best = i;
        }
    }
    let winner = values.get(best);
    let index = (0..best)
        .position(|i| values.get(i).py_eq(winner))
        .unwrap_or(best);
    Ok(ToolValue::Scalar(index.to_string()))
}

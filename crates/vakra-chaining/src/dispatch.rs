//! One call of a capability-1 tool or getter: its arguments decoded by its input model, then
//! the engine's function run on them.

use serde_json::Value;
use vakra_frame::{
    AggregationOperation, CalcOperand, CalculatorOperation, Cell, FilterCondition, KeyName, Pandas,
    ToolError, ToolValue, TransformOperation, aggregate_data, calculator, concatenate_data,
    filter_data, getter, retrieve_data, select_unique_values, sort_data, transform_data,
    transform_data_to_absolute_value, transform_data_to_datetime_part, transform_data_to_substring,
    truncate,
};
use vakra_pytext::py_repr;
use vakra_pytext::pydantic::{LineError, validation_error};

use crate::inputs::Inputs;
use crate::pydantic::{ArgValue, kwargs_repr};
use crate::tools::ToolKind;

fn tool_error(e: ToolError) -> String {
    e.message().to_owned()
}

pub(crate) fn run_getter(column: &str, args: Vec<(String, ArgValue)>) -> Result<ToolValue, String> {
    let mut inputs = Inputs::new("GetterInput", args);
    let data = inputs.table("data");
    inputs.finish()?;
    getter(&data.expect("validated"), column).map_err(tool_error)
}

pub(crate) fn run_tool(
    kind: ToolKind,
    args: Vec<(String, ArgValue)>,
    pandas: Pandas,
) -> Result<ToolValue, String> {
    let model = kind.model().unwrap_or("Input");
    let mut i = Inputs::new(model, args);
    let agg: Vec<&str> = AggregationOperation::ALL
        .iter()
        .map(|o| o.as_str())
        .collect();
    let cond: Vec<&str> = FilterCondition::ALL.iter().map(|o| o.as_str()).collect();
    macro_rules! done {
        ($($v:ident),*) => {{
            i.finish()?;
            ($($v.expect("validated")),*)
        }};
    }
    match kind {
        ToolKind::AggregateData | ToolKind::ComputeData(_) => {
            let preset = match kind {
                ToolKind::ComputeData(op) => Some(op),
                _ => None,
            };
            let data = i.table("data");
            let key = i.string("key_name", Some(""));
            let op = i.choice::<AggregationOperation>("aggregation_operation", preset, &agg);
            let distinct = i.boolean("distinct", Some(false));
            let limit = i.int("limit", Some(-1));
            let (data, key, op, distinct, limit) = done!(data, key, op, distinct, limit);
            aggregate_data(&data, &key, op, distinct, limit).map_err(tool_error)
        }
        ToolKind::Calculator => {
            let ops: Vec<&str> = CalculatorOperation::ALL
                .iter()
                .map(|o| o.as_str())
                .collect();
            let a = i.json("input_1", None);
            let b = i.json("input_2", None);
            let op = i.choice::<CalculatorOperation>("operation", None, &ops);
            let (a, b, op) = done!(a, b, op);
            let operand = |v: &Value| {
                CalcOperand::from_json(v)
                    .ok_or_else(|| format!("unsupported operand: {}", py_repr(v)))
            };
            calculator(&operand(&a)?, &operand(&b)?, op).map_err(tool_error)
        }
        ToolKind::ConcatenateData => {
            let a = i.table("data_1");
            let b = i.table("data_2");
            let (a, b) = done!(a, b);
            concatenate_data(&a, &b, pandas).map_err(tool_error)
        }
        ToolKind::FilterData | ToolKind::SelectData(_) => {
            let preset = match kind {
                ToolKind::SelectData(c) => Some(c),
                _ => None,
            };
            let data = i.table("data");
            let key = i.string("key_name", None);
            let value = i.json("value", None);
            let condition = i.choice::<FilterCondition>("condition", preset, &cond);
            let (data, key, value, condition) = done!(data, key, value, condition);
            let value = Cell::from_json(&value)
                .ok_or_else(|| format!("unsupported filter value: {}", py_repr(&value)))?;
            filter_data(&data, &key, &value, condition, pandas).map_err(tool_error)
        }
        ToolKind::InitializeActiveData => Err("initialize_active_data runs in the session".into()),
        ToolKind::RetrieveData => {
            let data = i.table("data");
            let key = i.json("key_name", None);
            let distinct = i.boolean("distinct", Some(false));
            let limit = i.int("limit", Some(-1));
            let (data, key, distinct, limit) = done!(data, key, distinct, limit);
            let key: KeyName = serde_json::from_value(key.clone())
                .map_err(|_| format!("invalid key_name: {}", py_repr(&key)))?;
            retrieve_data(&data, &key, distinct, limit).map_err(tool_error)
        }
        ToolKind::SelectUniqueValues => {
            let array = i.json("unique_array", None);
            let array = done!(array);
            match array.as_array() {
                Some(items) => select_unique_values(items).map_err(tool_error),
                None => Err(format!("invalid unique_array: {}", py_repr(&array))),
            }
        }
        ToolKind::SortData | ToolKind::SortDataPreset(_) => {
            let data = i.table("data");
            let key = i.string("key_name", Some(""));
            let ascending = match kind {
                ToolKind::SortDataPreset(a) => i.boolean("ascending", Some(a)).map(|_| a),
                _ => i.boolean("ascending", Some(false)),
            };
            let ranking = i.json("ranking_array", Some(Value::Null));
            let (data, key, ascending, ranking) = done!(data, key, ascending, ranking);
            if key.is_empty() && ranking.is_null() {
                let item = LineError {
                    loc: String::new(),
                    message: "Value error, Either key_name or ranking_array must be provided"
                        .into(),
                    kind: "value_error",
                    input_repr: kwargs_repr(&i.args),
                    input_type: "dict",
                };
                return Err(validation_error(model, &[item]));
            }
            let ranking: Option<Vec<Cell>> = match &ranking {
                Value::Array(items) => Some(items.iter().filter_map(Cell::from_json).collect()),
                _ => None,
            };
            sort_data(&data, &key, ascending, ranking.as_deref(), pandas).map_err(tool_error)
        }
        ToolKind::TransformData => {
            let ops: Vec<&str> = TransformOperation::ALL.iter().map(|o| o.as_str()).collect();
            let data = i.table("data");
            let key = i.string("key_name", None);
            let op = i.choice::<TransformOperation>("operation_type", None, &ops);
            let op_args = i.json("operation_args", Some(Value::Null));
            let (data, key, op, op_args) = done!(data, key, op, op_args);
            transform_data(&data, &key, op, op_args.as_object()).map_err(tool_error)
        }
        ToolKind::TransformDataToSubstring => {
            let data = i.table("data");
            let key = i.string("key_name", None);
            let start = i.int("start_index", None);
            let end = i.int("end_index", None);
            let (data, key, start, end) = done!(data, key, start, end);
            transform_data_to_substring(&data, &key, start, end).map_err(tool_error)
        }
        ToolKind::TransformDataToAbsoluteValue => {
            let data = i.table("data");
            let key = i.string("key_name", None);
            let (data, key) = done!(data, key);
            transform_data_to_absolute_value(&data, &key).map_err(tool_error)
        }
        ToolKind::TransformDataToDatetimePart => {
            let data = i.table("data");
            let key = i.string("key_name", None);
            let pattern = i.string("datetime_pattern", None);
            let (data, key, pattern) = done!(data, key, pattern);
            transform_data_to_datetime_part(&data, &key, &pattern).map_err(tool_error)
        }
        ToolKind::Truncate => {
            let array = i.json("truncate_array", None);
            let n = i.int("n", None);
            let (array, n) = done!(array, n);
            truncate(&array, n).map_err(tool_error)
        }
    }
}

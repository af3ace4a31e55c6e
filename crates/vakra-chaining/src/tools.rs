//! The tools of both toolsets: names, order, input models and the JSON schemas `tools/list`
//! shows (pydantic v2's `model_json_schema()` with the data fields renamed to handle strings).
//!
//! pydantic writes every schema object with its keys sorted, except `properties`, which keeps
//! the model's field order; the server then replaces `data`, `data_1` and `data_2` in place by
//! `data_label*` with a `{"type", "description"}` schema. [`ToolKind::input_schema`] rebuilds
//! that shape, taking every description from [`ToolTexts`].

use serde_json::{Map, Value, json};
use vakra_frame::{AggregationOperation, CalculatorOperation, FilterCondition, TransformOperation};

use vakra_catalog::ToolTexts;

/// A tool of SLOT-BIRD or SEL-BIRD other than `get_data` and the column getters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    AggregateData,
    Calculator,
    ConcatenateData,
    FilterData,
    InitializeActiveData,
    RetrieveData,
    SelectUniqueValues,
    SortData,
    TransformData,
    TransformDataToSubstring,
    TransformDataToAbsoluteValue,
    TransformDataToDatetimePart,
    Truncate,
    /// `select_data_<condition>`.
    SelectData(FilterCondition),
    /// `sort_data_ascending` (`true`) and `sort_data_descending`.
    SortDataPreset(bool),
    /// `compute_data_<operation>`.
    ComputeData(AggregationOperation),
}

/// SLOT-BIRD's function map, in registration order (the order of `tools/list`).
pub const SLOT_FILLING: &[ToolKind] = &[
    ToolKind::AggregateData,
    ToolKind::Calculator,
    ToolKind::ConcatenateData,
    ToolKind::FilterData,
    ToolKind::InitializeActiveData,
    ToolKind::RetrieveData,
    ToolKind::SelectUniqueValues,
    ToolKind::SortData,
    ToolKind::TransformData,
];

/// SEL-BIRD's base tools (the getters come before them), in registration order.
pub fn selection_base() -> Vec<ToolKind> {
    let mut tools = vec![
        ToolKind::Calculator,
        ToolKind::ConcatenateData,
        ToolKind::InitializeActiveData,
        ToolKind::SelectUniqueValues,
        ToolKind::TransformDataToSubstring,
        ToolKind::TransformDataToAbsoluteValue,
        ToolKind::TransformDataToDatetimePart,
        ToolKind::Truncate,
    ];
    tools.extend(
        FilterCondition::ALL
            .iter()
            .map(|c| ToolKind::SelectData(*c)),
    );
    tools.extend([
        ToolKind::SortDataPreset(true),
        ToolKind::SortDataPreset(false),
    ]);
    tools.extend(
        AggregationOperation::ALL
            .iter()
            .map(|o| ToolKind::ComputeData(*o)),
    );
    tools
}

impl ToolKind {
    /// The tool's name.
    pub fn name(self) -> String {
        match self {
            ToolKind::AggregateData => "aggregate_data".into(),
            ToolKind::Calculator => "Calculator".into(),
            ToolKind::ConcatenateData => "concatenate_data".into(),
            ToolKind::FilterData => "filter_data".into(),
            ToolKind::InitializeActiveData => "initialize_active_data".into(),
            ToolKind::RetrieveData => "retrieve_data".into(),
            ToolKind::SelectUniqueValues => "select_unique_values".into(),
            ToolKind::SortData => "sort_data".into(),
            ToolKind::TransformData => "transform_data".into(),
            ToolKind::TransformDataToSubstring => "transform_data_to_substring".into(),
            ToolKind::TransformDataToAbsoluteValue => "transform_data_to_absolute_value".into(),
            ToolKind::TransformDataToDatetimePart => "transform_data_to_datetime_part".into(),
            ToolKind::Truncate => "truncate".into(),
            ToolKind::SelectData(c) => format!("select_data_{}", c.as_str()),
            ToolKind::SortDataPreset(true) => "sort_data_ascending".into(),
            ToolKind::SortDataPreset(false) => "sort_data_descending".into(),
            ToolKind::ComputeData(o) => format!("compute_data_{}", o.as_str()),
        }
    }

    /// The input model's title, which pydantic errors quote; `None` for the unmodelled
    /// `initialize_active_data`.
    pub fn model(self) -> Option<&'static str> {
        Some(match self {
            ToolKind::AggregateData | ToolKind::ComputeData(_) => "AggregateDataInput",
            ToolKind::Calculator => "CalculatorInput",
            ToolKind::ConcatenateData => "ConcatenateDataInput",
            ToolKind::FilterData | ToolKind::SelectData(_) => "FilterDataInput",
            ToolKind::InitializeActiveData => return None,
            ToolKind::RetrieveData => "RetrieveDataInput",
            ToolKind::SelectUniqueValues => "SelectUniqueDataInput",
            ToolKind::SortData | ToolKind::SortDataPreset(_) => "SortDataInput",
            ToolKind::TransformData => "TransformDataInput",
            ToolKind::TransformDataToSubstring => "TransformDataToSubstringInput",
            ToolKind::TransformDataToAbsoluteValue => "TransformDataToAbsoluteValueInput",
            ToolKind::TransformDataToDatetimePart => "TransformDataToDatetimePartInput",
            ToolKind::Truncate => "TruncateInput",
        })
    }

    /// Whether the input model has a `data` field (the server then insists on a handle).
    pub fn takes_data(self) -> bool {
        !matches!(
            self,
            ToolKind::Calculator
                | ToolKind::ConcatenateData
                | ToolKind::InitializeActiveData
                | ToolKind::SelectUniqueValues
                | ToolKind::Truncate
        )
    }

    /// The prefix of the handles of its table results.
    pub fn handle_prefix(self) -> &'static str {
        match self {
            ToolKind::SelectData(_) | ToolKind::FilterData => "filtered",
            ToolKind::ComputeData(_) | ToolKind::AggregateData => "aggregated",
            ToolKind::SortDataPreset(_) | ToolKind::SortData => "sorted",
            ToolKind::RetrieveData => "retrieved",
            ToolKind::TransformData
            | ToolKind::TransformDataToSubstring
            | ToolKind::TransformDataToAbsoluteValue
            | ToolKind::TransformDataToDatetimePart => "transformed",
            ToolKind::ConcatenateData => "concatenated",
            ToolKind::SelectUniqueValues => "unique",
            ToolKind::Truncate => "truncated",
            ToolKind::Calculator | ToolKind::InitializeActiveData => "result",
        }
    }

    /// The input schema as listed, `None` for the unlisted `initialize_active_data`.
    pub fn input_schema(self, texts: &ToolTexts) -> Option<Map<String, Value>> {
        let model = self.model()?;
        let field = |name: &str| FieldText {
            description: texts.field(model, name),
            title: title_of(name),
        };
        let preset = |name: &str| FieldText {
            description: texts.preset(&self.name(), name),
            title: title_of(name),
        };
        let data = || ("data".to_owned(), json!(null));
        let mut defs = Map::new();
        let mut enum_def = |name: &str, values: Vec<&str>| {
            let mut def = Map::new();
            if let Some(d) = texts.model(name) {
                def.insert("description".into(), d.into());
            }
            def.insert("enum".into(), json!(values));
            def.insert("title".into(), name.into());
            def.insert("type".into(), "string".into());
            defs.insert(name.to_owned(), Value::Object(def));
            format!("#/$defs/{name}")
        };
        let mut properties: Vec<(String, Value)> = Vec::new();
        let mut required: Vec<&str> = Vec::new();
        match self {
            ToolKind::AggregateData | ToolKind::ComputeData(_) => {
                properties.push(data());
                required.push("data");
                properties.push((
                    "key_name".into(),
                    field("key_name").typed("string", json!("")),
                ));
                match self {
                    ToolKind::ComputeData(op) => {
                        properties.push((
                            "aggregation_operation".into(),
                            preset("aggregation_operation").constant("string", json!(op.as_str())),
                        ));
                    }
                    _ => {
                        let values = AggregationOperation::ALL
                            .iter()
                            .map(|o| o.as_str())
                            .collect();
                        let r = enum_def("AggregationOperation", values);
                        properties.push((
                            "aggregation_operation".into(),
                            field("aggregation_operation").reference(&r),
                        ));
                        required.push("aggregation_operation");
                    }
                }
                properties.push((
                    "distinct".into(),
                    field("distinct").typed("boolean", json!(false)),
                ));
                let limit = match self {
                    ToolKind::ComputeData(_) => preset("limit").constant("integer", json!(-1)),
                    _ => field("limit").typed("integer", json!(-1)),
                };
                properties.push(("limit".into(), limit));
            }
            ToolKind::Calculator => {
                let operand = json!([{"type": "integer"}, {"type": "number"},
                    {"items": {"anyOf": [{"type": "integer"}, {"type": "number"}, {"type": "null"}]}, "type": "array"},
                    {"items": {"type": "integer"}, "type": "array"},
                    {"items": {"type": "number"}, "type": "array"}]);
                properties.push((
                    "input_1".into(),
                    field("input_1").any_of(operand.clone(), None),
                ));
                properties.push(("input_2".into(), field("input_2").any_of(operand, None)));
                let values = CalculatorOperation::ALL
                    .iter()
                    .map(|o| o.as_str())
                    .collect();
                let r = enum_def("CalculatorOperation", values);
                properties.push(("operation".into(), field("operation").reference(&r)));
                required.extend(["input_1", "input_2", "operation"]);
            }
            ToolKind::ConcatenateData => {
                properties.push(("data_1".into(), Value::Null));
                properties.push(("data_2".into(), Value::Null));
                required.extend(["data_1", "data_2"]);
            }
            ToolKind::FilterData | ToolKind::SelectData(_) => {
                properties.push(data());
                properties.push(("key_name".into(), field("key_name").required("string")));
                let value = json!([{"type": "string"}, {"type": "number"}, {"type": "integer"}, {"type": "null"}]);
                properties.push(("value".into(), field("value").any_of(value, None)));
                required.extend(["data", "key_name", "value"]);
                match self {
                    ToolKind::SelectData(c) => properties.push((
                        "condition".into(),
                        preset("condition").constant("string", json!(c.as_str())),
                    )),
                    _ => {
                        let values = FilterCondition::ALL.iter().map(|c| c.as_str()).collect();
                        let r = enum_def("FilterCondition", values);
                        properties.push(("condition".into(), field("condition").reference(&r)));
                        required.push("condition");
                    }
                }
            }
            ToolKind::InitializeActiveData => return None,
            ToolKind::RetrieveData => {
                properties.push(data());
                let key =
                    json!([{"type": "string"}, {"items": {"type": "string"}, "type": "array"}]);
                properties.push(("key_name".into(), field("key_name").any_of(key, None)));
                properties.push((
                    "distinct".into(),
                    field("distinct").typed("boolean", json!(false)),
                ));
                properties.push(("limit".into(), field("limit").typed("integer", json!(-1))));
                required.extend(["data", "key_name"]);
            }
            ToolKind::SelectUniqueValues => {
                let mut p = field("unique_array").base();
                p.insert("items".into(), json!({}));
                p.insert("type".into(), "array".into());
                properties.push(("unique_array".into(), sorted(p)));
                required.push("unique_array");
            }
            ToolKind::SortData | ToolKind::SortDataPreset(_) => {
                properties.push(data());
                required.push("data");
                properties.push((
                    "key_name".into(),
                    field("key_name").typed("string", json!("")),
                ));
                let ascending = match self {
                    ToolKind::SortDataPreset(a) => {
                        preset("ascending").constant("boolean", json!(a))
                    }
                    _ => field("ascending").typed("boolean", json!(false)),
                };
                properties.push(("ascending".into(), ascending));
                let ranking = json!([{"items": {"type": "number"}, "type": "array"},
                    {"items": {"type": "integer"}, "type": "array"}, {"type": "null"}]);
                properties.push((
                    "ranking_array".into(),
                    field("ranking_array").any_of(ranking, Some(Value::Null)),
                ));
            }
            ToolKind::TransformData => {
                properties.push(data());
                properties.push(("key_name".into(), field("key_name").required("string")));
                let values = TransformOperation::ALL.iter().map(|o| o.as_str()).collect();
                let r = enum_def("TransformOperation", values);
                properties.push((
                    "operation_type".into(),
                    field("operation_type").reference(&r),
                ));
                let args =
                    json!([{"additionalProperties": true, "type": "object"}, {"type": "null"}]);
                properties.push((
                    "operation_args".into(),
                    field("operation_args").any_of(args, Some(Value::Null)),
                ));
                required.extend(["data", "key_name", "operation_type"]);
            }
            ToolKind::TransformDataToSubstring => {
                properties.push(data());
                properties.push(("key_name".into(), field("key_name").required("string")));
                properties.push((
                    "start_index".into(),
                    field("start_index").required("integer"),
                ));
                properties.push(("end_index".into(), field("end_index").required("integer")));
                required.extend(["data", "key_name", "start_index", "end_index"]);
            }
            ToolKind::TransformDataToAbsoluteValue => {
                properties.push(data());
                properties.push(("key_name".into(), field("key_name").required("string")));
                required.extend(["data", "key_name"]);
            }
            ToolKind::TransformDataToDatetimePart => {
                properties.push(data());
                properties.push(("key_name".into(), field("key_name").required("string")));
                properties.push((
                    "datetime_pattern".into(),
                    field("datetime_pattern").required("string"),
                ));
                required.extend(["data", "key_name", "datetime_pattern"]);
            }
            ToolKind::Truncate => {
                let array = json!([{"additionalProperties": {"items": {}, "type": "array"}, "type": "object"},
                    {"items": {}, "type": "array"}]);
                properties.push((
                    "truncate_array".into(),
                    field("truncate_array").any_of(array, None),
                ));
                let mut n = field("n").base();
                n.insert("minimum".into(), json!(0));
                n.insert("type".into(), "integer".into());
                properties.push(("n".into(), sorted(n)));
                required.extend(["truncate_array", "n"]);
            }
        }
        Some(model_schema(texts, model, defs, properties, &required))
    }
}

/// The description and title pydantic gives a field.
struct FieldText<'t> {
    description: Option<&'t str>,
    title: String,
}

impl FieldText<'_> {
    fn base(&self) -> Map<String, Value> {
        let mut p = Map::new();
        if let Some(d) = self.description {
            p.insert("description".into(), d.into());
        }
        p.insert("title".into(), self.title.clone().into());
        p
    }

    fn required(&self, ty: &str) -> Value {
        let mut p = self.base();
        p.insert("type".into(), ty.into());
        sorted(p)
    }

    fn typed(&self, ty: &str, default: Value) -> Value {
        let mut p = self.base();
        p.insert("default".into(), default);
        p.insert("type".into(), ty.into());
        sorted(p)
    }

    fn constant(&self, ty: &str, value: Value) -> Value {
        let mut p = self.base();
        p.insert("const".into(), value.clone());
        p.insert("default".into(), value);
        p.insert("type".into(), ty.into());
        sorted(p)
    }

    fn any_of(&self, branches: Value, default: Option<Value>) -> Value {
        let mut p = self.base();
        p.insert("anyOf".into(), branches);
        if let Some(d) = default {
            p.insert("default".into(), d);
        }
        sorted(p)
    }

    /// An enum field: pydantic writes only the reference and the description.
    fn reference(&self, target: &str) -> Value {
        let mut p = Map::new();
        p.insert("$ref".into(), target.into());
        if let Some(d) = self.description {
            p.insert("description".into(), d.into());
        }
        Value::Object(p)
    }
}

fn sorted(map: Map<String, Value>) -> Value {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Value::Object(entries.into_iter().collect())
}

/// pydantic's field title: words split at `_`, each capitalised as `str.title` does.
pub(crate) fn title_of(name: &str) -> String {
    name.split('_')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first
                    .to_uppercase()
                    .chain(chars.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

/// The handle argument's schema, which replaces a `data*` field.
fn handle_schema(texts: &ToolTexts) -> Value {
    let mut p = Map::new();
    p.insert("type".into(), "string".into());
    if let Some(d) = &texts.handle {
        p.insert("description".into(), d.clone().into());
    }
    Value::Object(p)
}

/// The internal name of a renamed argument, and back.
pub(crate) const DATA_RENAMES: [(&str, &str); 3] = [
    ("data", "data_label"),
    ("data_1", "data_label_1"),
    ("data_2", "data_label_2"),
];

fn renamed(name: &str) -> &str {
    DATA_RENAMES
        .iter()
        .find(|(internal, _)| *internal == name)
        .map_or(name, |(_, label)| label)
}

fn model_schema(
    texts: &ToolTexts,
    model: &str,
    defs: Map<String, Value>,
    properties: Vec<(String, Value)>,
    required: &[&str],
) -> Map<String, Value> {
    let mut schema = Map::new();
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    schema.insert("additionalProperties".into(), false.into());
    if let Some(d) = texts.model(model) {
        schema.insert("description".into(), d.into());
    }
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(name, p)| {
            if renamed(&name) != name {
                (renamed(&name).to_owned(), handle_schema(texts))
            } else {
                (name, p)
            }
        })
        .collect();
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert(
        "required".into(),
        json!(required.iter().map(|r| renamed(r)).collect::<Vec<_>>()),
    );
    schema.insert("title".into(), model.into());
    schema.insert("type".into(), "object".into());
    schema
}

/// The schema of every getter (`GetterInput`).
pub fn getter_schema(texts: &ToolTexts) -> Map<String, Value> {
    model_schema(
        texts,
        "GetterInput",
        Map::new(),
        vec![("data".into(), Value::Null)],
        &["data"],
    )
}

/// The schema of `get_data` (`GetDataInput`: no `additionalProperties`, nothing required).
pub fn get_data_schema(texts: &ToolTexts) -> Map<String, Value> {
    let mut schema = Map::new();
    if let Some(d) = texts.model("GetDataInput") {
        schema.insert("description".into(), d.into());
    }
    let field = FieldText {
        description: texts.field("GetDataInput", "tool_universe_id"),
        title: title_of("tool_universe_id"),
    };
    let id = field.any_of(
        json!([{"type": "string"}, {"type": "null"}]),
        Some(Value::Null),
    );
    schema.insert("properties".into(), json!({"tool_universe_id": id}));
    schema.insert("title".into(), "GetDataInput".into());
    schema.insert("type".into(), "object".into());
    schema
}

/// A getter's description: its docstring, stripped.
pub fn getter_description(texts: &ToolTexts, column: &str, dtype: &str) -> String {
    let args = texts.getter_args.as_deref().unwrap_or_default();
    format!(
        "Lookup data {column}: Column {column}\n\n\tArgs:\n\t\t{args}\n\tReturns:\n\t\tlist['{dtype}']: list of {column}s"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_follow_str_title() {
        assert_eq!(title_of("key_name"), "Key Name");
        assert_eq!(title_of("tool_universe_id"), "Tool Universe Id");
        assert_eq!(title_of("input_1"), "Input 1");
        assert_eq!(title_of("n"), "N");
    }

    #[test]
    fn names_identify_tools() {
        let mut names: Vec<String> = SLOT_FILLING.iter().map(|t| t.name()).collect();
        names.extend(selection_base().iter().map(|t| t.name()));
        let all = names.len();
        names.sort();
        names.dedup();
        // Calculator, concatenate_data, initialize_active_data and select_unique_values are shared
        assert_eq!(names.len(), all - 4);
        assert_eq!(selection_base().len(), 26);
    }
}

//! The request form of the reference's runner: what its tool wrapper, pydantic 2.14's
//! `model_json_schema` and langchain-core 1.8.3's `convert_to_openai_tool` make of an MCP tool,
//! and how langchain-openai 1.7.4 writes messages. Restated from their observable behaviour
//! (`docs/compatibility.md`, "What the model is sent", lists every rule); the tests compare
//! with requests the reference's stack sent.
//!
//! A tool becomes a pydantic model with one field per listed property:
//! - its type is the JSON type's Python type (`string` → `str`, `integer` → `int`, `number` →
//!   `float`, `boolean` → `bool`, `array` → `list`, `object` → `dict`); a property with `anyOf`,
//!   a list of types, an unknown type or no `type` (a `$ref`, `allOf`, `const`, …) is `Any`; one
//!   with `enum` is `str`, and its description gains ` Allowed values: a, b` (Python's `str` of
//!   each value), stripped;
//! - a property that is required and has no default is required as is; every other one becomes
//!   `Optional[T]` with the listed default — and, when it has none, stays required;
//! - everything else the schema says (enum values behind `$ref`, `const`, `minimum`, formats,
//!   items, titles, the schema's own title and description) is dropped.
//!
//! pydantic then writes the model's schema with sorted keys (a property's keys, never the
//! properties' order), LangChain removes the titles, and a tool without properties gets
//! LangChain's placeholder schema for a function of `**kwargs` (`langchain_placeholder.json`,
//! langchain-core's text, MIT licence).

use serde_json::{Map, Value, json};

/// The function parameters LangChain sends for a tool whose schema has no properties.
const PLACEHOLDER: &str = include_str!("langchain_placeholder.json");

/// Which tool definitions a model is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolSchemas {
    /// What the reference's runner sends (the default: scores compare with the leaderboard).
    #[default]
    Reference,
    /// The MCP input schemas as the server lists them (enums, `$defs`, constraints): more
    /// informative, not comparable with the leaderboard.
    Mcp,
}

impl ToolSchemas {
    pub fn name(self) -> &'static str {
        match self {
            ToolSchemas::Reference => "reference",
            ToolSchemas::Mcp => "mcp",
        }
    }
}

/// A tool's description as the reference's wrapper gives it: an empty or missing one becomes
/// `Tool: <name>`.
pub fn description(tool: &rmcp::model::Tool) -> String {
    match tool.description.as_deref() {
        Some(d) if !d.is_empty() => d.to_owned(),
        _ => format!("Tool: {}", tool.name),
    }
}

/// The OpenAI function definition of one MCP tool.
pub fn function_definition(tool: &rmcp::model::Tool, schemas: ToolSchemas) -> Value {
    let description = description(tool);
    let parameters = match schemas {
        ToolSchemas::Reference => reference_parameters(&tool.input_schema),
        ToolSchemas::Mcp => Value::Object((*tool.input_schema).clone()),
    };
    json!({"type": "function", "function": {
        "name": tool.name, "description": description, "parameters": parameters}})
}

/// One field of the model the reference builds from a property.
pub struct Field<'a> {
    pub name: &'a str,
    pub kind: Kind,
    /// `Optional[kind]`.
    pub optional: bool,
    /// The listed default, when there is one.
    pub default: Option<&'a Value>,
    pub description: String,
}

impl Field<'_> {
    /// pydantic requires a field that has no default.
    pub fn required(&self) -> bool {
        self.default.is_none()
    }
}

/// The Python type of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Str,
    Int,
    Float,
    Bool,
    List,
    Dict,
    Any,
}

impl Kind {
    fn of(property: &Map<String, Value>) -> Kind {
        if property.contains_key("anyOf") {
            return Kind::Any;
        }
        if property.contains_key("enum") {
            return Kind::Str;
        }
        match property.get("type").and_then(Value::as_str) {
            Some("string") => Kind::Str,
            Some("integer") => Kind::Int,
            Some("number") => Kind::Float,
            Some("boolean") => Kind::Bool,
            Some("array") => Kind::List,
            Some("object") => Kind::Dict,
            _ => Kind::Any,
        }
    }

    /// pydantic's schema of the type, keys sorted.
    fn schema(self) -> Value {
        match self {
            Kind::Str => json!({"type": "string"}),
            Kind::Int => json!({"type": "integer"}),
            Kind::Float => json!({"type": "number"}),
            Kind::Bool => json!({"type": "boolean"}),
            Kind::List => json!({"items": {}, "type": "array"}),
            Kind::Dict => json!({"additionalProperties": true, "type": "object"}),
            Kind::Any => json!({}),
        }
    }
}

/// The fields of the model the reference's wrapper builds from an input schema, in the
/// listing's order; `None` when it builds none (no `properties`, or none listed).
pub fn reference_fields(schema: &Map<String, Value>) -> Option<Vec<Field<'_>>> {
    let properties = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<Field<'_>> = properties
        .iter()
        .map(|(name, property)| {
            let property = property.as_object();
            let get = |key: &str| property.and_then(|p| p.get(key));
            let mut description = match get("description") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => vakra_pytext::py_str(other),
                None => String::new(),
            };
            if let Some(Value::Array(values)) = get("enum")
                && !values.is_empty()
            {
                let values: Vec<String> = values.iter().map(vakra_pytext::py_str).collect();
                description = format!("{description} Allowed values: {}", values.join(", "))
                    .trim_matches(vakra_pytext::is_space)
                    .to_owned();
            }
            let default = get("default");
            Field {
                name,
                kind: property.map_or(Kind::Any, Kind::of),
                optional: !(required.contains(&name.as_str()) && default.is_none()),
                default,
                description,
            }
        })
        .collect();
    (!fields.is_empty()).then_some(fields)
}

/// The `parameters` LangChain sends for a tool with this input schema.
pub fn reference_parameters(schema: &Map<String, Value>) -> Value {
    let Some(fields) = reference_fields(schema) else {
        return serde_json::from_str(PLACEHOLDER).unwrap_or_else(|_| json!({}));
    };
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in &fields {
        let mut entries: Vec<(String, Value)> = Vec::new();
        if field.optional {
            entries.push((
                "anyOf".into(),
                json!([field.kind.schema(), {"type": "null"}]),
            ));
        } else if let Value::Object(schema) = field.kind.schema() {
            entries.extend(schema);
        }
        if let Some(default) = field.default {
            entries.push(("default".into(), default.clone()));
        }
        entries.push((
            "description".into(),
            Value::String(field.description.clone()),
        ));
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        properties.insert(
            field.name.to_owned(),
            Value::Object(entries.into_iter().collect()),
        );
        if field.required() {
            required.push(Value::String(field.name.to_owned()));
        }
    }
    let mut parameters = Map::new();
    parameters.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        parameters.insert("required".into(), Value::Array(required));
    }
    parameters.insert("type".into(), "object".into());
    Value::Object(parameters)
}

/// A message as langchain-openai writes it: `content` before `role`.
pub fn message(role: &str, content: &str) -> Value {
    json!({"content": content, "role": role})
}

/// The answer to a tool call, as langchain-openai writes a `ToolMessage`.
pub fn tool_message(content: &str, tool_call_id: &str) -> Value {
    json!({"content": content, "role": "tool", "tool_call_id": tool_call_id})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameters(schema: Value) -> Value {
        reference_parameters(schema.as_object().unwrap())
    }

    #[test]
    fn enums_behind_refs_unions_and_constraints_are_dropped() {
        let schema = json!({
            "$defs": {"Op": {"enum": ["min", "max"], "type": "string", "title": "Op"}},
            "title": "In", "description": "d", "additionalProperties": false, "type": "object",
            "properties": {
                "op": {"$ref": "#/$defs/Op", "description": "How."},
                "n": {"type": "integer", "minimum": 0, "title": "N", "default": -1, "description": "Count."},
                "u": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "c": {"const": "x", "description": "C."},
                "e": {"enum": [1, true, null, "a"], "type": "string"},
                "l": {"type": "array", "items": {"type": "string"}, "description": "L."},
                "o": {"type": "object", "description": "O."}
            },
            "required": ["op", "u", "e", "l"]
        });
        assert_eq!(
            parameters(schema),
            json!({"properties": {
                "op": {"description": "How."},
                "n": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": -1, "description": "Count."},
                "u": {"description": ""},
                "c": {"anyOf": [{}, {"type": "null"}], "description": "C."},
                "e": {"description": "Allowed values: 1, True, None, a", "type": "string"},
                "l": {"description": "L.", "items": {}, "type": "array"},
                "o": {"anyOf": [{"additionalProperties": true, "type": "object"}, {"type": "null"}], "description": "O."}
            }, "required": ["op", "u", "c", "e", "l", "o"], "type": "object"})
        );
    }

    #[test]
    fn keys_come_out_sorted_and_optional_defaults_stay() {
        let out = parameters(json!({"properties": {
            "b": {"type": "boolean", "default": false, "description": "x"},
            "a": {"type": "string", "default": null}
        }, "required": ["a"]}));
        let text = vakra_pytext::dumps(&out, &vakra_pytext::DumpOptions::compact_utf8()).unwrap();
        assert_eq!(
            text,
            r#"{"properties":{"b":{"anyOf":[{"type":"boolean"},{"type":"null"}],"default":false,"description":"x"},"a":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":""}},"type":"object"}"#
        );
    }

    #[test]
    fn tools_without_properties_get_langchains_placeholder() {
        for schema in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
        ] {
            let out = parameters(schema);
            assert_eq!(out["required"], json!(["config"]));
            let keys: Vec<&String> = out["properties"].as_object().unwrap().keys().collect();
            assert_eq!(keys, ["args", "config", "kwargs"]);
        }
    }

    #[test]
    fn messages_put_content_first() {
        let text = serde_json::to_string(&tool_message("r", "c1")).unwrap();
        assert_eq!(text, r#"{"content":"r","role":"tool","tool_call_id":"c1"}"#);
        assert_eq!(
            serde_json::to_string(&message("user", "q")).unwrap(),
            r#"{"content":"q","role":"user"}"#
        );
    }
}

//! Argument validation as the Python MCP SDK does it before a tool runs: `jsonschema` against
//! the tool's input schema, reporting the single best error with jsonschema's message.
//!
//! The schemas are the catalog's (`type: object`, typed `properties`, `required`). jsonschema's
//! `best_match` ranks errors by `(-depth, path, …)`: a missing required property (at the root)
//! beats a wrongly typed one; among missing properties the first in `required` order wins; among
//! wrongly typed properties the one with the greatest name wins.

use serde_json::{Map, Value};

/// The message of the best validation error, or `None` when the arguments are valid.
pub fn validate(arguments: &Map<String, Value>, schema: &Map<String, Value>) -> Option<String> {
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !arguments.contains_key(name) {
                return Some(format!(
                    "{} is a required property",
                    vakra_pyjson::py_repr(&Value::String(name.to_owned()))
                ));
            }
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object)?;
    for (name, property) in properties {
        let (Some(value), Some(ty)) = (
            arguments.get(name),
            property.get("type").and_then(Value::as_str),
        ) else {
            continue;
        };
        if !is_of_type(value, ty) {
            return Some(format!(
                "{} is not of type {}",
                vakra_pyjson::py_repr(value),
                vakra_pyjson::py_repr(&Value::String(ty.to_owned()))
            ));
        }
    }
    None
}

/// jsonschema's type checks for JSON values as Python holds them: an integral float is an
/// `integer`, booleans are not numbers.
fn is_of_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::validate;

    fn schema() -> serde_json::Map<String, serde_json::Value> {
        json!({"type": "object", "properties": {
            "brewery_name": {"type": "string", "description": "d"},
            "ounces": {"type": "integer", "description": "d"},
            "abv": {"type": "number", "description": "d"}},
            "required": ["brewery_name", "ounces"]})
        .as_object()
        .cloned()
        .unwrap_or_default()
    }

    fn check(args: serde_json::Value) -> Option<String> {
        validate(args.as_object().unwrap(), &schema())
    }

    #[test]
    fn messages_match_python_jsonschema() {
        assert_eq!(check(json!({"brewery_name": "x", "ounces": 12})), None);
        assert_eq!(check(json!({"brewery_name": "x", "ounces": 12.0})), None);
        assert_eq!(
            check(json!({"brewery_name": "x", "ounces": 1, "extra": [1]})),
            None
        );
        assert_eq!(
            check(json!({"brewery_name": "x"})).unwrap(),
            "'ounces' is a required property"
        );
        assert_eq!(
            check(json!({})).unwrap(),
            "'brewery_name' is a required property"
        );
        assert_eq!(
            check(json!({"brewery_name": "x", "ounces": "12"})).unwrap(),
            "'12' is not of type 'integer'"
        );
        assert_eq!(
            check(json!({"brewery_name": 5, "ounces": 1})).unwrap(),
            "5 is not of type 'string'"
        );
        assert_eq!(
            check(json!({"brewery_name": "x", "ounces": true})).unwrap(),
            "True is not of type 'integer'"
        );
        assert_eq!(
            check(json!({"brewery_name": "x", "ounces": 1, "abv": false})).unwrap(),
            "False is not of type 'number'"
        );
        assert_eq!(
            check(json!({"brewery_name": null, "ounces": 1.5})).unwrap(),
            "None is not of type 'string'"
        );
        // a missing required property outranks a type error
        assert_eq!(
            check(json!({"brewery_name": 1})).unwrap(),
            "'ounces' is a required property"
        );
    }
}

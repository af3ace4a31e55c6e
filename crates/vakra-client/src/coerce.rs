//! Schema-driven argument coercion before a replayed call, as the reference's replay does it
//! (spec §2.6): agents often send `"5"` for an integer or a scalar for a list, and the
//! reference fixes such values from the tool's input schema before calling.

use serde_json::{Map, Number, Value};

/// Coerces the arguments whose names the schema's `properties` list; others pass unchanged.
pub fn coerce_arguments(arguments: &mut Map<String, Value>, schema: &Map<String, Value>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, value) in arguments.iter_mut() {
        if let Some(property) = properties.get(name) {
            coerce_value(value, property);
        }
    }
}

/// The first non-`null` type a property schema declares.
fn declared_type(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

fn coerce_value(value: &mut Value, schema: &Value) {
    let coerced = match declared_type(schema) {
        Some("integer") => to_integer(value),
        Some("number") => to_number(value),
        Some("boolean") => to_boolean(value),
        Some("string") if !value.is_string() => Some(Value::String(vakra_pytext::py_str(value))),
        Some("array") => {
            if !value.is_array() {
                *value = Value::Array(vec![value.take()]);
            }
            if let (Value::Array(items), Some(item_schema)) = (&mut *value, schema.get("items")) {
                items
                    .iter_mut()
                    .for_each(|item| coerce_value(item, item_schema));
            }
            None
        }
        Some("object") => {
            if let (Value::Object(map), Some(schema)) = (&mut *value, schema.as_object()) {
                coerce_arguments(map, schema);
            }
            None
        }
        _ => None,
    };
    if let Some(coerced) = coerced {
        *value = coerced;
    }
}

fn to_integer(value: &Value) -> Option<Value> {
    match value {
        Value::Bool(b) => Some(Value::from(i64::from(*b))),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64()?;
            (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18).then(|| Value::from(f as i64))
        }
        Value::String(s) => {
            let t = s.trim();
            let digits = t.strip_prefix('-').unwrap_or(t);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                t.parse::<i64>().ok().map(Value::from)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn to_number(value: &Value) -> Option<Value> {
    let f = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => python_float(s.trim())?,
        _ => return None,
    };
    Number::from_f64(f).map(Value::Number)
}

/// Python's `float()` of a stripped string, for the forms JSON numbers can carry.
fn python_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "inf" | "infinity" | "nan") {
        return None; // not representable in JSON; the value stays a string
    }
    s.replace('_', "").parse().ok()
}

fn to_boolean(value: &Value) -> Option<Value> {
    match value {
        Value::Number(n) => Some(Value::Bool(n.as_f64().is_some_and(|f| f != 0.0))),
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "true" | "t" | "1" | "yes" | "y" => Some(Value::Bool(true)),
            "false" | "f" | "0" | "no" | "n" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn coerce(arguments: Value, properties: Value) -> Value {
        let Value::Object(mut map) = arguments else {
            unreachable!()
        };
        let schema = json!({ "properties": properties });
        coerce_arguments(&mut map, schema.as_object().unwrap());
        Value::Object(map)
    }

    #[test]
    fn scalars_follow_the_schema() {
        let got = coerce(
            json!({"i": " -12 ", "f": 3.0, "b": "Yes", "n": "2.5", "s": true, "x": "kept", "l": "a",
                   "bad": "1.5"}),
            json!({"i": {"type": "integer"}, "f": {"type": ["null", "integer"]},
                   "b": {"type": "boolean"}, "n": {"type": "number"}, "s": {"type": "string"},
                   "l": {"type": "array", "items": {"type": "string"}}, "bad": {"type": "integer"}}),
        );
        assert_eq!(
            got,
            json!({"i": -12, "f": 3, "b": true, "n": 2.5, "s": "True", "x": "kept", "l": ["a"],
                   "bad": "1.5"})
        );
    }

    #[test]
    fn strings_get_pythons_str() {
        let got = coerce(
            json!({"a": 3.0, "b": ["x", 1], "c": null}),
            json!({"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}),
        );
        assert_eq!(got, json!({"a": "3.0", "b": "['x', 1]", "c": "None"}));
    }

    #[test]
    fn numbers_become_floats_and_nested_objects_recurse() {
        let got = coerce(
            json!({"n": 5, "o": {"k": "7"}}),
            json!({"n": {"type": "number"},
                   "o": {"type": "object", "properties": {"k": {"type": "integer"}}}}),
        );
        assert_eq!(got["n"], json!(5.0));
        assert!(got["n"].is_f64());
        assert_eq!(got["o"], json!({"k": 7}));
    }
}

//! Argument validation as the Python MCP SDK does it before a tool runs: `jsonschema` (Draft
//! 2020-12) against the tool's input schema, reporting the one error `best_match` picks, with
//! jsonschema's message.
//!
//! Only the keywords the benchmark's schemas use are interpreted: `$ref` into `$defs`, `type`,
//! `enum`, `const`, `anyOf`, `items`, `properties`, `additionalProperties`, `required` and
//! `minimum`; annotations (`title`, `description`, `default`) are ignored. Errors are produced in
//! the schema's key order, as jsonschema iterates them, because ties go to the first one.
//!
//! `best_match` ranks by `(-depth, path, not weak, strong, not matches-type)`, takes the first
//! maximum, and descends into an `anyOf` error's branch errors unless the two least relevant tie.
//! Hence: a root-level error (extra or missing property) beats any property error; among
//! property errors the greatest property name wins; `anyOf` branches that all fail alike are
//! reported as `… is not valid under any of the given schemas`.

use std::cmp::Ordering;

use serde_json::{Map, Value};
use vakra_pytext::py_repr;

/// The message of the best validation error, or `None` when the arguments are valid.
pub fn validate(arguments: &Map<String, Value>, schema: &Map<String, Value>) -> Option<String> {
    let instance = Value::Object(arguments.clone());
    let validator = Validator { root: schema };
    let errors = validator.errors(&instance, schema, &mut Vec::new());
    best_match(errors).map(|e| e.message)
}

/// One step of an error's location in the instance.
#[derive(Debug, Clone, PartialEq)]
enum PathItem {
    Key(String),
    Index(usize),
}

#[derive(Debug)]
struct SchemaError {
    /// Location relative to where the enclosing keyword applied (jsonschema's `relative_path`).
    path: Vec<PathItem>,
    keyword: &'static str,
    message: String,
    /// Whether the instance has the type the failing subschema asks for (`false` without one).
    matches_type: bool,
    /// The branch errors of an `anyOf`.
    context: Vec<SchemaError>,
}

struct Validator<'s> {
    root: &'s Map<String, Value>,
}

impl<'s> Validator<'s> {
    fn errors(
        &self,
        instance: &Value,
        schema: &'s Map<String, Value>,
        path: &mut Vec<PathItem>,
    ) -> Vec<SchemaError> {
        let mut out = Vec::new();
        let matches_type = schema
            .get("type")
            .is_some_and(|ty| type_matches(instance, ty));
        let here = path.clone();
        let push = |out: &mut Vec<SchemaError>, keyword, message: String, context| {
            out.push(SchemaError {
                path: here.clone(),
                keyword,
                message,
                matches_type,
                context,
            })
        };
        for (keyword, value) in schema {
            match keyword.as_str() {
                "$ref" => {
                    if let Some(target) = value.as_str().and_then(|r| self.resolve(r)) {
                        out.extend(self.errors(instance, target, path));
                    }
                }
                "type" if !type_matches(instance, value) => {
                    let message =
                        format!("{} is not of type {}", py_repr(instance), type_repr(value));
                    push(&mut out, "type", message, Vec::new());
                }
                "enum" => {
                    let options = value.as_array().map(Vec::as_slice).unwrap_or_default();
                    if !options.iter().any(|o| json_equal(o, instance)) {
                        let message =
                            format!("{} is not one of {}", py_repr(instance), py_repr(value));
                        push(&mut out, "enum", message, Vec::new());
                    }
                }
                "const" if !json_equal(value, instance) => {
                    let message = format!("{} was expected", py_repr(value));
                    push(&mut out, "const", message, Vec::new());
                }
                "minimum" => {
                    if let (Some(x), Some(min)) = (number(instance), value.as_f64())
                        && x < min
                    {
                        let message = format!(
                            "{} is less than the minimum of {}",
                            py_repr(instance),
                            py_repr(value)
                        );
                        push(&mut out, "minimum", message, Vec::new());
                    }
                }
                "anyOf" => {
                    if let Some(context) = self.any_of_errors(instance, value) {
                        let message = format!(
                            "{} is not valid under any of the given schemas",
                            py_repr(instance)
                        );
                        push(&mut out, "anyOf", message, context);
                    }
                }
                "items" => {
                    if let (Some(items), Some(item_schema)) =
                        (instance.as_array(), value.as_object())
                    {
                        for (i, item) in items.iter().enumerate() {
                            path.push(PathItem::Index(i));
                            out.extend(self.errors(item, item_schema, path));
                            path.pop();
                        }
                    }
                }
                "properties" => {
                    if let (Some(object), Some(properties)) =
                        (instance.as_object(), value.as_object())
                    {
                        for (name, property) in properties {
                            if let (Some(v), Some(property)) =
                                (object.get(name), property.as_object())
                            {
                                path.push(PathItem::Key(name.clone()));
                                out.extend(self.errors(v, property, path));
                                path.pop();
                            }
                        }
                    }
                }
                "additionalProperties" => {
                    let Some(object) = instance.as_object() else {
                        continue;
                    };
                    let declared = schema.get("properties").and_then(Value::as_object);
                    let extras: Vec<&String> = object
                        .keys()
                        .filter(|k| !declared.is_some_and(|d| d.contains_key(*k)))
                        .collect();
                    match value {
                        Value::Bool(false) if !extras.is_empty() => {
                            let message = unexpected_properties(&extras);
                            push(&mut out, "additionalProperties", message, Vec::new());
                        }
                        Value::Object(extra_schema) => {
                            for key in extras {
                                path.push(PathItem::Key(key.clone()));
                                out.extend(self.errors(&object[key], extra_schema, path));
                                path.pop();
                            }
                        }
                        _ => {}
                    }
                }
                "required" => {
                    let (Some(object), Some(required)) = (instance.as_object(), value.as_array())
                    else {
                        continue;
                    };
                    for name in required.iter().filter_map(Value::as_str) {
                        if !object.contains_key(name) {
                            let message = format!(
                                "{} is a required property",
                                py_repr(&Value::String(name.to_owned()))
                            );
                            push(&mut out, "required", message, Vec::new());
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The errors of every branch of an `anyOf` (`value`) when none accepts `instance`; `None`
    /// when one does.
    fn any_of_errors(&self, instance: &Value, value: &'s Value) -> Option<Vec<SchemaError>> {
        let branches = value.as_array().map(Vec::as_slice).unwrap_or_default();
        let mut context = Vec::new();
        for branch in branches.iter().filter_map(Value::as_object) {
            let branch_errors = self.errors(instance, branch, &mut Vec::new());
            if branch_errors.is_empty() {
                return None;
            }
            context.extend(branch_errors);
        }
        Some(context)
    }

    fn resolve(&self, reference: &str) -> Option<&'s Map<String, Value>> {
        let name = reference.strip_prefix("#/$defs/")?;
        self.root.get("$defs")?.get(name)?.as_object()
    }
}

/// jsonschema's `relevance` key, as a comparison: greater is more relevant.
fn relevance_cmp(a: &SchemaError, b: &SchemaError) -> Ordering {
    let weak = |e: &SchemaError| e.keyword == "anyOf";
    b.path
        .len()
        .cmp(&a.path.len())
        .then_with(|| path_cmp(&a.path, &b.path))
        .then_with(|| (!weak(a)).cmp(&!weak(b)))
        .then_with(|| (!a.matches_type).cmp(&!b.matches_type))
}

fn path_cmp(a: &[PathItem], b: &[PathItem]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let step = match (x, y) {
            (PathItem::Key(x), PathItem::Key(y)) => x.cmp(y),
            (PathItem::Index(x), PathItem::Index(y)) => x.cmp(y),
            _ => Ordering::Equal,
        };
        if step != Ordering::Equal {
            return step;
        }
    }
    a.len().cmp(&b.len())
}

/// `best_match`: the first most relevant error, then down through `anyOf` branches while the
/// least relevant branch error is unique.
fn best_match(errors: Vec<SchemaError>) -> Option<SchemaError> {
    let mut best: Option<SchemaError> = None;
    for error in errors {
        if best
            .as_ref()
            .is_none_or(|b| relevance_cmp(&error, b) == Ordering::Greater)
        {
            best = Some(error);
        }
    }
    let mut best = best?;
    while !best.context.is_empty() {
        let mut context = std::mem::take(&mut best.context);
        // Stable: the first of equally relevant errors comes first, as heapq.nsmallest keeps it.
        context.sort_by(relevance_cmp);
        if context.len() >= 2 && relevance_cmp(&context[0], &context[1]) == Ordering::Equal {
            return Some(best);
        }
        best = context.swap_remove(0);
    }
    Some(best)
}

fn type_repr(ty: &Value) -> String {
    py_repr(ty)
}

/// `additionalProperties: false`'s message for the unexpected keys.
fn unexpected_properties(extras: &[&String]) -> String {
    let names: Vec<String> = extras
        .iter()
        .map(|k| py_repr(&Value::String((*k).clone())))
        .collect();
    let verb = if names.len() == 1 { "was" } else { "were" };
    format!(
        "Additional properties are not allowed ({} {verb} unexpected)",
        names.join(", ")
    )
}

fn type_matches(instance: &Value, ty: &Value) -> bool {
    match ty {
        Value::String(name) => is_of_type(instance, name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|name| is_of_type(instance, name)),
        _ => true,
    }
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

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// jsonschema's `equal`: numbers by value (`1 == 1.0`), booleans never equal to numbers.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::validate;

    fn check_with(schema: &Value, args: Value) -> Option<String> {
        validate(args.as_object().unwrap(), schema.as_object().unwrap())
    }

    fn rest_schema() -> Value {
        json!({"type": "object", "properties": {
            "brewery_name": {"type": "string", "description": "d"},
            "ounces": {"type": "integer", "description": "d"},
            "abv": {"type": "number", "description": "d"}},
            "required": ["brewery_name", "ounces"]})
    }

    #[test]
    fn rest_messages_match_python_jsonschema() {
        let s = rest_schema();
        let check = |args| check_with(&s, args);
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
        // among property errors the greatest name wins (jsonschema 4.26 checked)
        assert_eq!(
            check(json!({"brewery_name": null, "ounces": 1.5})).unwrap(),
            "1.5 is not of type 'integer'"
        );
        // a missing required property outranks a type error
        assert_eq!(
            check(json!({"brewery_name": 1})).unwrap(),
            "'ounces' is a required property"
        );
    }

    fn filter_schema() -> Value {
        json!({"$defs": {"FilterCondition": {"description": "d", "enum": ["equal_to", "like"], "title": "FilterCondition", "type": "string"}},
               "additionalProperties": false, "description": "d",
               "properties": {"data_label": {"type": "string", "description": "h"},
                              "key_name": {"description": "d", "title": "Key Name", "type": "string"},
                              "value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "integer"}, {"type": "null"}], "description": "d", "title": "Value"},
                              "condition": {"$ref": "#/$defs/FilterCondition", "description": "d"}},
               "required": ["data_label", "key_name", "value", "condition"], "title": "FilterDataInput", "type": "object"})
    }

    #[test]
    fn capability1_messages_match_python_jsonschema() {
        let s = filter_schema();
        let ok = json!({"data_label": "h", "key_name": "k", "value": 1, "condition": "like"});
        assert_eq!(check_with(&s, ok), None);
        let check = |args| check_with(&s, args).unwrap();
        assert_eq!(
            check(json!({"data_source": "x", "key_name": "k", "value": 1, "condition": "like"})),
            "Additional properties are not allowed ('data_source' was unexpected)"
        );
        assert_eq!(
            check(json!({"data_source": "x", "foo": 1, "key_name": "k", "value": 1})),
            "Additional properties are not allowed ('data_source', 'foo' were unexpected)"
        );
        assert_eq!(
            check(json!({"data_label": "h", "key_name": "k", "value": 1, "condition": "eq"})),
            "'eq' is not one of ['equal_to', 'like']"
        );
        assert_eq!(
            check(json!({"data_label": "h", "key_name": "k", "value": true, "condition": "like"})),
            "True is not valid under any of the given schemas"
        );
        assert_eq!(
            check(json!({"data_label": 7, "key_name": "k", "value": 1, "condition": "like"})),
            "7 is not of type 'string'"
        );
        let sum = json!({"properties": {"limit": {"const": -1, "default": -1, "type": "integer"},
                                        "n": {"minimum": 0, "type": "integer"},
                                        "xs": {"anyOf": [{"type": "integer"}, {"items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "type": "array"}, {"items": {"type": "integer"}, "type": "array"}]}},
                         "type": "object"});
        assert_eq!(
            check_with(&sum, json!({"limit": 2})).unwrap(),
            "-1 was expected"
        );
        assert_eq!(
            check_with(&sum, json!({"limit": "2"})).unwrap(),
            "-1 was expected"
        );
        assert_eq!(
            check_with(&sum, json!({"n": -1})).unwrap(),
            "-1 is less than the minimum of 0"
        );
        assert_eq!(
            check_with(&sum, json!({"xs": "6"})).unwrap(),
            "'6' is not valid under any of the given schemas"
        );
        // the deepest branch error is reported when it is the only least relevant one
        assert_eq!(
            check_with(&sum, json!({"xs": ["a"]})).unwrap(),
            "'a' is not valid under any of the given schemas"
        );
        assert_eq!(check_with(&sum, json!({"xs": [1, null]})), None);
    }
}

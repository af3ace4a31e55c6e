//! JSON text read as deep as Python's `json.loads` reads it: serde_json alone stops at 128
//! levels, Python at about 1,000 (its recursion limit).

use serde::Deserialize;
use serde_json::Value;

/// How deep JSON values may nest, about what Python's `json` reads before its recursion limit.
pub const MAX_NESTING: usize = 1_000;

/// Nesting up to which parsing runs on the caller's stack (serde_json alone reads up to 128
/// levels); deeper texts are parsed on a thread of their own with a stack large enough for
/// [`MAX_NESTING`].
pub const SHALLOW_NESTING: usize = 100;

/// Parses JSON nested up to [`MAX_NESTING`] levels; deeper text is refused with its depth,
/// before any parsing.
pub fn loads(text: &[u8]) -> Result<Value, String> {
    loads_with(text, |value| value)
}

/// Parses JSON as [`loads`] does and hands the value to `then`, on the same stack: for text
/// nested deeper than [`SHALLOW_NESTING`], a thread's with room for [`MAX_NESTING`] levels of
/// recursion (`then` may recurse into the value too).
pub fn loads_with<T: Send>(text: &[u8], then: impl FnOnce(Value) -> T + Send) -> Result<T, String> {
    let depth = nesting(text);
    if depth > MAX_NESTING {
        return Err(too_deep(depth));
    }
    let parse = || {
        let mut deserializer = serde_json::Deserializer::from_slice(text);
        deserializer.disable_recursion_limit();
        let value = Value::deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok::<T, serde_json::Error>(then(value))
    };
    let parsed = if depth <= SHALLOW_NESTING {
        parse()
    } else {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(scope, parse)
                .map_err(|e| format!("no thread to parse it: {e}"))?
                .join()
                .map_err(|_| "the parser failed".to_owned())
        })?
    };
    parsed.map_err(|e| e.to_string())
}

/// The error text for a value nested `depth` levels deep.
pub fn too_deep(depth: usize) -> String {
    format!("values nested {depth} levels deep, more than {MAX_NESTING}")
}

/// The deepest nesting of arrays and objects in a JSON text (strings skipped).
pub fn nesting(text: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &byte in text {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The deepest nesting of arrays and objects in a value (without recursion).
pub fn nesting_of(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0usize)];
    while let Some((value, depth)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        deepest = deepest.max(depth + 1);
        pending.extend(children.map(|child| (child, depth + 1)));
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn values_nest_up_to_the_limit() {
        let mut value = loads(nested(MAX_NESTING).as_bytes()).unwrap();
        let mut depth = 0;
        while let Value::Array(mut items) = value {
            value = items.pop().unwrap();
            depth += 1;
        }
        assert_eq!((depth, value), (MAX_NESTING, Value::from(1)));
        assert_eq!(
            loads(nested(MAX_NESTING + 1).as_bytes()).unwrap_err(),
            "values nested 1001 levels deep, more than 1000"
        );
    }

    #[test]
    fn brackets_in_strings_do_not_count() {
        assert_eq!(nesting(br#"{"a": "[[[{\"", "b": [1]}"#), 2);
        assert!(loads(b"[1] x").unwrap_err().contains("trailing characters"));
        let value = loads(br#"{"a": [1, {"b": []}], "c": {}}"#).unwrap();
        assert_eq!(nesting_of(&value), 4);
    }
}

//! The deterministic groundedness judge: the answer must be supported by what the prediction's
//! own tool responses of the scored turn (retrieved documents included) contain. It stands in
//! for the LLM groundedness judge when no LLM is configured (and can be chosen with one), so a
//! right answer the agent did not look up — a guess, or a memorised fact — fails.
//!
//! The rules (docs/evaluator.md, "The deterministic groundedness judge"):
//!
//! - The support is every response of the scored turn (a JSON text also read for the strings
//!   it holds; capability 4's retrieved documents with their ids as the agent saw them). Error
//!   responses — a text starting with `Error` or `Input validation error`, or a JSON object
//!   whose only key is `error` — support only an item quoted from them whole, never a value;
//!   empty responses support nothing. A turn with no non-error response fails the answer.
//! - An empty answer fails: it claims nothing the responses could support.
//! - The answer is read as items: a JSON list element by element (an answer given as a list, or
//!   a string holding one); else the text split at newlines, `;`, and commas not between digits.
//! - An item is supported when, normalised (trimmed of spaces and end punctuation, lower-cased,
//!   whitespace runs collapsed), it is written in a response; otherwise when every value it
//!   holds is found in the responses:
//!   - numbers (thousands separators allowed, `-` sign, decimals): a response number equal to
//!     it, or equal once rounded to the decimals written in the answer (`1.26` ← `1.2587`,
//!     `23` ← `23.0`); a number followed by `%` also matches a response fraction (`45%` ←
//!     `0.45`);
//!   - dates written `YYYY-MM-DD`, `YYYY/MM/DD`, `DD/MM/YYYY` and the like: the same characters
//!     in a response (dates are not reformatted);
//!   - yes/no: an item that starts with `yes`/`true` needs a `true`/`yes` in a response,
//!     `no`/`false` a `false`/`no`;
//!   - names: capitalised words (other than articles, pronouns and the like), and words holding
//!     a digit and a letter or an underscore, found as words in a response (case-insensitive);
//!     words of the question are not claims (restating the question grounds nothing).
//! - An item holding none of these values and not written in a response is filler: it neither
//!   supports nor fails the answer. The answer is grounded when no item is unsupported and at
//!   least one is supported.

use std::cell::OnceCell;
use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::{Verdict, normalize_text};
use crate::judges::exact::response_text;

/// Judges whether the predicted answer is grounded in the prediction's responses.
pub fn judge(query: &str, pred_answer: &Value, pred_responses: &[Value]) -> Verdict {
    let support = Support::new(pred_responses);
    if support.texts.is_empty() {
        return Verdict::fail(
            "No tool response supports the answer: the prediction's scored turn has no \
             non-error tool response.",
        );
    }
    let items = answer_items(pred_answer);
    if items.is_empty() {
        return Verdict::fail("The answer is empty: there is nothing the responses support.");
    }
    let query_words: Vec<String> = words(&query.to_lowercase());
    let (mut supported, mut unsupported) = (0, Vec::new());
    for item in &items {
        match support.check(item, &query_words) {
            Claim::Supported => supported += 1,
            Claim::Unsupported(what) => unsupported.push(what),
            Claim::NoValue => {}
        }
    }
    if !unsupported.is_empty() {
        Verdict::fail(format!(
            "Not found in the prediction's tool responses: {}",
            unsupported.join("; ")
        ))
    } else if supported == 0 {
        Verdict::fail(
            "The answer holds no number, date, yes/no or name, and none of it is written in the \
             prediction's tool responses.",
        )
    } else {
        Verdict::pass(format!(
            "Every value of the answer is found in the prediction's tool responses ({supported} \
             supported part{}).",
            if supported == 1 { "" } else { "s" }
        ))
    }
}

/// What the responses say about one item of the answer.
enum Claim {
    /// Written in a response, or every value it holds found.
    Supported,
    /// What was not found.
    Unsupported(String),
    /// Not written in a response and holding no value to look for (a filler clause).
    NoValue,
}

/// The texts the answer may draw on.
struct Support {
    /// Normalised response texts (not errors).
    texts: Vec<String>,
    /// Normalised error responses.
    errors: Vec<String>,
    /// Every number written in them (read when first needed: most answers are found
    /// written as they are).
    numbers: OnceCell<Vec<f64>>,
    /// Every word in them, lower-cased (read when first needed).
    words: OnceCell<HashSet<String>>,
}

impl Support {
    fn new(responses: &[Value]) -> Self {
        let (mut texts, mut errors) = (Vec::new(), Vec::new());
        for response in responses {
            let mut raw = Vec::new();
            collect_texts(response, &mut raw);
            let error = response.as_str().is_some_and(is_error);
            let normal = raw
                .iter()
                .map(|t| normalize_text(t))
                .filter(|t| !t.is_empty());
            if error {
                errors.extend(normal);
            } else {
                texts.extend(normal);
            }
        }
        Self {
            texts,
            errors,
            numbers: OnceCell::new(),
            words: OnceCell::new(),
        }
    }

    fn numbers(&self) -> &[f64] {
        self.numbers.get_or_init(|| {
            self.texts
                .iter()
                .flat_map(|t| numbers_in(t).into_iter().map(|n| n.value))
                .collect()
        })
    }

    fn words(&self) -> &HashSet<String> {
        self.words
            .get_or_init(|| self.texts.iter().flat_map(|t| words(t)).collect())
    }

    fn written(&self, needle: &str) -> bool {
        self.texts.iter().any(|t| t.contains(needle))
    }

    fn check(&self, item: &str, query_words: &[String]) -> Claim {
        let normal = normalize_text(item);
        if self.written(&normal) || self.errors.iter().any(|t| t.contains(&normal)) {
            return Claim::Supported;
        }
        let mut missing = Vec::new();
        let mut values = 0;
        let mut rest = normal.clone();
        for date in DATE.find_iter(&normal) {
            values += 1;
            if !self.written(date.as_str()) {
                missing.push(date.as_str().to_owned());
            }
            rest = rest.replace(date.as_str(), " ");
        }
        for number in numbers_in(&rest) {
            values += 1;
            if !self.has_number(&number) {
                missing.push(number.written);
            }
        }
        if let Some(truth) = yes_no(&normal) {
            values += 1;
            let wanted: &[&str] = if truth {
                &["true", "yes"]
            } else {
                &["false", "no"]
            };
            if !wanted.iter().any(|w| self.words().contains(*w)) {
                missing.push(if truth { "yes" } else { "no" }.to_owned());
            }
        }
        for name in names(item) {
            if query_words.contains(&name) {
                continue;
            }
            values += 1;
            if !self.words().contains(&name) {
                missing.push(name);
            }
        }
        if values == 0 {
            Claim::NoValue
        } else if missing.is_empty() {
            Claim::Supported
        } else {
            Claim::Unsupported(format!("{} (in {normal:?})", missing.join(", ")))
        }
    }

    fn has_number(&self, number: &Number) -> bool {
        self.numbers().iter().any(|&got| {
            close(got, number.value)
                || rounds_to(got, number.value, number.decimals)
                || (number.percent
                    && (close(got * 100.0, number.value)
                        || rounds_to(got * 100.0, number.value, number.decimals)))
        })
    }
}

/// The texts of a response: strings as they are (and the strings a JSON text holds), lists
/// (retrieved documents) item by item, other values as Python writes them.
fn collect_texts(response: &Value, out: &mut Vec<String>) {
    match response {
        Value::Null => {}
        Value::String(text) => {
            out.push(text.clone());
            if let Ok(parsed @ (Value::Object(_) | Value::Array(_))) =
                serde_json::from_str::<Value>(text)
            {
                json_strings(&parsed, out);
            }
        }
        Value::Array(items) if items.iter().all(|i| i.is_string() || i.is_array()) => {
            for item in items {
                collect_texts(item, out);
            }
        }
        other => out.push(response_text(other)),
    }
}

/// The strings inside a JSON value, decoded (escapes such as `\n` undone).
fn json_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|i| json_strings(i, out)),
        Value::Object(map) => map.values().for_each(|v| json_strings(v, out)),
        _ => {}
    }
}

/// A response that reports a failure rather than data.
fn is_error(text: &str) -> bool {
    let trimmed = text.trim_start();
    if trimmed.starts_with("Error") || trimmed.starts_with("Input validation error") {
        return true;
    }
    matches!(serde_json::from_str::<Value>(trimmed),
             Ok(Value::Object(map)) if map.len() == 1 && map.contains_key("error"))
}

/// The answer's items: a list element by element, else the text split at list separators.
fn answer_items(answer: &Value) -> Vec<String> {
    let items: Vec<String> = match answer {
        Value::Null => Vec::new(),
        Value::Array(items) => items.iter().flat_map(value_items).collect(),
        Value::String(text) => match serde_json::from_str::<Value>(text.trim()) {
            Ok(Value::Array(items)) => items.iter().flat_map(value_items).collect(),
            _ => split_text(text),
        },
        other => vec![response_text(other)],
    };
    items
        .into_iter()
        .map(|item| {
            item.trim()
                .trim_end_matches(['.', '!', '?', ':'])
                .trim()
                .to_owned()
        })
        .filter(|item| !item.is_empty())
        .collect()
}

fn value_items(value: &Value) -> Vec<String> {
    match value {
        Value::Null => Vec::new(),
        Value::String(text) => split_text(text),
        Value::Array(inner) => inner.iter().flat_map(value_items).collect(),
        other => vec![response_text(other)],
    }
}

/// Splits a text at newlines, `;`, and commas that are not thousands separators.
fn split_text(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut items = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let separator = match c {
            '\n' | ';' => true,
            ',' => {
                let digit_before = i > 0 && chars[i - 1].is_ascii_digit();
                let digit_after = chars.get(i + 1).is_some_and(char::is_ascii_digit);
                !(digit_before && digit_after)
            }
            _ => false,
        };
        if separator {
            items.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    items.push(current);
    items
}

static DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})\b")
        .expect("a valid pattern")
});

/// A number as the answer writes it.
#[derive(Debug)]
struct Number {
    value: f64,
    /// Digits after the decimal point as written.
    decimals: usize,
    /// Followed by `%`.
    percent: bool,
    written: String,
}

/// The numbers written in a text: thousands separators allowed, a `-` sign when it does not
/// join two words.
fn numbers_in(text: &str) -> Vec<Number> {
    static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\d+(?:,\d{3})*(?:\.(\d+))?(?:[eE][-+]?\d+)?").expect("a valid pattern")
    });
    let bytes = text.as_bytes();
    NUMBER
        .captures_iter(text)
        .filter_map(|caps| {
            let whole = caps.get(0)?;
            let (start, end) = (whole.start(), whole.end());
            // Part of a word or of a longer decimal (`v2`, `.5` handled as 0.5 below).
            if start > 0 && (bytes[start - 1].is_ascii_alphabetic() || bytes[start - 1] == b'_') {
                return None;
            }
            let negative = start > 0
                && bytes[start - 1] == b'-'
                && (start < 2 || !bytes[start - 2].is_ascii_alphanumeric());
            let mut digits = whole.as_str().replace(',', "");
            if start > 0 && bytes[start - 1] == b'.' && !digits.contains('.') {
                digits.insert_str(0, "0.");
            }
            let mut value: f64 = digits.parse().ok()?;
            if negative {
                value = -value;
            }
            let exponent = whole.as_str().contains(['e', 'E']);
            Some(Number {
                value,
                decimals: if exponent {
                    usize::MAX
                } else {
                    caps.get(1).map_or(0, |m| m.as_str().len())
                },
                percent: text[end..].trim_start().starts_with('%'),
                written: whole.as_str().to_owned(),
            })
        })
        .filter(|n| n.value.is_finite())
        .collect()
}

/// Equal within 1e-9 relative; never for an infinity (a huge number scaled for rounding).
fn close(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && (a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()))
}

/// `got` rounded half away from zero to `decimals` places equals `want`.
fn rounds_to(got: f64, want: f64, decimals: usize) -> bool {
    if decimals > 15 {
        return false;
    }
    let scale = 10f64.powi(decimals as i32);
    close((got * scale).round() / scale, want)
}

/// `Some(true)` for an item starting with yes/true, `Some(false)` for no/false.
fn yes_no(normal: &str) -> Option<bool> {
    match normal.split(|c: char| !c.is_alphanumeric()).next()? {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    }
}

/// Lower-cased words (letters, digits, `_`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Capitalised words that name nothing: articles, pronouns, and the words answers start with.
const NOT_NAMES: &[&str] = &[
    "a",
    "according",
    "after",
    "all",
    "also",
    "an",
    "and",
    "answer",
    "as",
    "at",
    "based",
    "before",
    "but",
    "by",
    "during",
    "each",
    "every",
    "for",
    "from",
    "he",
    "her",
    "here",
    "his",
    "however",
    "i",
    "if",
    "in",
    "is",
    "it",
    "its",
    "no",
    "none",
    "not",
    "of",
    "on",
    "one",
    "or",
    "our",
    "overall",
    "she",
    "so",
    "that",
    "the",
    "their",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "total",
    "we",
    "what",
    "when",
    "where",
    "which",
    "who",
    "with",
    "yes",
    "you",
];

/// The names an item claims, lower-cased: capitalised words other than [`NOT_NAMES`], and
/// words holding a digit and a letter or an underscore (identifiers, codes).
fn names(item: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in item.split_whitespace() {
        let word = token.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
        if word.is_empty() {
            continue;
        }
        let capitalised = word.chars().next().is_some_and(char::is_uppercase);
        let has_digit = word.chars().any(|c| c.is_ascii_digit());
        let code = word.contains('_') || (has_digit && word.chars().any(char::is_alphabetic));
        if code || (capitalised && !NOT_NAMES.contains(&word.to_lowercase().as_str())) {
            out.extend(words(word));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn grounded(answer: Value, responses: Value) -> bool {
        judge(
            "How many breweries are there?",
            &answer,
            responses.as_array().unwrap(),
        )
        .passed()
    }

    #[test]
    fn no_response_no_grounding() {
        assert!(!grounded(json!("23"), json!([])));
        assert!(!grounded(json!("23"), json!([null, ""])));
        assert!(!grounded(
            json!("23"),
            json!(["Error: 23 is not a valid id"])
        ));
        assert!(!grounded(
            json!("23"),
            json!(["{\"error\": \"no table 23\"}"])
        ));
        assert!(!grounded(json!(""), json!(["23"])));
        // An error supports an item quoted from it whole, never a value.
        let with_error = json!(["{\"ok\": 1}", "Input validation error: no branch 23"]);
        assert!(grounded(
            json!("Input validation error: no branch 23"),
            with_error.clone()
        ));
        assert!(!grounded(json!("There is no branch 23."), with_error));
    }

    #[test]
    fn numbers_by_value_separator_and_rounding() {
        assert!(grounded(
            json!("There are 23 breweries."),
            json!(["{\"n\": 23}"])
        ));
        assert!(!grounded(
            json!("There are 24 breweries."),
            json!(["{\"n\": 23}"])
        ));
        assert!(grounded(
            json!("1,500,000 dollars"),
            json!(["[[1500000.0]]"])
        ));
        assert!(grounded(
            json!("The ratio is 1.26"),
            json!(["1.2587021916630856"])
        ));
        assert!(!grounded(
            json!("The ratio is 1.27"),
            json!(["1.2587021916630856"])
        ));
        assert!(grounded(
            json!("about 1.2587021916630856"),
            json!(["1.2587021916630856"])
        ));
        assert!(grounded(json!("45% of them"), json!(["{\"share\": 0.45}"])));
        assert!(grounded(json!("-3.5"), json!(["{\"delta\": -3.5}"])));
        assert!(!grounded(json!("3.5"), json!(["{\"id\": \"v3\"}"])));
        // A number too large to round (scaled, it overflows) supports nothing else.
        assert!(!grounded(json!("1.23"), json!(["{\"n\": 1e308}"])));
    }

    #[test]
    fn names_case_whitespace_and_lists() {
        let response = json!(["[{\"city\": \"London\", \"games\": \"2012  Summer\"}]"]);
        assert!(grounded(json!("london"), response.clone()));
        assert!(grounded(
            json!("The games were held in LONDON."),
            response.clone()
        ));
        assert!(!grounded(
            json!("The games were held in Paris."),
            response.clone()
        ));
        assert!(grounded(json!(["London", "2012 summer"]), response.clone()));
        assert!(grounded(json!("London, 2012 Summer"), response.clone()));
        assert!(!grounded(json!("London, Paris"), response.clone()));
        assert!(grounded(
            json!("[\"London\", \"2012 Summer\"]"),
            response.clone()
        ));
        // Words of the question restate it; they need no support.
        assert!(grounded(
            json!("London has the Breweries"),
            response.clone()
        ));
        // Filler clauses neither support nor fail; an answer of filler only fails.
        assert!(grounded(
            json!("Based on the data, it was London"),
            response.clone()
        ));
        assert!(!grounded(
            json!("Based on the data, it was Paris"),
            response
        ));
        // A prose answer with no value that is not in the responses is not grounded.
        assert!(!grounded(json!("done"), json!(["{\"ok\": 1}"])));
    }

    #[test]
    fn booleans_and_dates() {
        assert!(grounded(
            json!("Yes, it is open."),
            json!(["{\"open\": true}"])
        ));
        assert!(!grounded(json!("Yes"), json!(["{\"open\": false}"])));
        assert!(grounded(json!("No"), json!(["{\"open\": false}"])));
        assert!(grounded(
            json!("It opened on 2012-07-27"),
            json!(["{\"d\": \"2012-07-27\"}"])
        ));
        assert!(!grounded(
            json!("It opened on 2012-07-28"),
            json!(["{\"d\": \"2012-07-27\"}"])
        ));
    }

    #[test]
    fn retrieved_documents_support_answers() {
        assert!(grounded(
            json!("The Eiffel Tower is 330 metres tall."),
            json!([["The Eiffel Tower is 330 metres tall.", "Paris"]])
        ));
        assert!(grounded(
            json!("330 metres"),
            json!([["Its height: 330 m."]])
        ));
        // A JSON text's strings are read decoded.
        let live =
            json!(["{\"results\": [{\"id\": \"b_7\", \"text\": \"Glebe\\nOpened in April\"}]}"]);
        assert!(grounded(json!("Opened in April (b_7)"), live.clone()));
        assert!(!grounded(json!("Opened in May"), live));
    }
}

//! The HTML report's sample explorer: every sample's data embedded in the page as JSON and
//! rendered by a small script only when shown (filters, a search, pages of rows, one sample's
//! story when its row is opened), so a report of 10,000 samples stays one responsive file.

use serde_json::Value;

use crate::report::{Report, SampleReport};

/// Strings of an embedded response longer than this are cut (the JSON report keeps them whole).
const RESPONSE_CHARS: usize = 4_000;

const SCRIPT: &str = include_str!("samples.js");

/// The explorer: its controls, the embedded samples and the script.
pub(super) fn explorer(report: &Report) -> String {
    let samples: Vec<Value> = report
        .capabilities
        .iter()
        .flat_map(|(n, c)| c.samples.iter().map(move |s| embedded(n, s)))
        .collect();
    // `<` never occurs outside JSON strings, where `\u003c` means the same: the data cannot end
    // the script element.
    let data = serde_json::to_string(&samples)
        .unwrap_or_else(|_| "[]".into())
        .replace('<', "\\u003c");
    format!(
        "<div id=samples><h2>Samples</h2>\
<div class=filters><label>capability <select id=f-capability><option value=''>all</option></select></label>\
<label>domain <select id=f-domain><option value=''>all</option></select></label>\
<label>verdict <select id=f-verdict><option value=''>all</option><option value=pass>pass</option><option value=fail>fail</option></select></label>\
<label>error category <select id=f-stage><option value=''>all</option></select></label>\
<label>search <input id=f-search type=search placeholder='uuid, question, answer, tool'></label></div>\
<p id=sample-count class=meta></p>\
<table id=sample-table><thead><tr><th>cap.</th><th>domain</th><th>uuid</th><th>verdict</th><th>error category</th><th>decided by</th><th>answer</th><th>expected</th></tr></thead><tbody id=sample-rows></tbody></table>\
<button id=sample-more hidden>Show more</button>\
<noscript><p>The sample explorer needs JavaScript; the samples are in the JSON report.</p></noscript></div>\
<script type=application/json id=sample-data>{data}</script><script>{SCRIPT}</script>"
    )
}

/// One sample as the page reads it: the report's fields, its capability, long response texts
/// cut.
fn embedded(capability: &str, sample: &SampleReport) -> Value {
    let mut value = serde_json::to_value(sample).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert("capability".into(), Value::String(capability.to_owned()));
        if let Some(responses) = map.get_mut("responses") {
            cut_long_strings(responses);
        }
    }
    value
}

fn cut_long_strings(value: &mut Value) {
    match value {
        Value::String(text) if text.chars().count() > RESPONSE_CHARS => {
            let total = text.chars().count();
            let mut cut: String = text.chars().take(RESPONSE_CHARS).collect();
            cut.push_str(&format!(
                "… [{} more characters in the JSON report]",
                total - RESPONSE_CHARS
            ));
            *text = cut;
        }
        Value::Array(items) => items.iter_mut().for_each(cut_long_strings),
        Value::Object(map) => map.values_mut().for_each(cut_long_strings),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_responses_are_cut_and_script_ends_cannot_leak() {
        let mut value = json!({"a": ["x".repeat(RESPONSE_CHARS + 5), "short"]});
        cut_long_strings(&mut value);
        let cut = value["a"][0].as_str().unwrap();
        assert!(cut.ends_with("… [5 more characters in the JSON report]"));
        assert_eq!(value["a"][1], "short");
        let data = serde_json::to_string(&json!(["</script><b>"]))
            .unwrap()
            .replace('<', "\\u003c");
        assert!(!data.contains('<'));
        assert_eq!(
            serde_json::from_str::<Value>(&data).unwrap(),
            json!(["</script><b>"])
        );
    }
}

//! The `query_<domain>` tools as the reference's capability-4 combined server lists them.

use crate::common::{RetrievalRoot, reference_file};
use serde_json::{Value, json};
use vakra_retrieval::Retrievers;
use vakra_test_kit::root::TempRoot;
use vakra_test_kit::text::{args, read_json};

/// The reference's retriever files, copied into a temporary data root (never into the repo);
/// `None` without them (the test is skipped).
fn reference_root() -> Option<TempRoot> {
    let root = TempRoot::new();
    for name in ["domain_negatives.json", "domain_description_dict.json"] {
        let path = reference_file(&format!("environment/retrievers/{name}"))?;
        let text = std::fs::read_to_string(path).expect("reference file");
        root.write_file(&format!("retrievers/{name}"), &text);
    }
    Some(root)
}

fn expected_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "question": {"type": "string", "title": "Question"},
            "n_results": {"type": "integer", "title": "N Results", "default": 10}
        },
        "required": ["question"]
    })
}

#[test]
fn every_reference_domain_lists_its_negatives_with_the_reference_schema() {
    let Some(root) = reference_root() else {
        return;
    };
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let found = "found by reference_root";
    let negatives =
        read_json(&reference_file("environment/retrievers/domain_negatives.json").expect(found));
    let descriptions = read_json(
        &reference_file("environment/retrievers/domain_description_dict.json").expect(found),
    );
    let negatives = negatives.as_object().expect("object");
    assert_eq!(negatives.len(), 52);
    for (domain, list) in negatives {
        let tools = retrievers.tools_for(domain).expect("tools");
        let expected_names: Vec<String> = list
            .as_array()
            .expect("list")
            .iter()
            .map(|d| format!("query_{}", d.as_str().expect("name")))
            .collect();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected_names, "{domain}");
        for tool in &tools {
            let target = &tool.name["query_".len()..];
            let description = descriptions[target]["description"]
                .as_str()
                .expect("description");
            assert_eq!(tool.description, description.trim(), "{}", tool.name);
            // Byte-exact, key order included: this is what tools/list serialises.
            assert_eq!(
                Value::Object(tool.input_schema.clone()).to_string(),
                expected_schema().to_string(),
                "{}",
                tool.name
            );
        }
    }
}

#[test]
fn checksum_entries_have_the_reference_form() {
    // tool_checksums.py hashes [{"name", "inputSchema"}] sorted by name with sorted keys; a
    // retriever tool contributes exactly this text to a capability-4 checksum.
    let Some(root) = reference_root() else {
        return;
    };
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let tools = retrievers.tools_for("address").expect("tools");
    let tool = tools
        .iter()
        .find(|t| t.name == "query_address")
        .expect("query_address");
    let entry = json!({"name": tool.name, "inputSchema": Value::Object(tool.input_schema.clone())});
    let text = vakra_pytext::dumps(&entry, &vakra_pytext::DumpOptions::checksum()).expect("dump");
    assert_eq!(
        text,
        r#"{"inputSchema":{"properties":{"n_results":{"default":10,"title":"N Results","type":"integer"},"question":{"title":"Question","type":"string"}},"required":["question"],"type":"object"},"name":"query_address"}"#
    );
    // Every capability-4 checksum domain is a retriever domain with five tools.
    let Some(checksums) = reference_file("tool_checksums.json") else {
        return;
    };
    let checksums = read_json(&checksums);
    let cap4 = checksums["4"].as_object().expect("capability 4");
    assert_eq!(cap4.len(), 41);
    for domain in cap4.keys() {
        assert_eq!(
            retrievers.tools_for(domain).expect("tools").len(),
            5,
            "{domain}"
        );
    }
}

#[test]
fn demo_domains_list_their_distractors() {
    let root = TempRoot::new().with_demo_data();
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let names = |d: &str| -> Vec<String> {
        retrievers
            .tools_for(d)
            .expect("tools")
            .into_iter()
            .map(|t| t.name)
            .collect()
    };
    assert_eq!(
        names("library"),
        ["query_weather", "query_library", "query_weather_alerts"]
    );
    assert_eq!(
        names("weather_alerts"),
        ["query_library", "query_weather_alerts", "query_weather"]
    );
    let tools = retrievers.tools_for("weather").expect("tools");
    assert!(
        tools[0]
            .description
            .starts_with("This tool can return documents related to weather stations")
    );
}

#[test]
fn listing_rules_without_files_or_indexes() {
    // No retriever files: a session offers its own domain, and only once it has an index.
    let root = TempRoot::new();
    root.write_jsonl("solo", &[("a_0", "alpha text")]);
    root.write_file(
        "retrievers/default_descriptions.json",
        r#"{"no_description": "no text: {domain}", "empty_description": "empty: {domain}"}"#,
    );
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    assert!(retrievers.tools_for("solo").expect("tools").is_empty());
    vakra_retrieval::build_indexes(&root.data_root(), false).expect("index");
    let tools = retrievers.tools_for("solo").expect("tools");
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "query_solo");
    // A domain that is neither named nor indexed has no retriever tools; a bad name is an error.
    assert!(retrievers.tools_for("other").expect("tools").is_empty());
    assert!(retrievers.tools_for("../etc").is_err());
    assert!(retrievers.tools_for("").is_err());
    // All tools (no domain filter): the indexed domains.
    let all: Vec<String> = retrievers
        .all_tools()
        .expect("tools")
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(all, ["query_solo"]);
}

#[test]
fn merged_primaries_keep_first_occurrence_order() {
    let root = TempRoot::new().with_demo_data();
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let domains = retrievers
        .retriever_domains_of(&["weather_alerts", "weather"])
        .expect("domains");
    assert_eq!(domains, ["library", "weather_alerts", "weather"]);
}

#[test]
fn calls_are_only_for_the_sessions_retriever_tools() {
    let root = TempRoot::new().with_demo_data();
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let a = args(json!({"question": "x"}));
    assert!(
        retrievers
            .call("library", "get_oldest_branch", &a)
            .is_none()
    );
    assert!(retrievers.call("library", "query_unknown", &a).is_none());
    assert!(retrievers.call("nope", "query_nope", &a).is_none());
    assert!(retrievers.call("library", "query_weather", &a).is_some());
}

#[test]
fn data_file_errors_are_reported_at_open() {
    let root = TempRoot::new();
    root.write_file("retrievers/domain_negatives.json", "{not json");
    let error = Retrievers::open(&root.data_root()).expect_err("an error");
    assert!(
        error.to_string().contains("domain_negatives.json"),
        "{error}"
    );
    let root = TempRoot::new();
    root.write_file(
        "retrievers/domain_description_dict.json",
        r#"{"a": "text"}"#,
    );
    let error = Retrievers::open(&root.data_root()).expect_err("an error");
    assert!(error.to_string().contains("\"a\""), "{error}");
}

#[test]
fn domains_without_a_description_get_the_reference_defaults() {
    // The reference's rules: no entry or no `description` key gives the retriever server's
    // default; a description FastAPI publishes empty (null, blank, nothing before a form feed)
    // gives the combined wrapper's default. The templates here stand for the imported ones.
    let root = TempRoot::new();
    let domains = ["listed", "no_key", "null", "blank", "form_feed", "absent"];
    for domain in domains {
        root.write_jsonl(domain, &[("a_0", "alpha text")]);
    }
    root.write_file(
        "retrievers/domain_negatives.json",
        &json!({"listed": domains}).to_string(),
    );
    root.write_file(
        "retrievers/domain_description_dict.json",
        &json!({
            "listed": {"description": " Listed text. "},
            "no_key": {"other": "x"},
            "null": {"description": null},
            "blank": {"description": " \n\t"},
            "form_feed": {"description": "\u{c}hidden"}
        })
        .to_string(),
    );
    root.write_file(
        "retrievers/default_descriptions.json",
        r#"{"no_description": "Server text about {domain}.", "empty_description": "Wrapper text about '{domain}'."}"#,
    );
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let described: Vec<(String, String)> = retrievers
        .tools_for("listed")
        .expect("tools")
        .into_iter()
        .map(|t| (t.name, t.description))
        .collect();
    let expected = [
        ("query_listed", "Listed text."),
        ("query_no_key", "Server text about no_key."),
        ("query_null", "Wrapper text about 'null'."),
        ("query_blank", "Wrapper text about 'blank'."),
        ("query_form_feed", "Wrapper text about 'form_feed'."),
        ("query_absent", "Server text about absent."),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(n, d)| ((*n).to_owned(), (*d).to_owned()))
        .collect();
    assert_eq!(described, expected);

    // Without the defaults file a session whose domains all have descriptions still opens;
    // one that needs a default is refused with an error naming the missing file.
    std::fs::remove_file(root.path().join("retrievers/default_descriptions.json")).expect("rm");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let error = retrievers.tools_for("listed").expect_err("no defaults");
    let message = error.to_string();
    assert!(
        message.contains("default_descriptions.json") && message.contains("vakra import"),
        "{message}"
    );
    vakra_retrieval::build_indexes(&root.data_root(), false).expect("index");
    assert!(retrievers.all_tools().is_err());

    // A malformed defaults file is refused at open.
    root.write_file(
        "retrievers/default_descriptions.json",
        r#"{"no_description": "only one"}"#,
    );
    let error = Retrievers::open(&root.data_root()).expect_err("malformed");
    assert!(error.to_string().contains("empty_description"), "{error}");
}

#[test]
fn the_demo_root_has_default_descriptions_of_its_own() {
    let root = TempRoot::new().with_demo_data();
    root.write_jsonl("undescribed", &[("a_0", "alpha text")]);
    vakra_retrieval::build_indexes(&root.data_root(), false).expect("index");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let tools = retrievers.all_tools().expect("tools");
    let tool = tools
        .iter()
        .find(|t| t.name == "query_undescribed")
        .expect("listed");
    assert!(
        tool.description.contains("undescribed") && !tool.description.contains("{domain}"),
        "{}",
        tool.description
    );
}

//! Bad input through the MCP tools: the reference's texts for what it rejects, clear errors for
//! what it cannot have (missing or damaged indexes), and never a panic.

use crate::common::{RetrievalRoot, result_ids};
use serde_json::{Value, json};
use vakra_retrieval::{RetrievalError, Retrievers, build_indexes};
use vakra_test_kit::root::TempRoot;
use vakra_test_kit::text::args;

const URL_500: &str = "Error calling API: Server error '500 Internal Server Error' for url 'http://localhost:8001/library/query'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/500";

fn demo() -> (TempRoot, Retrievers) {
    let root = TempRoot::new().with_demo_data();
    build_indexes(&root.data_root(), false).expect("build");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    (root, retrievers)
}

fn call(retrievers: &Retrievers, arguments: Value) -> (String, bool) {
    retrievers
        .call("library", "query_library", &args(arguments))
        .expect("a retriever tool")
}

#[test]
fn questions_of_any_size_return_results() {
    let (_root, retrievers) = demo();
    // Empty, stop words only, punctuation only: no term matches, the collection fills the list.
    for question in ["", "the of and", "?!… —", "\u{0}\u{1}"] {
        let (text, is_error) = call(&retrievers, json!({"question": question}));
        assert!(!is_error, "{text}");
        assert_eq!(result_ids(&text).len(), 10, "{question:?}");
    }
    // A megabyte of text.
    let huge = "glebe streetcar depot branch history ".repeat(30_000);
    let started = std::time::Instant::now();
    let (text, is_error) = call(&retrievers, json!({"question": huge, "n_results": 3}));
    assert!(!is_error);
    assert_eq!(result_ids(&text)[0], "branch-glebe_7");
    assert!(started.elapsed().as_secs() < 20);
    // Many distinct words.
    let words: String = (0..50_000).map(|i| format!("w{i} ")).collect();
    let (text, _) = call(&retrievers, json!({"question": words, "n_results": 2}));
    assert_eq!(result_ids(&text).len(), 2);
}

#[test]
fn n_results_outside_what_chroma_accepts_is_a_500() {
    let (_root, retrievers) = demo();
    for n in [
        json!(0),
        json!(-1),
        json!(-9_000_000_000i64),
        json!(4_294_967_296u64),
        json!(1e18),
    ] {
        assert_eq!(
            call(&retrievers, json!({"question": "q", "n_results": n})),
            (URL_500.to_owned(), false),
            "{n}"
        );
    }
    // Large but representable: every document, once.
    let (text, _) = call(
        &retrievers,
        json!({"question": "branch", "n_results": 4_294_967_295u64}),
    );
    let ids = result_ids(&text);
    assert_eq!(ids.len(), 30);
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 30);
    // An integral float is an integer for both jsonschema and pydantic.
    let (text, _) = call(&retrievers, json!({"question": "branch", "n_results": 2.0}));
    assert_eq!(result_ids(&text).len(), 2);
    // Beyond 64 bits an agent's integer is a Python int, which pydantic accepts and Chroma
    // refuses: 500 (MCP arguments arrive parsed, so 1e20 counts as an integer too).
    for big in [
        "100000000000000000000",
        "18446744073709551616",
        "-18446744073709551616",
    ] {
        let n: serde_json::Value = serde_json::from_str(big).unwrap();
        assert_eq!(
            call(&retrievers, json!({"question": "q", "n_results": n})),
            (URL_500.to_owned(), false),
            "{big}"
        );
    }
}

#[test]
fn wrong_argument_types_are_the_sdks_validation_errors() {
    let (_root, retrievers) = demo();
    let cases = [
        (json!({}), "'question' is a required property"),
        (json!({"n_results": 3}), "'question' is a required property"),
        (json!({"question": 5}), "5 is not of type 'string'"),
        (json!({"question": null}), "None is not of type 'string'"),
        (json!({"question": ["a"]}), "['a'] is not of type 'string'"),
        (
            json!({"question": "q", "n_results": "3"}),
            "'3' is not of type 'integer'",
        ),
        (
            json!({"question": "q", "n_results": true}),
            "True is not of type 'integer'",
        ),
        (
            json!({"question": "q", "n_results": 2.5}),
            "2.5 is not of type 'integer'",
        ),
        (
            json!({"question": "q", "n_results": null}),
            "None is not of type 'integer'",
        ),
    ];
    for (arguments, message) in cases {
        assert_eq!(
            call(&retrievers, arguments.clone()),
            (format!("Input validation error: {message}"), true),
            "{arguments}"
        );
    }
    // Extra arguments are ignored.
    let (text, is_error) = call(&retrievers, json!({"question": "q", "body": {"x": 1}}));
    assert!(!is_error && text.starts_with("{\n  \"results\""));
}

#[test]
fn unknown_domains_and_names_are_refused() {
    let (_root, retrievers) = demo();
    let a = args(json!({"question": "q"}));
    assert!(retrievers.call("nowhere", "query_nowhere", &a).is_none());
    assert!(retrievers.call("../x", "query_../x", &a).is_none());
    assert!(matches!(
        retrievers.query("nowhere", "q", 1),
        Err(RetrievalError::MissingIndex { .. })
    ));
    assert!(matches!(
        retrievers.query("../../etc", "q", 1),
        Err(RetrievalError::InvalidDomain(_))
    ));
}

#[test]
fn a_missing_index_is_a_clear_text() {
    let root = TempRoot::new().with_demo_data();
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    // Listed (named by the negatives file) although nothing is built yet.
    assert_eq!(retrievers.tools_for("library").expect("tools").len(), 3);
    let (text, is_error) = call(&retrievers, json!({"question": "q"}));
    assert!(!is_error);
    assert_eq!(
        text,
        "Error: the document index of domain 'library' has not been built (run `vakra index`)"
    );
}

/// Something done to an index folder.
type Damage = fn(&std::path::Path);

/// Damages an index in various ways; each must give an error text, never a panic.
#[test]
fn damaged_indexes_are_errors_not_panics() {
    let damage: [(&str, Damage); 5] = [
        ("garbage meta.json", |dir| {
            std::fs::write(dir.join("meta.json"), "garbage").expect("write")
        }),
        ("garbage manifest", |dir| {
            std::fs::write(dir.join("vakra-retrieval.json"), "{").expect("write")
        }),
        ("no manifest", |dir| {
            std::fs::remove_file(dir.join("vakra-retrieval.json")).expect("remove")
        }),
        ("garbage segment files", |dir| {
            for entry in std::fs::read_dir(dir).expect("dir") {
                let path = entry.expect("entry").path();
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                if name != "meta.json" && name != "vakra-retrieval.json" && !name.starts_with('.') {
                    let len = std::fs::metadata(&path).expect("meta").len() as usize;
                    let noise: Vec<u8> = (0..len.max(64)).map(|i| (i * 31 % 251) as u8).collect();
                    std::fs::write(&path, noise).expect("write");
                }
            }
        }),
        ("truncated segment files", |dir| {
            for entry in std::fs::read_dir(dir).expect("dir") {
                let path = entry.expect("entry").path();
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                if name != "meta.json" && name != "vakra-retrieval.json" && !name.starts_with('.') {
                    std::fs::write(&path, b"").expect("truncate");
                }
            }
        }),
    ];
    for (what, damage) in damage {
        let (root, _) = demo();
        damage(&root.path().join("indexes/library"));
        let retrievers = Retrievers::open(&root.data_root()).expect("open");
        for question in ["branch history", ""] {
            let (text, is_error) = call(&retrievers, json!({"question": question}));
            assert!(!is_error, "{what}");
            assert!(
                text.starts_with("Error: the document index of domain 'library'"),
                "{what}: {text}"
            );
        }
        // The other domains are unaffected.
        let (text, _) = retrievers
            .call(
                "library",
                "query_weather",
                &args(json!({"question": "station"})),
            )
            .expect("tool");
        assert_eq!(result_ids(&text).len(), 10, "{what}");
    }
}

#[test]
fn a_retriever_base_url_is_quoted_in_http_error_texts() {
    let root = TempRoot::new().with_demo_data();
    build_indexes(&root.data_root(), false).expect("build");
    let retrievers = Retrievers::open_with(
        &root.data_root(),
        vakra_retrieval::RetrieverOptions {
            base_url: "http://retriever:9000".into(),
            ..Default::default()
        },
    )
    .expect("open");
    let (text, _) = retrievers
        .call(
            "weather",
            "query_weather_alerts",
            &args(json!({"question": "q", "n_results": 0})),
        )
        .expect("tool");
    assert!(
        text.starts_with("Error calling API: Server error '500 Internal Server Error' for url 'http://retriever:9000/weather_alerts/query'"),
        "{text}"
    );
}

/// Dense and hybrid search asked for explicitly need the model: a folder that is not one is
/// an error at open, naming it.
#[test]
fn dense_modes_need_a_model() {
    let root = TempRoot::new();
    let options = vakra_retrieval::RetrieverOptions {
        mode: Some(vakra_retrieval::SearchMode::Hybrid),
        embedding_model: Some(root.path().join("no-model")),
        ..Default::default()
    };
    let error = Retrievers::open_with(&root.data_root(), options).expect_err("refused");
    assert!(matches!(error, RetrievalError::Embed(_)), "{error}");
    assert!(error.to_string().contains("no-model"), "{error}");
}

//! Building indexes from JSONL and from a Chroma store, and what queries return.

use crate::common::{RetrievalRoot, result_ids, write_chroma};
use serde_json::{Value, json};
use vakra_retrieval::{RetrievalError, Retrievers, Source, build_indexes, results_json};
use vakra_test_kit::root::TempRoot;
use vakra_test_kit::text::args;

#[test]
fn jsonl_collections_are_indexed_and_queried() {
    let root = TempRoot::new();
    root.write_jsonl(
        "birds",
        &[
            (
                "heron_0",
                "Grey heron\nThe grey heron wades in shallow water to catch fish.",
            ),
            (
                "swift_1",
                "Common swift\nSwifts spend almost their whole life flying.",
            ),
            (
                "owl_2",
                "Barn owl\nThe barn owl hunts mice at night over open fields.",
            ),
        ],
    );
    let report = build_indexes(&root.data_root(), false).expect("build");
    assert_eq!(report.domains.len(), 1);
    assert_eq!(report.domains[0].domain, "birds");
    assert_eq!(report.domains[0].source, Source::Jsonl);
    assert_eq!(report.domains[0].documents, 3);
    assert!(!report.domains[0].dense);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);

    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let results = retrievers
        .query("birds", "Which bird hunts mice at night?", 2)
        .expect("query");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].id, "owl_2");
    assert_eq!(
        results[0].text,
        "Barn owl\nThe barn owl hunts mice at night over open fields."
    );
    assert_eq!(
        Value::Object(results[0].metadata.clone()),
        json!({"doc_id": "owl", "from_clapnq": false})
    );
    assert!(results[0].distance > 0.0 && results[0].distance < 1.0);
    assert!(results[0].distance <= results[1].distance);

    // The response shape and key order of the reference.
    let body = results_json(&results);
    let first = body["results"][0].as_object().expect("object");
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        ["id", "text", "distance", "metadata"]
    );
    // More results than documents: all of them, matching ones first.
    let all = retrievers.query("birds", "owl", 50).expect("query");
    assert_eq!(all.len(), 3);
    assert_eq!(all[0].id, "owl_2");
    assert!(all.windows(2).all(|w| w[0].distance <= w[1].distance));
    assert_eq!(retrievers.indexed_domains(), ["birds"]);
}

#[test]
fn mcp_text_is_the_wrappers_indented_ascii_json() {
    let root = TempRoot::new();
    root.write_jsonl(
        "towns",
        &[("mtl_0", "Montréal\nA city on an island — in Québec.")],
    );
    build_indexes(&root.data_root(), false).expect("build");
    root.write_file(
        "retrievers/domain_negatives.json",
        r#"{"towns": ["towns"]}"#,
    );
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let (text, is_error) = retrievers
        .call(
            "towns",
            "query_towns",
            &args(json!({"question": "montreal island"})),
        )
        .expect("a retriever tool");
    assert!(!is_error);
    let distance = retrievers
        .query("towns", "montreal island", 10)
        .expect("query")[0]
        .distance;
    let expected = format!(
        "{{\n  \"results\": [\n    {{\n      \"id\": \"mtl_0\",\n      \"text\": \"Montr\\u00e9al\\nA city on an island \\u2014 in Qu\\u00e9bec.\",\n      \"distance\": {},\n      \"metadata\": {{\n        \"doc_id\": \"mtl\",\n        \"from_clapnq\": false\n      }}\n    }}\n  ]\n}}",
        vakra_pytext::float_repr(distance)
    );
    assert_eq!(text, expected);
    // Folded accents match both ways.
    assert_eq!(result_ids(&text), ["mtl_0"]);
}

#[test]
fn chroma_collections_are_read_with_their_metadata() {
    let root = TempRoot::new();
    write_chroma(
        &root,
        &[
            (
                "f1e2d3c4-0000-4000-8000-000000000001",
                "alpha",
                &[
                    (
                        "a1_0",
                        "Alpha one\nThe first alpha document about glaciers.",
                        "a1",
                        false,
                    ),
                    (
                        "a2_1",
                        "Alpha two\nThe second alpha document about deserts.",
                        "a2",
                        true,
                    ),
                ],
            ),
            (
                "0a1b2c3d-0000-4000-8000-000000000002",
                "beta",
                &[("b1_0", "Beta one\nBeta talks about volcanoes.", "b1", false)],
            ),
            (
                "5a1b2c3d-0000-4000-8000-000000000003",
                "not-a-domain",
                &[("x_0", "skipped", "x", false)],
            ),
        ],
        true,
    );
    // A JSONL file for a domain the Chroma store has is ignored, with a warning.
    root.write_jsonl("alpha", &[("other_0", "other text")]);
    root.write_jsonl("gamma", &[("g_0", "Gamma\nGamma is about rivers.")]);
    let report = build_indexes(&root.data_root(), false).expect("build");
    let built: Vec<(&str, Source, usize)> = report
        .domains
        .iter()
        .map(|d| (d.domain.as_str(), d.source, d.documents))
        .collect();
    assert_eq!(
        built,
        [
            ("beta", Source::Chroma, 1),
            ("alpha", Source::Chroma, 2),
            ("gamma", Source::Jsonl, 1)
        ]
    );
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(report.warnings.iter().any(|w| w.contains("not-a-domain")));
    assert!(report.warnings.iter().any(|w| w.contains("alpha.jsonl")));

    root.write_file(
        "retrievers/domain_negatives.json",
        r#"{"alpha": ["alpha", "gamma", "beta"]}"#,
    );
    root.write_file(
        "retrievers/default_descriptions.json",
        r#"{"no_description": "About {domain}.", "empty_description": "On {domain}."}"#,
    );
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let results = retrievers.query("alpha", "deserts", 1).expect("query");
    assert_eq!(results[0].id, "a2_1");
    assert_eq!(
        results[0].text,
        "Alpha two\nThe second alpha document about deserts."
    );
    assert_eq!(
        Value::Object(results[0].metadata.clone()),
        json!({"doc_id": "a2", "from_clapnq": true})
    );
    // Tools are the store's collections among the negatives, in Chroma's collection order
    // (ascending collection id): gamma, which the store lacks, has no route at the reference.
    let names: Vec<String> = retrievers
        .tools_for("alpha")
        .expect("tools")
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["query_beta", "query_alpha"]);
    assert_eq!(retrievers.indexed_domains(), ["beta", "alpha", "gamma"]);
}

/// A record Chroma stored without a document (no `chroma:document` row) has nothing to search:
/// it is left out with a warning and counted, and the other records are indexed.
#[test]
fn chroma_records_without_a_document_are_skipped_and_counted() {
    let root = TempRoot::new();
    write_chroma(
        &root,
        &[(
            "c0",
            "mixed",
            &[
                ("m1_0", "Kept\nA record about lighthouses.", "m1", false),
                (
                    "m2_0",
                    "Dropped\nA record about lighthouses too.",
                    "m2",
                    false,
                ),
                ("m3_0", "", "m3", false),
            ],
        )],
        true,
    );
    let conn = rusqlite::Connection::open(root.path().join("documents/chroma.sqlite3"))
        .expect("open store");
    let removed = conn
        .execute(
            "DELETE FROM embedding_metadata WHERE key = 'chroma:document' AND id = \
             (SELECT id FROM embeddings WHERE embedding_id = 'm2_0')",
            [],
        )
        .expect("delete");
    assert_eq!(removed, 1);
    drop(conn);
    let report = build_indexes(&root.data_root(), false).expect("build");
    assert_eq!(report.domains[0].documents, 2);
    assert_eq!(report.skipped_records, 1);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].contains("\"mixed\"") && report.warnings[0].contains("m2_0"),
        "{}",
        report.warnings[0]
    );
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    // An empty text is a text: only the record without one is gone.
    let ids: Vec<String> = retrievers
        .query("mixed", "lighthouses", 10)
        .expect("query")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, ["m1_0", "m3_0"]);
}

/// A store that a read-only open cannot read (here a WAL store whose `-wal` file cannot be
/// opened, as on a read-only mount) is read as an immutable file instead.
#[test]
fn a_chroma_store_that_cannot_be_opened_read_only_is_read_as_immutable() {
    let root = TempRoot::new();
    write_chroma(
        &root,
        &[(
            "c0",
            "walled",
            &[("w_0", "Walled\nA store in WAL mode.", "w", false)],
        )],
        true,
    );
    let store = root.path().join("documents/chroma.sqlite3");
    let conn = rusqlite::Connection::open(&store).expect("open store");
    let mode: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |row| row.get(0))
        .expect("wal");
    assert_eq!(mode, "wal");
    drop(conn);
    std::fs::create_dir(root.path().join("documents/chroma.sqlite3-wal")).expect("mkdir");
    // The read-only open really fails here.
    let plain =
        rusqlite::Connection::open_with_flags(&store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .and_then(|c| {
                c.query_row("SELECT count(*) FROM collections", [], |r| {
                    r.get::<_, i64>(0)
                })
            });
    assert!(plain.is_err(), "{plain:?}");
    let report = build_indexes(&root.data_root(), false).expect("build");
    assert_eq!(report.domains.len(), 1);
    assert_eq!(report.domains[0].documents, 1);
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    assert_eq!(retrievers.indexed_domains(), ["walled"]);
    let results = retrievers.query("walled", "store", 1).expect("query");
    assert_eq!(results[0].id, "w_0");
}

#[test]
fn older_chroma_stores_without_a_bool_column_are_read() {
    let root = TempRoot::new();
    write_chroma(
        &root,
        &[(
            "c0",
            "old",
            &[("o_0", "Old store\nIntegers for flags.", "o", true)],
        )],
        false,
    );
    build_indexes(&root.data_root(), false).expect("build");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let results = retrievers.query("old", "flags", 1).expect("query");
    assert_eq!(
        Value::Object(results[0].metadata.clone()),
        json!({"doc_id": "o", "from_clapnq": 1})
    );
}

#[test]
fn ties_and_fillers_are_ordered_by_id_whatever_the_segments() {
    let root = TempRoot::new();
    // Identical texts score identically; written in a scrambled order so that document
    // addresses disagree with id order.
    let mut ids: Vec<String> = (0..300)
        .map(|i| format!("doc{:03}_{i}", (i * 7919) % 300))
        .collect();
    ids.sort_by_key(|id| id.bytes().rev().collect::<Vec<u8>>());
    let mut docs: Vec<(&str, &str)> = ids
        .iter()
        .map(|id| (id.as_str(), "same words here"))
        .collect();
    docs.push(("zzz_last", "a unique kestrel"));
    root.write_jsonl("ties", &docs);
    build_indexes(&root.data_root(), false).expect("build");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let mut sorted = ids.clone();
    sorted.sort();

    let hits = retrievers.query("ties", "same words", 10).expect("query");
    let got: Vec<&str> = hits.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        got,
        sorted[..10].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert!(hits.windows(2).all(|w| w[0].distance == w[1].distance));

    // One match, the rest filled with non-matching documents in id order at distance 1.0.
    let filled = retrievers.query("ties", "kestrel", 4).expect("query");
    let got: Vec<&str> = filled.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(got, ["zzz_last", &sorted[0], &sorted[1], &sorted[2]]);
    assert!(filled[0].distance < 1.0);
    assert!(filled[1..].iter().all(|r| r.distance == 1.0));

    // Rebuilding gives the same answers, byte for byte.
    let before = results_json(
        &retrievers
            .query("ties", "words kestrel", 20)
            .expect("query"),
    );
    build_indexes(&root.data_root(), false).expect("rebuild");
    let reopened = Retrievers::open(&root.data_root()).expect("open");
    let after = results_json(&reopened.query("ties", "words kestrel", 20).expect("query"));
    assert_eq!(before, after);
}

#[test]
fn rebuilding_replaces_an_index_and_leaves_no_staging_folders() {
    let root = TempRoot::new();
    root.write_jsonl("notes", &[("n_0", "first version about apples")]);
    build_indexes(&root.data_root(), false).expect("build");
    root.write_jsonl("notes", &[("n_0", "second version about pears")]);
    build_indexes(&root.data_root(), false).expect("rebuild");
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let results = retrievers.query("notes", "pears", 1).expect("query");
    assert_eq!(results[0].text, "second version about pears");
    let leftovers: Vec<String> = std::fs::read_dir(root.path().join("indexes"))
        .expect("indexes")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(leftovers, ["notes"]);
}

#[test]
fn malformed_sources_fail_with_their_location() {
    let root = TempRoot::new();
    root.write_file(
        "documents/bad.jsonl",
        "{\"id\": \"a\", \"text\": \"ok\"}\n\n{\"id\": 5, \"text\": \"x\"}\n",
    );
    let error = build_indexes(&root.data_root(), false).expect_err("bad id");
    assert!(
        matches!(error, RetrievalError::Jsonl { line: 3, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("bad.jsonl:3"), "{error}");

    let root = TempRoot::new();
    root.write_file("documents/bad.jsonl", "not json\n");
    let error = build_indexes(&root.data_root(), false).expect_err("bad json");
    assert!(
        error.to_string().contains("bad.jsonl:1: invalid JSON"),
        "{error}"
    );

    let root = TempRoot::new();
    root.write_jsonl("dup", &[("same", "one"), ("same", "two")]);
    let error = build_indexes(&root.data_root(), false).expect_err("duplicate");
    assert!(
        matches!(error, RetrievalError::DuplicateId { .. }),
        "{error}"
    );
    assert!(!root.path().join("indexes/dup").exists());

    let root = TempRoot::new();
    root.write_file(
        "documents/chroma.sqlite3",
        "this is not a database at all......",
    );
    let error = build_indexes(&root.data_root(), false).expect_err("not sqlite");
    assert!(error.to_string().contains("chroma.sqlite3"), "{error}");

    // Files whose names are not domains are reported, not indexed.
    let root = TempRoot::new();
    root.write_jsonl("bad-name", &[("a", "text")]);
    let report = build_indexes(&root.data_root(), false).expect("build");
    assert!(report.domains.is_empty());
    assert_eq!(report.warnings.len(), 1);
}

#[test]
fn a_root_without_documents_builds_nothing() {
    let root = TempRoot::new();
    let report = build_indexes(&root.data_root(), false).expect("build");
    assert!(report.domains.is_empty() && report.warnings.is_empty());
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    assert!(retrievers.indexed_domains().is_empty());
    assert!(retrievers.all_tools().expect("tools").is_empty());
}

/// Copies the folder `from` into `to`, recursively.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Stores written by the real `chromadb` (`scripts/make_chroma_store.py`): `vakra index` reads
/// the vectors wherever Chroma keeps them — the log only (alpha), the HNSW folder (beta), the
/// folder plus a log with an update, an upsert and a delete (gamma) — without a model; a search
/// by vector returns the exact nearest chunks with hnswlib's distances bit for bit, and those
/// are chromadb's own wherever its approximate search found the same chunks.
#[test]
fn chroma_stores_give_their_own_vectors_and_distances() {
    let Some(stores) = vakra_test_kit::chroma::chroma_stores() else {
        return;
    };
    let root = TempRoot::new();
    copy_dir(
        &stores.join("root/documents"),
        &root.path().join("documents"),
    );
    let report = build_indexes(&root.data_root(), false).expect("build");
    let built: Vec<(&str, usize, usize)> = report
        .domains
        .iter()
        .map(|d| (d.domain.as_str(), d.documents, d.from_store))
        .collect();
    let mut sorted = built.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            ("alpha", 300, 300),
            ("beta", 1000, 1000),
            ("gamma", 1499, 1499)
        ]
    );
    let retrievers = Retrievers::open(&root.data_root()).expect("open");
    let expected: Value =
        serde_json::from_slice(&std::fs::read(stores.join("expected.json")).unwrap()).unwrap();
    let (mut compared, mut same_as_chroma) = (0, 0);
    let (mut compared_at_5, mut same_at_5) = (0, 0);
    for (domain, cases) in expected.as_object().unwrap() {
        let queries: Vec<Vec<f32>> = serde_json::from_value(cases["queries"].clone()).unwrap();
        for answer in cases["answers"].as_array().unwrap() {
            let k = answer["k"].as_i64().unwrap();
            for (i, query) in queries.iter().enumerate() {
                let results = retrievers
                    .query_vector(domain, query, i128::from(k))
                    .expect("query");
                let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
                let distances: Vec<f64> = results.iter().map(|r| r.distance).collect();
                let exact = &answer["exact"][i];
                assert_eq!(
                    ids,
                    exact["ids"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap())
                        .collect::<Vec<_>>(),
                    "{domain} k={k} query {i}"
                );
                assert_eq!(
                    distances,
                    serde_json::from_value::<Vec<f64>>(exact["distances"].clone()).unwrap(),
                    "{domain} k={k} query {i}"
                );
                let chroma_ids = &answer["chroma"]["ids"][i];
                if chroma_ids == &exact["ids"] {
                    same_as_chroma += 1;
                    same_at_5 += usize::from(k == 5);
                    assert_eq!(
                        &answer["chroma"]["distances"][i], &exact["distances"],
                        "{domain} k={k} query {i}"
                    );
                }
                compared += 1;
                compared_at_5 += usize::from(k == 5);
            }
        }
    }
    eprintln!(
        "chromadb's approximate search returned the exact list for {same_as_chroma} of {compared} queries"
    );
    // With five results HNSW finds the exact neighbours nearly always (its graph is built by
    // two threads, so which ones it misses changes between stores); asked for all, it misses
    // some in the larger collections.
    assert!(
        same_at_5 * 3 >= compared_at_5 * 2,
        "{same_at_5} of {compared_at_5} with five results"
    );
    // The chunk texts and metadata are the store's.
    let first = &retrievers
        .query_vector("alpha", &vec![0.0; 384], 1)
        .expect("query")[0];
    assert!(
        first.text.starts_with(&format!("Title {}\n", first.id)),
        "{first:?}"
    );
    assert_eq!(first.metadata.len(), 2, "{first:?}");
}

/// A damaged store is a clear error naming the collection and what is wrong: a collection
/// whose recorded dimension disagrees with its vectors, an HNSW folder cut short; so is a
/// collection with another distance than the reference's l2.
#[test]
fn damaged_chroma_stores_are_clear_errors() {
    let Some(stores) = vakra_test_kit::chroma::chroma_stores() else {
        return;
    };
    for (case, expected) in [
        (
            "wrongdim",
            "collection \"alpha\": the stored vectors are damaged: header.bin: vectors of dimension 384, the collection's is 385",
        ),
        (
            "partial",
            "collection \"beta\": the stored vectors are damaged: data_level0.bin holds",
        ),
    ] {
        let root = TempRoot::new();
        copy_dir(
            &stores.join(case).join("documents"),
            &root.path().join("documents"),
        );
        let error = build_indexes(&root.data_root(), false).expect_err(case);
        assert!(error.to_string().contains(expected), "{case}: {error}");
        assert!(
            !root
                .path()
                .join("indexes/beta/vakra-retrieval.json")
                .exists()
                || case == "wrongdim"
        );
    }
}

//! The bodies of the fuzz targets in `fuzz/`, one function per target, each taking the raw
//! fuzz input. They live here, in the main workspace, rather than in the fuzz crate (its own
//! workspace, built only by cargo-fuzz) so that every test run compiles them and replays the
//! committed seeds through them (`tests/seeds.rs`): a target that no longer compiles or a seed
//! that now crashes or hangs fails the tests, not only a later fuzzing campaign.
//!
//! Each function must not panic on any input except where it asserts a property (a panic is
//! what the fuzzer reports); expensive fixtures are built once per process.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};

/// A target's body: it takes the raw fuzz input.
pub type Target = fn(&[u8]);

/// The targets by name, as `fuzz/fuzz_targets/<name>.rs` and `fuzz/seeds/<name>/` call them.
pub const TARGETS: [(&str, Target); 7] = [
    ("chaining_call", chaining_call),
    ("rest_params", rest_params),
    ("retrieval_query", retrieval_query),
    ("catalog_load", catalog_load),
    ("universe_mapping", universe_mapping),
    ("router_import", router_import),
    ("eval_records", eval_records),
];

/// The repository's top directory, a data root with the demo domains.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/<name> has a grandparent")
        .to_owned()
}

/// The arguments of a tool call from fuzz input: a JSON object, or nothing.
fn json_object(bytes: &[u8]) -> Option<serde_json::Map<String, Value>> {
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// In `chaining_call` input, this text stands for the path of the fuzz universe's database,
/// whose temporary directory a seed cannot know.
pub const TINY_DB: &str = "$TINY_DB";

struct ChainingFixture {
    _dir: tempfile::TempDir,
    database: String,
    envs: Vec<Arc<vakra_chaining::ChainingEnv>>,
}

fn chaining_fixture() -> &'static ChainingFixture {
    use vakra_chaining::{ChainingEnv, ChainingOptions, ServerMode, ToolTexts, Universes};
    static FIXTURE: OnceLock<ChainingFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("tiny")).expect("mkdir");
        let database = dir.path().join("tiny/tiny.sqlite");
        rusqlite::Connection::open(&database)
            .expect("create")
            .execute_batch(
                "CREATE TABLE items (id INTEGER, name TEXT, price REAL, made TEXT, tag);
                 INSERT INTO items VALUES (1, 'apple', 1.5, '2020-01-02', 'a'),
                   (2, 'Pear', NULL, '2021-13-40', 3), (3, '', 2.25, '1999-12-31 23:59:59', NULL),
                   (4, 'ünï', -0.0, '', 4.5), (5, 'apple', 1e308, '2020-01-02T10:00:00', 'a');
                 CREATE TABLE makers (id INTEGER, item_id INTEGER, country TEXT);
                 INSERT INTO makers VALUES (1, 1, 'FR'), (2, 2, 'DE'), (3, 2, NULL);",
            )
            .expect("fill");
        let table = |t: &str| json!({"modified_table_name": t, "original_table_name": t});
        let mapping = json!({
            "u-1": {"domain": "tiny", "server_type": "slot_filling", "init_args": {
                "alias_to_table_dict": {"": table("items")}, "condition_sequence": [],
                "database_path": "ignored"}},
            "u-2": {"domain": "tiny", "server_type": "selection", "init_args": {
                "alias_to_table_dict": {"T1": table("items"), "T2": table("makers")},
                "condition_sequence": [["T1.id", "T2.item_id", "INNER"]],
                "database_path": "ignored"}},
        });
        let universes = Arc::new(Universes::from_json(&mapping.to_string()).expect("mapping"));
        let texts = Arc::new(ToolTexts::load(&repo_root()).expect("texts"));
        let envs = [
            ServerMode::Router,
            ServerMode::SlotFilling,
            ServerMode::Selection,
        ]
        .into_iter()
        .map(|mode| {
            let options = ChainingOptions {
                mode,
                max_session_bytes: 1 << 20,
                // A statement that runs away is a finding, but only as a hang of the fuzzer;
                // the limit keeps the fuzzer going and the seed replay quick.
                sql_time_limit: Duration::from_secs(1),
                ..ChainingOptions::default()
            };
            let env = ChainingEnv::open(
                Arc::clone(&universes),
                Arc::clone(&texts),
                dir.path().to_owned(),
                "tiny",
                options,
            )
            .expect("env");
            Arc::new(env)
        })
        .collect();
        ChainingFixture {
            database: database.display().to_string(),
            _dir: dir,
            envs,
        }
    })
}

/// Capability-1 session calls with arbitrary arguments on a tiny SQLite universe (two
/// universes: one table, and a join).
///
/// Input: lines of `<tool name> <JSON object>` ([`TINY_DB`] stands for the database's path);
/// each input runs its calls in order on a fresh session of each server mode, so handles made
/// by one call reach the next.
pub fn chaining_call(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let fixture = chaining_fixture();
    let text = text.replace(TINY_DB, &fixture.database);
    let calls: Vec<(&str, serde_json::Map<String, Value>)> = text
        .lines()
        .take(16)
        .filter_map(|line| {
            let (name, args) = line.split_once(' ').unwrap_or((line, "{}"));
            Some((name, json_object(args.as_bytes())?))
        })
        .collect();
    for env in &fixture.envs {
        let mut session = vakra_chaining::Session::new(Arc::clone(env));
        for (name, arguments) in &calls {
            let _ = session.call(name, arguments.clone());
            let _ = session.list_tools();
        }
    }
}

fn bird() -> &'static vakra_endpoint::RestBird {
    static BIRD: OnceLock<vakra_endpoint::RestBird> = OnceLock::new();
    BIRD.get_or_init(|| {
        let root = vakra_catalog::DataRoot::new(repo_root());
        vakra_endpoint::RestBird::load(
            &root,
            root.databases_dir(),
            |_| true,
            Duration::from_secs(2),
        )
        .expect("the demo data root loads")
    })
}

/// REST-BIRD parameter parsing and binding: any query string against every demo endpoint.
///
/// Input: one byte choosing the endpoint, then the raw query string (`a=1&b=x%20y`).
pub fn rest_params(data: &[u8]) {
    let Some((&which, query)) = data.split_first() else {
        return;
    };
    let bird = bird();
    let endpoints = bird.endpoints();
    let endpoint = &endpoints[usize::from(which) % endpoints.len()];
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query).into_owned().collect();
    let _ = bird.execute(endpoint, &pairs);
}

struct RetrievalFixture {
    _dir: tempfile::TempDir,
    retrievers: vakra_retrieval::Retrievers,
}

fn retrieval_fixture() -> &'static RetrievalFixture {
    static FIXTURE: OnceLock<RetrievalFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        for folder in [
            vakra_catalog::files::DOCUMENTS,
            vakra_catalog::files::RETRIEVERS,
        ] {
            let to = folder.path(dir.path());
            std::fs::create_dir(&to).expect("mkdir");
            for entry in std::fs::read_dir(folder.path(&repo_root())).expect("demo files") {
                let path = entry.expect("entry").path();
                let name = path.file_name().expect("a file name");
                std::fs::copy(&path, to.join(name)).expect("copy");
            }
        }
        let root = vakra_catalog::DataRoot::new(dir.path());
        vakra_retrieval::build_indexes(&root, false).expect("indexes");
        let retrievers = vakra_retrieval::Retrievers::open(&root).expect("retrievers");
        RetrievalFixture {
            _dir: dir,
            retrievers,
        }
    })
}

/// Capability-4 document search with arbitrary questions and result counts.
///
/// Input: a JSON object of tool arguments (`{"question": …, "n_results": …}`), run through the
/// `query_library` tool; any other input is 16 bytes of `n_results` followed by the question,
/// searched directly.
pub fn retrieval_query(data: &[u8]) {
    let retrievers = &retrieval_fixture().retrievers;
    if let Some(arguments) = json_object(data) {
        let _ = retrievers.call("library", "query_library", &arguments);
        return;
    }
    let Some((count, question)) = data.split_first_chunk::<16>() else {
        return;
    };
    let question = String::from_utf8_lossy(question);
    let _ = retrievers.query("library", &question, i128::from_le_bytes(*count));
}

/// The catalog loader: any bytes as a domain catalog file, and every operation of a catalog
/// that passes the checks compiled as the server would.
pub fn catalog_load(data: &[u8]) {
    let Ok(catalog) = vakra_catalog::parse_domain(data, Path::new("fuzz.json")) else {
        return;
    };
    for operation in catalog.operations {
        let _ = vakra_endpoint::Endpoint::compile(&catalog.name, operation);
    }
}

/// The capability-1 universe mapping: any text as the reference's YAML and as the converted
/// JSON form, and a round trip of whatever parses.
pub fn universe_mapping(data: &[u8]) {
    use vakra_chaining::Universes;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for parsed in [Universes::from_yaml(text), Universes::from_json(text)] {
        let Ok(universes) = parsed else {
            continue;
        };
        for domain in universes.domains() {
            for id in universes.ids_of_domain(domain) {
                let _ = universes.get(id).map(|u| u.toolset());
            }
        }
        let again = Universes::from_json(&universes.to_json()).expect("own JSON parses");
        assert_eq!(again.len(), universes.len());
    }
}

/// The Python-router importer: any text as a router module (parsed, never run), and the
/// expressions it contains through the Python-subset parser.
pub fn router_import(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let _ = vakra_import::router::import_router("fuzz", "fuzz.py", source);
    let _ = vakra_pysyntax::parse_expression(source);
}

/// The evaluator's readers of untrusted input: trace records (ground truth and predictions),
/// the submission-format validator, the LLM judges' reply parsers, the policy reader, and the
/// exact-match, answer and deterministic groundedness judges on whatever values the records
/// hold.
pub fn eval_records(data: &[u8]) {
    use vakra_eval::judges::exact::{self, Normalization};
    use vakra_eval::judges::{answer, answer_text, grounded, llm, policy};
    use vakra_eval::validate;
    use vakra_records::records;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = validate::validate_text(text);
    let _ = llm::parse_correctness(text, false);
    let _ = llm::parse_correctness(text, true);
    let _ = llm::parse_groundedness(text);
    let _ = policy::parse(text);
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let items = match &value {
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    };
    for item in &items {
        if let Ok(record) = records::parse_record(item) {
            for turn in &record.turns {
                let _ = answer_text(&turn.answer);
                let calls: Vec<&str> = turn.calls.iter().map(|c| c.name.as_str()).collect();
                let _ = policy::judge(
                    &record.additional_instructions,
                    &calls,
                    &calls,
                    &Default::default(),
                );
                let _ = exact::reference(&turn.stored_responses, &turn.stored_responses);
                let _ = exact::normalized(&turn.stored_responses, &[], &Normalization::default());
                let _ = answer::judge(&turn.answer, &turn.answer);
                let _ = grounded::judge(&turn.query, &turn.answer, &turn.stored_responses);
            }
        }
    }
    if let [expected, actual] = items.as_slice() {
        let (e, a) = (std::slice::from_ref(expected), std::slice::from_ref(actual));
        assert_eq!(
            exact::reference(e, e).score,
            1.0,
            "a response always matches itself"
        );
        let _ = exact::reference(e, a);
        let _ = exact::normalized(e, a, &Normalization::default());
        let _ = answer::judge(expected, actual);
        let _ = grounded::judge("", expected, e);
        let _ = grounded::judge("", expected, a);
    }
}

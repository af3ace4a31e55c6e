//! `vakra import` end to end: app.py mount lists, router modules the catalog cannot fully
//! express, import errors, data files, dataset links, catalog round trips and (when `VAKRA_REF`
//! names a checkout) the real reference.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use vakra_catalog::{DataRoot, DomainIndex, ParamType, read_domain};
use vakra_endpoint::{Endpoint, Outcome, RestBird};
use vakra_import::data_files::DATA_FILES;
use vakra_import::router::import_router;
use vakra_import::{APP_FILE, ImportError, ImportOptions, ImportReport, ROUTERS_DIR, import};
use vakra_test_kit::reference;

// --- helpers ------------------------------------------------------------------------------------

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn options(repo: &Path, out: &Path, dataset: Option<&Path>) -> ImportOptions {
    ImportOptions {
        vakra_repo: repo.to_owned(),
        out: out.to_owned(),
        dataset: dataset.map(Path::to_owned),
        progress: false,
    }
}

/// Imports `repo` into a fresh temporary data root.
fn import_fresh(repo: &Path) -> (tempfile::TempDir, ImportReport) {
    let out = tempfile::tempdir().expect("temp dir");
    let report = import(&options(repo, out.path(), None))
        .unwrap_or_else(|e| panic!("importing {}: {e}", repo.display()));
    (out, report)
}

fn import_error(options: &ImportOptions) -> ImportError {
    match import(options) {
        Ok(report) => panic!("import succeeded: {}", report.summary()),
        Err(e) => e,
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The 1-based line of the first line containing `needle` at or after the line that defines
/// `function` (or from the top with `function == ""`).
fn line_in(source: &str, function: &str, needle: &str) -> u32 {
    let start = if function.is_empty() {
        0
    } else {
        source
            .lines()
            .position(|l| l.contains(&format!("def {function}(")))
            .unwrap_or_else(|| panic!("no def {function} in the fixture"))
    };
    let index = source
        .lines()
        .enumerate()
        .skip(start)
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not found after def {function}"))
        .0;
    u32::try_from(index + 1).expect("line fits")
}

/// The decorator line of `function`: the line just above its `def`.
fn decorator_line(source: &str, function: &str) -> u32 {
    let def = line_in(source, function, &format!("def {function}("));
    let line = source
        .lines()
        .nth(def as usize - 2)
        .expect("line above def");
    assert!(line.starts_with("@app."), "no decorator above {function}");
    def - 1
}

// --- the `odd` fixture: endpoints the catalog cannot express -------------------------------------

const ODD_LABEL: &str = "environment/m3/rest/server/odd.py";

fn odd_source() -> String {
    std::fs::read_to_string(fixture("odd").join(ODD_LABEL)).expect("odd.py")
}

#[test]
fn odd_fixture_imports_the_good_endpoints_and_lists_every_other_one() {
    let (out, report) = import_fresh(&fixture("odd"));
    let src = odd_source();
    assert_eq!(
        (report.domains, report.endpoints),
        (1, 2),
        "domains and endpoints"
    );

    let catalog = read_domain(&out.path().join("openapi/odd.json")).expect("odd.json");
    let written: Vec<(&str, &str, Option<&str>)> = catalog
        .operations
        .iter()
        .map(|op| {
            (
                op.operation_id.as_str(),
                op.path.as_str(),
                op.program.sample.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        written,
        [
            (
                "get_kettle_count",
                "/v1/odd/kettle_count",
                Some("/v1/odd/kettle_count")
            ),
            (
                "get_colours_of_brand",
                "/v1/odd/colours_of_brand",
                Some("/v1/odd/colours_of_brand?brand=Acme&limit=2")
            ),
        ],
        "the written operations"
    );

    // (function, expected line, words the reason must contain)
    let expected: Vec<(&str, u32, &[&str])> = vec![
        (
            "add_kettle",
            decorator_line(&src, "add_kettle"),
            &["GET", "app.post"],
        ),
        (
            "get_item",
            decorator_line(&src, "get_item"),
            &["{item_id}", "path parameters"],
        ),
        (
            "get_colours_looped",
            line_in(&src, "get_colours_looped", "for row in result:"),
            &["unsupported statement", "after the fetch"],
        ),
        (
            "get_kettle_by_colour",
            line_in(&src, "get_kettle_by_colour", "parameters=(colour,)"),
            &["cursor.execute"],
        ),
        (
            "get_newest_kettle",
            line_in(&src, "get_newest_kettle", "if not result:"),
            &["if not result:", "else"],
        ),
        (
            "get_oldest_kettle",
            line_in(&src, "get_oldest_kettle", "if not result:"),
            &["empty-result", "constant"],
        ),
        (
            "get_kettles_by_tags",
            line_in(&src, "get_kettles_by_tags", "tags: list[str]"),
            &["\"tags\"", "only str, int, float and bool"],
        ),
        (
            "get_kettle_by_brand",
            line_in(&src, "get_kettle_by_brand", "alias=\"x\""),
            &["\"brand\"", "alias"],
        ),
        (
            "get_two_queries",
            line_in(
                &src,
                "get_two_queries",
                "cursor.execute(\"SELECT COUNT(*) FROM kettles\")",
            ),
            &["fetchone()", "fetchall()"],
        ),
    ];
    let got: Vec<&str> = report
        .unexpressed
        .iter()
        .map(|u| u.function.as_str())
        .collect();
    let want: Vec<&str> = expected.iter().map(|(f, _, _)| *f).collect();
    assert_eq!(got, want, "unexpressed functions, in source order");

    let mut problems = Vec::new();
    for (u, (function, line, words)) in report.unexpressed.iter().zip(&expected) {
        if u.file != ODD_LABEL {
            problems.push(format!("{function}: file {:?}", u.file));
        }
        if u.line != *line {
            problems.push(format!(
                "{function}: line {} ({:?}), expected {line} ({:?})",
                u.line,
                src.lines()
                    .nth((u.line as usize).wrapping_sub(1))
                    .unwrap_or(""),
                src.lines().nth(*line as usize - 1).unwrap_or("")
            ));
        }
        for word in *words {
            if !u.reason.contains(word) {
                problems.push(format!("{function}: reason {:?} lacks {word:?}", u.reason));
            }
        }
        assert_eq!(
            u.to_string(),
            format!("{}:{}: {}: {}", u.file, u.line, u.function, u.reason)
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    let summary = report.summary();
    for part in ["1 domains", "2 endpoints", "9 not expressible"] {
        assert!(summary.contains(part), "summary {summary:?} lacks {part:?}");
    }
}

#[test]
fn execute_with_keyword_arguments_is_reported_as_such() {
    let imported = import_router("odd", ODD_LABEL, &odd_source()).expect("parses");
    let u = imported
        .unexpressed
        .iter()
        .find(|u| u.function == "get_kettle_by_colour")
        .expect("listed");
    assert!(
        u.reason.contains("keyword"),
        "reason {:?} does not say keyword arguments",
        u.reason
    );
}

#[test]
fn reasons_do_not_print_rust_debug_text() {
    let src = r#"
@app.get("/v1/d/a", operation_id="a", tags=["x"])
async def a():
    cursor.execute("SELECT 1")
    result = cursor.fetchone()
    if not result:
        return {"a": []}
    return {"a": result[0]}
"#;
    let mut reasons: Vec<String> = import_router("d", "d.py", src)
        .expect("parses")
        .unexpressed
        .into_iter()
        .map(|u| u.reason)
        .collect();
    reasons.extend(
        import_router("odd", ODD_LABEL, &odd_source())
            .expect("parses")
            .unexpressed
            .into_iter()
            .map(|u| u.reason),
    );
    let debug: Vec<&String> = reasons.iter().filter(|r| r.contains("Some(")).collect();
    assert!(debug.is_empty(), "{debug:#?}");
}

#[test]
fn odd_fixture_good_endpoints_serve_rows() {
    let (out, _) = import_fresh(&fixture("odd"));
    let db_dir = out.path().join("databases/odd");
    std::fs::create_dir_all(&db_dir).expect("mkdir");
    rusqlite::Connection::open(db_dir.join("odd.sqlite"))
        .expect("open")
        .execute_batch(
            "CREATE TABLE kettles (kettle_id INTEGER PRIMARY KEY, colour TEXT, brand TEXT);
             INSERT INTO kettles VALUES (1, 'red', 'Acme'), (2, 'teal', 'Acme'), (3, 'jade', 'Acme'),
                                        (4, 'grey', 'Zed');",
        )
        .expect("build");
    let root = DataRoot::new(out.path());
    let bird = RestBird::load(
        &root,
        root.databases_dir(),
        |_| true,
        Duration::from_secs(10),
    )
    .expect("the imported root loads");
    let call = |path: &str, query: &[(&str, &str)]| {
        let endpoint = bird.find(path).unwrap_or_else(|| panic!("no {path}"));
        let query: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        match bird.execute(endpoint, &query) {
            Outcome::Ok(body) => body,
            other => panic!("{path}: {other:?}"),
        }
    };
    assert_eq!(call("/v1/odd/kettle_count", &[]), json!({"count": 4}));
    assert_eq!(
        call("/v1/odd/colours_of_brand", &[]),
        json!({"colours": ["red", "teal"]}),
        "defaults brand=Acme, limit=2"
    );
    assert_eq!(
        call(
            "/v1/odd/colours_of_brand",
            &[("brand", "Zed"), ("limit", "9")]
        ),
        json!({"colours": ["grey"]})
    );
    assert_eq!(
        call("/v1/odd/colours_of_brand", &[("brand", "None")]),
        json!({"colours": []}),
        "the empty template"
    );
    assert!(bird.find("/v1/odd/kettle").is_none(), "POST route served");
}

// --- import_router, directly -------------------------------------------------------------------

#[test]
fn import_router_reports_a_syntax_error_with_its_line() {
    let src = "from fastapi import APIRouter\n\napp = APIRouter()\n\ndef broken(:\n    pass\n";
    let message = import_router("d", "d.py", src).expect_err("parsed");
    assert!(
        message.contains("line 5"),
        "message {message:?} does not name line 5"
    );
}

#[test]
fn import_router_derives_fastapi_defaults() {
    let src = r#"
def helper():
    return 1

@app.get("/v1/d/thing-list")
async def get_thing_list(a: int, b = "x", c: float = -1.5, d: bool = Query(True), e: str = Query(default=None, description="E")):
    """Docstring is ignored."""
    cursor.execute("SELECT ?, ?, ?, ?, ?", (a, b, c, d, e))
    result = cursor.fetchone()
    if not result:
        return {"row": []}
    return {"row": result}

@app.get("/v1/d/other", operation_id="other", summary="")
async def other():
    pass
    cursor.execute("SELECT 1")
    results = cursor.fetchall()
    if not results:
        return None
    n = len(results)
    return {"n": n}
"#;
    let imported = import_router("d", "server/d.py", src).expect("parses");
    assert!(
        imported.unexpressed.is_empty(),
        "{:?}",
        imported.unexpressed
    );
    let ops = &imported.catalog.operations;
    assert_eq!(ops.len(), 2, "helper() is not a route");
    assert_eq!(
        ops[0].operation_id, "get_thing_list_v1_d_thing_list_get",
        "FastAPI's generate_unique_id"
    );
    assert_eq!(
        ops[0].summary, "Get Thing List",
        "the summary FastAPI derives"
    );
    assert_eq!(ops[1].summary, "Other", "an empty summary is replaced");
    let params: Vec<(&str, ParamType, bool, Option<serde_json::Value>, &str)> = ops[0]
        .params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.ty,
                p.required,
                p.default.clone(),
                p.description.as_str(),
            )
        })
        .collect();
    assert_eq!(
        params,
        [
            ("a", ParamType::Int, true, None, ""),
            ("b", ParamType::Str, false, Some(json!("x")), ""),
            ("c", ParamType::Float, false, Some(json!(-1.5)), ""),
            ("d", ParamType::Bool, false, Some(json!(true)), ""),
            ("e", ParamType::Str, false, Some(json!(null)), "E"),
        ]
    );
    let p = &ops[1].program;
    assert_eq!(
        (
            p.result.as_str(),
            &p.empty,
            p.after.len(),
            p.response.as_str()
        ),
        ("results", &json!(null), 1, "{'n': n}")
    );
    assert_eq!(imported.catalog.source.as_deref(), Some("server/d.py"));
}

#[test]
fn keyword_only_parameters_are_reported_at_their_line() {
    let src = "\n@app.get(\"/v1/d/a\")\nasync def a(*, q: str = Query(...)):\n    cursor.execute(\"SELECT ?\", (q,))\n    result = cursor.fetchone()\n    if not result:\n        return {\"a\": []}\n    return {\"a\": result[0]}\n";
    let imported = import_router("d", "d.py", src).expect("parses");
    let [u] = imported.unexpressed.as_slice() else {
        panic!("{:?}", imported.unexpressed)
    };
    assert!(
        u.line == 2 || u.line == 3,
        "reported at line {} ({})",
        u.line,
        u.reason
    );
}

#[test]
fn endpoints_the_server_cannot_compile_are_listed_not_written() {
    let src = r#"
@app.get("/v1/d/sorted_names", operation_id="get_sorted_names", summary="Names, sorted.")
async def get_sorted_names():
    cursor.execute("SELECT name FROM t")
    result = cursor.fetchall()
    if not result:
        return {"names": []}
    return {"names": sorted(row[0] for row in result)}
"#;
    let imported = import_router("d", "d.py", src).expect("parses");
    for op in &imported.catalog.operations {
        if let Err(e) = Endpoint::compile("d", op.clone()) {
            panic!(
                "{} was written but cannot be served: {e}; unexpressed: {:?}",
                op.operation_id, imported.unexpressed
            );
        }
    }
    assert_eq!(imported.unexpressed.len(), 1, "not listed");
}

// --- app.py: what is mounted ----------------------------------------------------------------

fn mounted(app_py: &str) -> Result<Vec<String>, String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("app.py");
    std::fs::write(&path, app_py).expect("write");
    vakra_import::app::mounted_modules(&path).map_err(|e| {
        let text = e.to_string();
        assert!(
            text.contains(&path.display().to_string()),
            "error {text:?} does not name app.py"
        );
        assert!(matches!(e, ImportError::Parse { .. }), "{e:?}");
        text
    })
}

fn assert_mount_error(app_py: &str, words: &[&str]) {
    match mounted(app_py) {
        Ok(modules) => panic!("accepted, mounting {modules:?}:\n{app_py}"),
        Err(message) => {
            for word in words {
                assert!(
                    message.contains(word),
                    "error {message:?} lacks {word:?}\n{app_py}"
                );
            }
        }
    }
}

#[test]
fn mount_order_is_kept_across_import_lines() {
    let app = "from fastapi import FastAPI\n\
               from server import zeta, alpha\n\
               from server import mid  \n\
               from other import unrelated\n\
               app = FastAPI()\n\
               app.include_router(mid.app)\n\
               # app.include_router(gone.app)\n\
               app.include_router(zeta.app)\n\
               #app.include_router(zeta.app)\n\
               app.include_router(alpha.app)  # last\n";
    assert_eq!(
        mounted(app),
        Ok(vec![
            "mid".to_owned(),
            "zeta".to_owned(),
            "alpha".to_owned()
        ])
    );
}

#[test]
fn an_imported_but_unmounted_module_is_not_mounted() {
    let app = "from server import a, b\napp.include_router(b.app)\n";
    assert_eq!(mounted(app), Ok(vec!["b".to_owned()]));
}

#[test]
fn mount_errors_are_explained() {
    assert_mount_error(
        "from server import a\napp.include_router(a.app)\napp.include_router(b.app)\n",
        &["b is mounted but not imported"],
    );
    assert_mount_error(
        "from server import a\napp.include_router(a.app)\n\napp.include_router(a.app)\n",
        &["line 4", "a is mounted twice"],
    );
    assert_mount_error(
        "from server import a\napp.include_router(a)\n",
        &["line 2", "include_router(<module>.app)"],
    );
    assert_mount_error(
        "from server import a\napp.include_router(a.router)\n",
        &["line 2", "a.app"],
    );
    assert_mount_error(
        "from server import a, b\napp.include_router(a.app, b.app)\n",
        &["line 2", "one router"],
    );
    assert_mount_error(
        "from server import a\napp = FastAPI()\n# app.include_router(a.app)\n",
        &["no app.include_router"],
    );
    assert_mount_error("", &["no app.include_router"]);
    assert_mount_error(
        "from server import a\napp.include_router(a.app\nx = 1\n",
        &["line "],
    );
    assert_mount_error(
        "from server import a\n\n\ndef broken(:\n    pass\n",
        &["line 4"],
    );
    assert_mount_error(
        "from server import café\napp.include_router(café.app)\n",
        &["line 2", "not a valid domain name"],
    );
}

#[test]
fn an_aliased_import_mounts_the_module_itself() {
    assert_eq!(
        mounted("from server import real_module as alias\napp.include_router(alias.app)\n"),
        Ok(vec!["real_module".to_owned()])
    );
}

#[test]
fn mounted_modules_of_a_missing_file_is_an_io_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("app.py");
    let err = vakra_import::app::mounted_modules(&path).expect_err("no file");
    assert!(matches!(err, ImportError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("app.py"), "{err}");
}

// --- import errors ------------------------------------------------------------------------------

#[test]
fn a_folder_that_is_not_a_checkout_is_refused() {
    let repo = tempfile::tempdir().expect("temp dir");
    write(&repo.path().join("environment/m3/rest/server/a.py"), "");
    let out = tempfile::tempdir().expect("temp dir");
    let err = import_error(&options(repo.path(), out.path(), None));
    let text = err.to_string();
    assert!(matches!(err, ImportError::Layout(_)), "{err:?}");
    assert!(
        text.contains(APP_FILE) && text.contains("missing"),
        "{text:?} does not name the missing {APP_FILE}"
    );
    assert!(
        text.contains(&repo.path().display().to_string()),
        "{text:?} does not name the folder"
    );
    assert!(
        !out.path().join("openapi").exists(),
        "wrote into the data root anyway"
    );
}

#[test]
fn a_mounted_module_without_a_file_is_an_error_naming_the_file() {
    let repo = tempfile::tempdir().expect("temp dir");
    write(
        &repo.path().join(APP_FILE),
        "from server import ghost\napp.include_router(ghost.app)\n",
    );
    let out = tempfile::tempdir().expect("temp dir");
    let err = import_error(&options(repo.path(), out.path(), None));
    assert!(matches!(err, ImportError::Io { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&format!("{ROUTERS_DIR}/ghost.py")),
        "{err} does not name server/ghost.py"
    );
}

#[test]
fn a_router_with_a_syntax_error_is_an_error_naming_file_and_line() {
    let repo = tempfile::tempdir().expect("temp dir");
    copy_dir(&fixture("odd"), repo.path());
    let router = repo.path().join(ODD_LABEL);
    let mut source = std::fs::read_to_string(&router).expect("read");
    source.push_str("\n\nasync def unfinished(a, b\n");
    let bad_line = source.lines().count();
    std::fs::write(&router, &source).expect("write");
    let out = tempfile::tempdir().expect("temp dir");
    let err = import_error(&options(repo.path(), out.path(), None));
    assert!(matches!(err, ImportError::Parse { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(ODD_LABEL), "{text:?} does not name odd.py");
    let named_line = (bad_line..=bad_line + 1).any(|l| text.contains(&format!("line {l}")));
    assert!(
        named_line,
        "{text:?} does not name line {bad_line} (or the end of the file)"
    );
}

// --- data files ---------------------------------------------------------------------------------

#[test]
fn data_files_land_in_their_folders_and_missing_ones_are_listed() {
    let repo = tempfile::tempdir().expect("temp dir");
    copy_dir(&fixture("forms"), repo.path());
    let r = repo.path();
    let files: &[(&str, &str)] = &[
        (
            "environment/configs/mcp_tool_universe_id_mapping.yaml",
            "bakery: [1, 2]\n",
        ),
        ("environment/retrievers/domain_negatives.json", "{\"a\": 1}"),
        ("environment/bpo/data/tasks.json", "[]"),
        ("environment/bpo/data/notes.csv", "a,b\n1,2\n"),
        ("environment/bpo/data/__init__.py", ""),
        ("environment/bpo/data/nested/skipped.json", "{}"),
        (
            "environment/m3/rest/server/mapping_metadata/forms.json",
            "{\"forms\": {}}",
        ),
        (
            "environment/m3/rest/server/mapping_metadata/__init__.py",
            "",
        ),
    ];
    for (path, text) in files {
        write(&r.join(path), text);
    }
    let (out, report) = import_fresh(r);
    let o = out.path();

    let mut copied = report.data_files.clone();
    copied.sort();
    assert_eq!(
        copied,
        [
            "bpo/notes.csv",
            "bpo/tasks.json",
            "capability1/mcp_tool_universe_id_mapping.yaml",
            "mappings/forms.json",
            "retrievers/domain_negatives.json",
        ],
        "copied files (no __init__.py, no nested folders)"
    );
    for (from, to) in [
        (
            "environment/configs/mcp_tool_universe_id_mapping.yaml",
            "capability1/mcp_tool_universe_id_mapping.yaml",
        ),
        (
            "environment/retrievers/domain_negatives.json",
            "retrievers/domain_negatives.json",
        ),
        ("environment/bpo/data/tasks.json", "bpo/tasks.json"),
        ("environment/bpo/data/notes.csv", "bpo/notes.csv"),
        (
            "environment/m3/rest/server/mapping_metadata/forms.json",
            "mappings/forms.json",
        ),
    ] {
        assert_eq!(
            std::fs::read(o.join(to)).unwrap_or_default(),
            std::fs::read(r.join(from)).expect("source"),
            "{to} is not a copy of {from}"
        );
    }
    assert!(!o.join("bpo/__init__.py").exists());
    assert!(!o.join("bpo/nested").exists());
    assert!(!o.join("mappings/__init__.py").exists());

    let mut missing = report.missing_data_files.clone();
    missing.sort();
    assert_eq!(
        missing,
        [
            "environment/retrievers/domain_description_dict.json",
            "tool_checksums.json",
        ],
        "missing data files"
    );
    assert!(!o.join("tool_checksums.json").exists());
    // Every source in DATA_FILES is either copied or reported missing.
    for (source, _) in DATA_FILES {
        let reported = report.missing_data_files.iter().any(|m| m == source);
        assert_eq!(reported, !r.join(source).exists(), "{source}");
    }
    assert!(
        report.summary().contains("5 data files copied"),
        "{}",
        report.summary()
    );
}

#[test]
fn a_checkout_with_every_data_file_reports_none_missing() {
    let repo = tempfile::tempdir().expect("temp dir");
    copy_dir(&fixture("odd"), repo.path());
    for (source, _) in DATA_FILES {
        let path = repo.path().join(source);
        if Path::new(source).extension().is_some() {
            write(&path, "x");
        } else {
            write(&path.join("only.txt"), "x");
        }
    }
    let (out, report) = import_fresh(repo.path());
    assert!(
        report.missing_data_files.is_empty(),
        "{:?}",
        report.missing_data_files
    );
    assert_eq!(report.data_files.len(), DATA_FILES.len());
    assert!(out.path().join("tool_checksums.json").is_file());
}

// --- BPO descriptions ---------------------------------------------------------------------------

/// The `bpo` fixture's descriptions: what Python 3.11's `ast.get_docstring` (`inspect.cleandoc`,
/// as FastMCP and pydantic use) gives for its decorated tools, in declaration order, and for its
/// documented classes (see the fixture's README).
fn bpo_fixture_descriptions() -> serde_json::Value {
    json!({
        "tools": [
            {
                "name": "candidate_source_sla_per_source",
                "description": "Tells, channel by channel, how often applicants were looked at before the deadline.\n\nArgs:\n    requisition_id: The opening whose look-alikes are counted, such as \"05958BR\".\n\nReturns:\n    One share per channel, the slowest channel first."
            },
            {
                "name": "candidate_source_candidate_volume_by_source",
                "description": "Counts applicants per channel over the look-alike openings.\n\nArgs:\n    requisition_id: The opening to start from.\n    sources: Channels to keep (spelled exactly);\n        every channel when left out.\n\nReturns:\n    The counts, each with its share of all applicants."
            },
            {
                "name": "skills_successful_posting_criteria",
                "description": "Thresholds a posting has to meet to count as a success."
            },
            {"name": "skills_skill_summary", "description": null},
            {
                "name": "skills_skill_impact_sla",
                "description": "Compares review punctuality with and without one skill.\n\nArgs:\n    requisition_id: The opening to start from.\n    skill_name: The skill to split applicants by."
            }
        ],
        "models": {
            "SLAMetric": "One channel and the share of its applicants reviewed in time.",
            "SLAPerSourceResponse": "Review punctuality of every channel.\n\n    Ordered from the least to the most punctual."
        }
    })
}

/// `vakra import` writes `bpo/descriptions.json` from the BPO server's and schemas' source:
/// decorated tools only, undocumented ones as `null`, documented classes only.
#[test]
fn bpo_descriptions_are_written_from_the_server_source() {
    let (out, report) = import_fresh(&fixture("bpo"));
    assert!(
        report
            .data_files
            .iter()
            .any(|f| f == "bpo/descriptions.json"),
        "{:?}",
        report.data_files
    );
    let path = out.path().join("bpo/descriptions.json");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("descriptions.json"))
            .expect("JSON");
    assert_eq!(written, bpo_fixture_descriptions());
}

/// Without a BPO server no descriptions file is written; a server that does not parse is an
/// error naming it.
#[test]
fn bpo_descriptions_need_a_parsable_server() {
    let (out, report) = import_fresh(&fixture("odd"));
    assert!(!out.path().join("bpo/descriptions.json").exists());
    assert!(!report.data_files.iter().any(|f| f.contains("descriptions")));

    let repo = tempfile::tempdir().expect("temp dir");
    copy_dir(&fixture("bpo"), repo.path());
    let server = repo.path().join(vakra_import::docstrings::BPO_SERVER);
    write(&server, "@mcp.tool()\ndef broken(:\n    pass\n");
    let out = tempfile::tempdir().expect("temp dir");
    let error = import_error(&options(repo.path(), out.path(), None));
    assert!(matches!(error, ImportError::Parse { .. }), "{error:?}");
    assert!(
        error.to_string().contains("environment/bpo/mcp/server.py"),
        "{error}"
    );
}

// --- dataset linking ----------------------------------------------------------------------------

/// A dataset folder with two databases, a badly named one, documents and tasks.
fn dataset(marker: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    for domain in ["alpha", "beta"] {
        write(
            &d.join(format!("databases/{domain}/{domain}.sqlite")),
            &format!("{marker} {domain}"),
        );
    }
    write(&d.join("databases/bad name/bad name.sqlite"), "x");
    write(&d.join("databases/stray_file.sqlite"), "x");
    write(&d.join("indexed_documents/alpha/doc.txt"), marker);
    write(&d.join("test/tasks.json"), marker);
    dir
}

fn assert_link(from: &Path, to: &Path) {
    let meta =
        std::fs::symlink_metadata(from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    assert!(
        meta.file_type().is_symlink(),
        "{} is not a link",
        from.display()
    );
    assert_eq!(
        std::fs::read_link(from).expect("read_link"),
        to.canonicalize().expect("canonical"),
        "{} points elsewhere",
        from.display()
    );
}

#[cfg(unix)]
#[test]
fn a_dataset_is_linked_and_relinked() {
    let first = dataset("first");
    let out = tempfile::tempdir().expect("temp dir");
    let o = out.path();
    let report = import(&options(&fixture("odd"), o, Some(first.path()))).expect("import");
    assert_eq!(
        report.linked,
        ["databases/alpha", "databases/beta", "documents", "tasks"],
        "linked entries (the invalid name 'bad name' and stray files are skipped)"
    );
    assert_link(
        &o.join("databases/alpha"),
        &first.path().join("databases/alpha"),
    );
    assert_link(
        &o.join("databases/beta"),
        &first.path().join("databases/beta"),
    );
    assert_link(
        &o.join("documents"),
        &first.path().join("indexed_documents"),
    );
    assert_link(&o.join("tasks"), &first.path().join("test"));
    assert!(!o.join("databases/bad name").exists());
    assert!(!o.join("databases/stray_file.sqlite").exists());
    assert_eq!(
        std::fs::read_to_string(o.join("databases/beta/beta.sqlite")).expect("through link"),
        "first beta"
    );
    assert!(
        report.summary().contains("4 linked"),
        "{}",
        report.summary()
    );

    // Again with the same dataset: nothing changes.
    let again = import(&options(&fixture("odd"), o, Some(first.path()))).expect("re-import");
    assert_eq!(again.linked, report.linked);
    assert_link(
        &o.join("databases/alpha"),
        &first.path().join("databases/alpha"),
    );

    // With another dataset: the links are replaced.
    let second = dataset("second");
    import(&options(&fixture("odd"), o, Some(second.path()))).expect("relink");
    assert_link(
        &o.join("databases/alpha"),
        &second.path().join("databases/alpha"),
    );
    assert_link(&o.join("tasks"), &second.path().join("test"));
    assert_eq!(
        std::fs::read_to_string(o.join("tasks/tasks.json")).expect("through link"),
        "second"
    );
    assert!(second.path().join("test/tasks.json").exists());
    assert!(
        first.path().join("test/tasks.json").exists(),
        "relinking touched the old dataset"
    );
}

#[cfg(unix)]
#[test]
fn a_real_folder_in_the_way_is_not_replaced() {
    let data = dataset("d");
    let out = tempfile::tempdir().expect("temp dir");
    write(&out.path().join("documents/mine.txt"), "keep me");
    let err = import_error(&options(&fixture("odd"), out.path(), Some(data.path())));
    assert!(matches!(err, ImportError::Layout(_)), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("documents") && text.contains("not a link"),
        "{text:?}"
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("documents/mine.txt")).expect("kept"),
        "keep me"
    );

    let out = tempfile::tempdir().expect("temp dir");
    write(&out.path().join("databases/beta/beta.sqlite"), "real");
    let err = import_error(&options(&fixture("odd"), out.path(), Some(data.path())));
    assert!(
        err.to_string().contains("beta") && err.to_string().contains("not a link"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.path().join("databases/beta/beta.sqlite")).expect("kept"),
        "real"
    );
}

#[test]
fn a_dataset_without_known_folders_is_an_error() {
    let data = tempfile::tempdir().expect("temp dir");
    write(&data.path().join("README.md"), "not a dataset");
    write(&data.path().join("databases_old/a/a.sqlite"), "x");
    let out = tempfile::tempdir().expect("temp dir");
    let err = import_error(&options(&fixture("odd"), out.path(), Some(data.path())));
    assert!(matches!(err, ImportError::Layout(_)), "{err:?}");
    let text = err.to_string();
    for word in ["databases/", "indexed_documents/", "test/"] {
        assert!(text.contains(word), "{text:?} lacks {word:?}");
    }

    let missing = data.path().join("no_such_folder");
    let err = import_error(&options(&fixture("odd"), out.path(), Some(&missing)));
    assert!(
        err.to_string().contains("no_such_folder"),
        "{err} does not name the dataset folder"
    );
}

// --- catalogs round-trip ------------------------------------------------------------------------

fn assert_round_trip(repo: &Path) -> usize {
    let (out, report) = import_fresh(repo);
    let root = DataRoot::new(out.path());
    let index = root.read_index().expect("domains.json");
    assert_eq!(index.domains.len(), report.domains);
    let mut operations = 0;
    for module in &index.domains {
        let label = format!("{ROUTERS_DIR}/{module}.py");
        let source = std::fs::read_to_string(repo.join(&label)).expect("router source");
        let imported = import_router(module, &label, &source).expect("parses");
        let written = read_domain(&root.domain_file(module).expect("valid name"))
            .unwrap_or_else(|e| panic!("{module}: {e}"));
        assert_eq!(written.name, *module);
        assert_eq!(written.source.as_deref(), Some(label.as_str()));
        assert_eq!(
            written.operations.len(),
            imported.catalog.operations.len(),
            "{module}: operation count"
        );
        for (w, i) in written.operations.iter().zip(&imported.catalog.operations) {
            assert_eq!(w, i, "{module}: {} changed on disk", i.operation_id);
        }
        assert_eq!(written, imported.catalog, "{module}");
        operations += written.operations.len();
    }
    assert_eq!(operations, report.endpoints);
    operations
}

#[test]
fn written_catalogs_round_trip() {
    assert_eq!(assert_round_trip(&fixture("forms")), 34);
    assert_eq!(assert_round_trip(&fixture("odd")), 2);
    let (out, _) = import_fresh(&fixture("forms"));
    assert_eq!(
        DataRoot::new(out.path()).read_index().expect("index"),
        DomainIndex {
            domains: vec!["forms".to_owned(), "forms_extra".to_owned()]
        },
        "mount order, without the commented-out module"
    );
    assert!(!out.path().join("openapi/unmounted_thing.json").exists());
}

#[test]
fn importing_twice_into_one_root_gives_the_same_files() {
    let out = tempfile::tempdir().expect("temp dir");
    import(&options(&fixture("forms"), out.path(), None)).expect("first");
    let first = std::fs::read(out.path().join("openapi/forms.json")).expect("forms.json");
    import(&options(&fixture("forms"), out.path(), None)).expect("second");
    let second = std::fs::read(out.path().join("openapi/forms.json")).expect("forms.json");
    assert!(
        first == second,
        "a second import wrote a different forms.json"
    );
}

// --- the reference checkout ---------------------------------------------------------------------

#[test]
fn the_reference_checkout_imports_completely() {
    let Some(repo) = reference::checkout("the reference checkout import") else {
        return;
    };
    let (out, report) = import_fresh(&repo);
    assert!(
        report.unexpressed.is_empty(),
        "{} not expressible:\n{}",
        report.unexpressed.len(),
        report
            .unexpressed
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!((report.domains, report.endpoints), (61, 7087));
    let domains = DataRoot::new(out.path())
        .read_index()
        .expect("index")
        .domains;
    assert_eq!(
        domains[..3],
        [
            "california_schools",
            "card_games",
            "debit_card_specializing"
        ]
    );
    assert_eq!(domains.last().map(String::as_str), Some("university"));

    // Everything written must also be servable.
    let root = DataRoot::new(out.path());
    let mut failures = Vec::new();
    for domain in &domains {
        let catalog = root.load_domain(domain).expect("catalog");
        for op in catalog.operations {
            let id = op.operation_id.clone();
            if let Err(e) = Endpoint::compile(domain, op) {
                failures.push(format!("{domain}/{id}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

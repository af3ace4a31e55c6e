//! `initialize_active_data` (§3.2–§3.3): naming, quoting, the multi-table SQL text, join
//! order, ignored conditions and error texts. Expectations come from the reference's own
//! function run on the same database (pandas 2.3.3, SQLite 3.40.1).

use crate::common;

use std::path::Path;
use std::time::Duration;
use vakra_frame::Pandas;

use indexmap::IndexMap;
use vakra_frame::{
    DirectLimits, InitArgs, Table, TableSpec, initialize_active_data, load_universe, make_safe,
    render_list,
};
use vakra_sql::DatabaseSet;

/// Limits that no legitimate load here comes near.
const LIMITS: DirectLimits = DirectLimits {
    time_limit: Duration::from_secs(60),
    max_bytes: 1 << 30,
};

const DB: &str = r#"CREATE TABLE "Edge Table" (ID INTEGER, "Mixed Col", " Padded (x) " TEXT, "a/b-c" REAL);
INSERT INTO "Edge Table" VALUES (1, 5, 'p', 1.5), (2, 'five', NULL, NULL), (3, 7.5, 'q', 2.0);
CREATE TABLE "order" (id INTEGER, "select" TEXT);
INSERT INTO "order" VALUES (1, 'kw'), (2, 'x');
CREATE TABLE other (id INTEGER, val TEXT, score REAL);
INSERT INTO other VALUES (1, 'one', 1.5), (2, 'two', NULL), (2, 'two-b', 2.5), (9, 'nine', 9.5);
CREATE TABLE empty_one (a INTEGER, b TEXT);
"#;

fn args(conditions: &[[&str; 3]], aliases: &[(&str, &str, &str)], path: &str) -> InitArgs {
    InitArgs {
        alias_to_table_dict: aliases
            .iter()
            .map(|(alias, modified, original)| {
                (
                    (*alias).to_owned(),
                    TableSpec {
                        modified_table_name: (*modified).to_owned(),
                        original_table_name: (*original).to_owned(),
                    },
                )
            })
            .collect::<IndexMap<_, _>>(),
        condition_sequence: conditions
            .iter()
            .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
            .collect(),
        database_path: path.to_owned(),
    }
}

type Columns = Vec<(&'static str, &'static str, &'static str)>;

/// A case: its name, join conditions and `(alias, modified, original)` tables.
type Setup = (
    &'static str,
    Vec<[&'static str; 3]>,
    Vec<(&'static str, &'static str, &'static str)>,
);

fn columns(t: &Table) -> Vec<(String, String, String)> {
    t.columns()
        .iter()
        .map(|c| {
            let dtype = t
                .dtype(c.name())
                .map(|d| d.as_str().to_owned())
                .unwrap_or_default();
            (
                c.name().to_owned(),
                dtype,
                render_list(c.cells()).expect("json"),
            )
        })
        .collect()
}

#[test]
fn loads_like_the_reference() {
    let root = tempfile::tempdir().expect("tempdir");
    common::build_db(root.path(), "edge", DB);
    let db = DatabaseSet::new(root.path(), Duration::from_secs(10))
        .get("edge")
        .expect("db");
    let cases: Vec<(&str, Result<Columns, &str>)> = vec![
        (
            "blank_alias",
            Ok(vec![
                ("ID", "int64", "[1, 2, 3]"),
                ("Mixed_Col", "object", "[5, \"five\", 7.5]"),
                ("Padded_x", "object", "[\"p\", null, \"q\"]"),
                ("a_b_c", "float64", "[1.5, NaN, 2.0]"),
            ]),
        ),
        (
            "prefixed",
            Ok(vec![
                ("edge_ID", "int64", "[1, 2, 3]"),
                ("edge_Mixed_Col", "object", "[5, \"five\", 7.5]"),
                ("edge_Padded_x", "object", "[\"p\", null, \"q\"]"),
                ("edge_a_b_c", "float64", "[1.5, NaN, 2.0]"),
            ]),
        ),
        (
            "reserved",
            Ok(vec![
                ("id", "int64", "[1, 2]"),
                ("select", "object", "[\"kw\", \"x\"]"),
            ]),
        ),
        (
            "last_of_two",
            Ok(vec![
                ("order_id", "int64", "[1, 2]"),
                ("order_select", "object", "[\"kw\", \"x\"]"),
            ]),
        ),
        (
            "join",
            Ok(vec![
                ("edge_ID", "int64", "[1, 2, 2]"),
                ("edge_Mixed_Col", "object", "[5, \"five\", \"five\"]"),
                ("edge_Padded_x", "object", "[\"p\", null, null]"),
                ("edge_a_b_c", "float64", "[1.5, NaN, NaN]"),
                ("other_id", "int64", "[1, 2, 2]"),
                ("other_val", "object", "[\"one\", \"two\", \"two-b\"]"),
                ("other_score", "float64", "[1.5, NaN, 2.5]"),
            ]),
        ),
        (
            "join_left_attach",
            Ok(vec![
                ("order_id", "int64", "[1, 2, 2]"),
                ("order_select", "object", "[\"kw\", \"x\", \"x\"]"),
                ("other_id", "int64", "[1, 2, 2]"),
                ("other_val", "object", "[\"one\", \"two\", \"two-b\"]"),
                ("other_score", "float64", "[1.5, NaN, 2.5]"),
            ]),
        ),
        (
            "self_join_dropped_condition",
            Ok(vec![
                ("other_id", "int64", "[1, 2, 2, 2, 2, 9]"),
                (
                    "other_val",
                    "object",
                    "[\"one\", \"two\", \"two\", \"two-b\", \"two-b\", \"nine\"]",
                ),
                ("other_score", "float64", "[1.5, NaN, NaN, 2.5, 2.5, 9.5]"),
                ("other_1_id", "int64", "[1, 2, 2, 2, 2, 9]"),
                (
                    "other_1_val",
                    "object",
                    "[\"one\", \"two\", \"two-b\", \"two\", \"two-b\", \"nine\"]",
                ),
                ("other_1_score", "float64", "[1.5, NaN, 2.5, NaN, 2.5, 9.5]"),
            ]),
        ),
        (
            "unjoined_alias",
            Err(
                "Execution failed on sql 'SELECT \"T1\".\"id\" AS \"other_id\", \"T1\".\"val\" AS \"other_val\", \"T1\".\"score\" AS \"other_score\", \"T2\".\"id\" AS \"order_id\", \"T2\".\"select\" AS \"order_select\", \"T3\".\"ID\" AS \"edge_ID\", \"T3\".\"Mixed Col\" AS \"edge_Mixed_Col\", \"T3\".\" Padded (x) \" AS \"edge_Padded_x\", \"T3\".\"a/b-c\" AS \"edge_a_b_c\" FROM \"other\" AS \"T1\" INNER JOIN \"order\" AS \"T2\" ON \"T1\".\"id\" = \"T2\".\"id\"': no such column: T3.ID",
            ),
        ),
        (
            "missing_table",
            Err(
                "Did not find table 'nope' in connection. Only found ['Edge Table' 'order' 'other' 'empty_one']",
            ),
        ),
        (
            "missing_join_table",
            Err(
                "Execution failed on sql 'SELECT  FROM \"nope\" AS \"T1\" INNER JOIN \"nada\" AS \"T2\" ON \"T1\".\"id\" = \"T2\".\"id\"': near \"FROM\": syntax error",
            ),
        ),
        (
            "empty",
            Ok(vec![("a", "object", "[]"), ("b", "object", "[]")]),
        ),
        (
            "no_dot",
            Err("not enough values to unpack (expected 2, got 1)"),
        ),
    ];
    let setups: Vec<Setup> = vec![
        (
            "blank_alias",
            vec![],
            vec![("", "Edge Table", "Edge Table")],
        ),
        ("prefixed", vec![], vec![("T", "edge", "Edge Table")]),
        ("reserved", vec![], vec![("", "order", "order")]),
        (
            "last_of_two",
            vec![],
            vec![("T1", "other", "other"), ("T2", "order", "order")],
        ),
        (
            "join",
            vec![["T1.ID", "T2.id", ""]],
            vec![("T1", "edge", "Edge Table"), ("T2", "other", "other")],
        ),
        (
            "join_left_attach",
            vec![["T2.id", "T1.id", "INNER"]],
            vec![("T1", "order", "order"), ("T2", "other", "other")],
        ),
        (
            "self_join_dropped_condition",
            vec![["T1.id", "T2.id", "INNER"], ["T2.val", "T1.val", "INNER"]],
            vec![("T1", "other", "other"), ("T2", "other_1", "other")],
        ),
        (
            "unjoined_alias",
            vec![["T1.id", "T2.id", "INNER"]],
            vec![
                ("T1", "other", "other"),
                ("T2", "order", "order"),
                ("T3", "edge", "Edge Table"),
            ],
        ),
        ("missing_table", vec![], vec![("", "nope", "nope")]),
        (
            "missing_join_table",
            vec![["T1.id", "T2.id", "INNER"]],
            vec![("T1", "nope", "nope"), ("T2", "nada", "nada")],
        ),
        ("empty", vec![], vec![("", "empty_one", "empty_one")]),
        (
            "no_dot",
            vec![["T1id", "T2.id", ""]],
            vec![("T1", "other", "other"), ("T2", "order", "order")],
        ),
    ];
    for ((name, expected), (setup, conditions, aliases)) in cases.into_iter().zip(setups) {
        assert_eq!(name, setup);
        let init = args(&conditions, &aliases, "/ignored/by/load_universe.sqlite");
        let expected = expected
            .map(|cols| {
                cols.into_iter()
                    .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()))
                    .collect::<Vec<_>>()
            })
            .map_err(str::to_owned);
        let loaded = load_universe(&db, &init, Pandas::V2)
            .map(|t| columns(&t))
            .map_err(|e| e.to_string());
        assert_eq!(loaded, expected, "{name}");
        // The same through a direct call with an explicit path.
        let direct = args(&conditions, &aliases, &db.path().display().to_string());
        let loaded = initialize_active_data(&direct, root.path(), LIMITS, Pandas::V2)
            .map(|t| columns(&t))
            .map_err(|e| e.to_string());
        assert_eq!(loaded, expected, "{name} (direct)");
    }
}

#[test]
fn missing_database() {
    let init = args(&[], &[("", "director", "director")], "/nope/x.sqlite");
    assert_eq!(
        initialize_active_data(&init, Path::new("/"), LIMITS, Pandas::V2)
            .unwrap_err()
            .to_string(),
        "failed, can't find database at location (/nope/x.sqlite)"
    );
    let root = tempfile::tempdir().expect("tempdir");
    let db = DatabaseSet::new(root.path(), Duration::from_secs(1))
        .get("gone")
        .expect("db");
    assert_eq!(
        load_universe(&db, &init, Pandas::V2)
            .unwrap_err()
            .to_string(),
        format!(
            "failed, can't find database at location ({})",
            db.path().display()
        )
    );
}

#[test]
fn table_lists_are_printed_like_numpy_arrays() {
    let root = tempfile::tempdir().expect("tempdir");
    let ddl: String = (0..12)
        .map(|i| format!("CREATE TABLE table_{i:02}_name (x);"))
        .collect();
    common::build_db(root.path(), "many", &ddl);
    common::build_db(root.path(), "none", "");
    common::build_db(
        root.path(),
        "quote",
        "CREATE TABLE \"a'b\" (x); CREATE TABLE x (y);",
    );
    let set = DatabaseSet::new(root.path(), Duration::from_secs(1));
    let init = args(&[], &[("", "missing", "missing")], "");
    let error = |domain: &str| {
        load_universe(&set.get(domain).expect("db"), &init, Pandas::V2)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error("many"),
        "Did not find table 'missing' in connection. Only found ['table_00_name' 'table_01_name' 'table_02_name' 'table_03_name'\n 'table_04_name' 'table_05_name' 'table_06_name' 'table_07_name'\n 'table_08_name' 'table_09_name' 'table_10_name' 'table_11_name']"
    );
    assert_eq!(
        error("none"),
        "Did not find table 'missing' in connection. Only found []"
    );
    assert_eq!(
        error("quote"),
        "Did not find table 'missing' in connection. Only found [\"a'b\" 'x']"
    );
}

#[test]
fn column_names_are_made_safe() {
    assert_eq!(make_safe("Charter School (Y/N)"), "Charter_School_Y_N");
    assert_eq!(
        make_safe("Percent (%) Eligible Free (K-12)"),
        "Percent_%_Eligible_Free_K_12"
    );
    assert_eq!(make_safe("T-BIL"), "T_BIL");
    assert_eq!(make_safe("Academic Year"), "Academic_Year");
    assert_eq!(make_safe(" a.b#c? "), "a.b#c?");
    assert_eq!(make_safe("\u{1c}x\u{1f}"), "x");
}

#[test]
fn direct_calls_read_only_under_the_allowed_root() {
    let root = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    common::build_db(root.path(), "edge", DB);
    common::build_db(outside.path(), "edge", DB);
    let inside = root.path().join("edge/edge.sqlite");
    let elsewhere = outside.path().join("edge/edge.sqlite");
    let aliases = [("", "other", "other")];
    let load = |path: &str| {
        initialize_active_data(&args(&[], &aliases, path), root.path(), LIMITS, Pandas::V2)
    };
    assert!(load(&inside.display().to_string()).is_ok());
    std::os::unix::fs::symlink(&elsewhere, root.path().join("link.sqlite")).unwrap();
    let escapes = [
        elsewhere.display().to_string(),
        format!(
            "{}/../{}/edge/edge.sqlite",
            root.path().display(),
            outside.path().file_name().unwrap().to_string_lossy()
        ),
        root.path().join("link.sqlite").display().to_string(),
        format!("{}\0", inside.display()),
        "/etc/passwd".to_owned(),
    ];
    for path in escapes {
        assert_eq!(
            load(&path).unwrap_err().to_string(),
            format!("failed, can't find database at location ({path})"),
            "{path:?}"
        );
    }
}

/// With database folders linked into the root (`vakra import --dataset`), the root's own
/// database is reachable by its absolute path in the root; other files of the linked folder
/// are not.
#[test]
fn linked_database_folders_serve_their_own_database() {
    let root = tempfile::tempdir().expect("tempdir");
    let dataset = tempfile::tempdir().expect("tempdir");
    common::build_db(dataset.path(), "edge", DB);
    common::build_db(dataset.path(), "spare", DB);
    std::fs::copy(
        dataset.path().join("spare/spare.sqlite"),
        dataset.path().join("edge/other.sqlite"),
    )
    .unwrap();
    std::os::unix::fs::symlink(dataset.path().join("edge"), root.path().join("edge")).unwrap();
    let aliases = [("", "other", "other")];
    let load = |path: &Path| {
        initialize_active_data(
            &args(&[], &aliases, &path.display().to_string()),
            root.path(),
            LIMITS,
            Pandas::V2,
        )
    };
    assert!(load(&root.path().join("edge/edge.sqlite")).is_ok());
    let other = root.path().join("edge/other.sqlite");
    assert_eq!(
        load(&other).unwrap_err().to_string(),
        format!(
            "failed, can't find database at location ({})",
            other.display()
        )
    );
}

/// A table name that closes the reference's backticks and joins an endless recursive CTE.
const ENDLESS_TABLE: &str = "other` JOIN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c) AS `q";

#[test]
fn table_names_are_one_identifier() {
    let root = tempfile::tempdir().expect("tempdir");
    let db = common::build_db(root.path(), "edge", DB);
    let path = db.display().to_string();
    let started = std::time::Instant::now();
    let err = initialize_active_data(
        &args(&[], &[("", "t", ENDLESS_TABLE)], &path),
        root.path(),
        LIMITS,
        Pandas::V2,
    )
    .unwrap_err()
    .to_string();
    // The whole name is looked up as a table, and is not one.
    assert!(
        err.starts_with(&format!(
            "Did not find table '{ENDLESS_TABLE}' in connection. Only found ["
        )),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // A comma list is not a cross join either.
    let err = initialize_active_data(
        &args(&[], &[("", "t", "other,other")], &path),
        root.path(),
        LIMITS,
        Pandas::V2,
    )
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("Did not find table 'other,other'"), "{err}");
    // Backticks in a real table's name are matched literally.
    let odd = "CREATE TABLE `we``ird` (a INTEGER); INSERT INTO `we``ird` VALUES (4);";
    common::build_db(root.path(), "odd", odd);
    let odd_path = root.path().join("odd/odd.sqlite").display().to_string();
    let loaded = initialize_active_data(
        &args(&[], &[("", "t", "we`ird")], &odd_path),
        root.path(),
        LIMITS,
        Pandas::V2,
    )
    .expect("a name with a backtick");
    assert_eq!(columns(&loaded).len(), 1);
}

#[test]
fn direct_calls_run_within_the_limits() {
    let root = tempfile::tempdir().expect("tempdir");
    let db = common::build_db(root.path(), "edge", DB);
    let path = db.display().to_string();
    // A join can multiply rows without any trick: three aliases of a table whose rows all
    // share the key. The time limit interrupts it, with its own message rather than SQLite's.
    let big = "CREATE TABLE big (k INTEGER, v TEXT); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 3000) INSERT INTO big SELECT 1, 'v' FROM c;";
    let big_path = common::build_db(root.path(), "big", big)
        .display()
        .to_string();
    let quick = DirectLimits {
        time_limit: Duration::from_millis(300),
        max_bytes: 1 << 30,
    };
    let started = std::time::Instant::now();
    let err = initialize_active_data(
        &args(
            &[["a.k", "b.k", "inner"], ["b.k", "c.k", "inner"]],
            &[("a", "a", "big"), ("b", "b", "big"), ("c", "c", "big")],
            &big_path,
        ),
        root.path(),
        quick,
        Pandas::V2,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(err, "statement interrupted after 300ms (time limit)");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );

    // Rows are counted while they are fetched: a join beyond the byte limit stops with it.
    let small = DirectLimits {
        time_limit: Duration::from_secs(60),
        max_bytes: 200,
    };
    let err = initialize_active_data(
        &args(&[], &[("", "t", "other")], &path),
        root.path(),
        small,
        Pandas::V2,
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "the result holds more than 200 bytes (the limit of this read)"
    );
    assert!(
        initialize_active_data(
            &args(&[], &[("", "t", "empty_one")], &path),
            root.path(),
            small,
            Pandas::V2
        )
        .is_ok()
    );
}

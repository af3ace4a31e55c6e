use std::time::Duration;

use vakra_catalog::FetchMode as Fetch;
use vakra_sql::{Database, DatabaseSet, Fetched, SqlError, SqlValue};

fn fixture() -> (tempfile::TempDir, DatabaseSet) {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("shop");
    std::fs::create_dir_all(&db_dir).unwrap();
    let conn = rusqlite::Connection::open(db_dir.join("shop.sqlite")).unwrap();
    conn.execute_batch(
        "CREATE TABLE item (id INTEGER, name TEXT, price REAL, blob BLOB);
         INSERT INTO item VALUES (1, 'Zoë', 2.5, x'6869'), (2, 'plain', 3, NULL), (3, NULL, NULL, NULL);",
    )
    .unwrap();
    drop(conn);
    let set = DatabaseSet::new(dir.path(), Duration::from_secs(2));
    (dir, set)
}

#[test]
fn cells_keep_sqlite_dynamic_types() {
    let (_dir, set) = fixture();
    let db = set.get("shop").unwrap();
    let rows = db
        .query(
            "SELECT id, name, price, blob FROM item ORDER BY id",
            &[],
            Fetch::All,
        )
        .unwrap();
    let Fetched::All(rows) = rows else {
        panic!("expected all rows")
    };
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0],
        vec![
            SqlValue::Integer(1),
            SqlValue::Text("Zoë".into()),
            SqlValue::Real(2.5),
            SqlValue::Blob(b"hi".to_vec())
        ]
    );
    // a REAL column given the integer 3 stores REAL 3.0
    assert_eq!(rows[1][2], SqlValue::Real(3.0));
    assert_eq!(rows[2][1], SqlValue::Null);
}

#[test]
fn fetch_one_returns_first_row_or_none() {
    let (_dir, set) = fixture();
    let db = set.get("shop").unwrap();
    let one = db
        .query(
            "SELECT name FROM item WHERE id = ?",
            &[SqlValue::Integer(2)],
            Fetch::One,
        )
        .unwrap();
    assert_eq!(
        one,
        Fetched::One(Some(vec![SqlValue::Text("plain".into())]))
    );
    let none = db
        .query(
            "SELECT name FROM item WHERE id = ?",
            &[SqlValue::Integer(9)],
            Fetch::One,
        )
        .unwrap();
    assert_eq!(none, Fetched::One(None));
}

#[test]
fn binding_type_matters_like_in_python() {
    let (_dir, set) = fixture();
    let db = set.get("shop").unwrap();
    let int_div = db
        .query("SELECT ? / 2", &[SqlValue::Integer(7)], Fetch::One)
        .unwrap();
    assert_eq!(int_div, Fetched::One(Some(vec![SqlValue::Integer(3)])));
    let real_div = db
        .query("SELECT ? / 2", &[SqlValue::Real(7.0)], Fetch::One)
        .unwrap();
    assert_eq!(real_div, Fetched::One(Some(vec![SqlValue::Real(3.5)])));
}

#[test]
fn wrong_bind_count_is_an_error() {
    let (_dir, set) = fixture();
    let db = set.get("shop").unwrap();
    let err = db
        .query("SELECT ? + ?", &[SqlValue::Integer(1)], Fetch::One)
        .unwrap_err();
    assert!(
        matches!(
            err,
            SqlError::BindCount {
                expected: 2,
                given: 1
            }
        ),
        "{err}"
    );
}

#[test]
fn math_functions_are_available() {
    let (_dir, set) = fixture();
    let db = set.get("shop").unwrap();
    let r = db.query("SELECT POWER(2, 10)", &[], Fetch::One).unwrap();
    assert_eq!(r, Fetched::One(Some(vec![SqlValue::Real(1024.0)])));
}

#[test]
fn databases_are_read_only() {
    let (_dir, set) = fixture();
    let db = set.get("shop").unwrap();
    let err = db
        .query("INSERT INTO item VALUES (4, 'x', 1, NULL)", &[], Fetch::All)
        .unwrap_err();
    assert!(
        err.to_string().contains("readonly")
            || err.to_string().contains("read-only")
            || err.to_string().contains("query_only"),
        "{err}"
    );
    let err = db.query("DROP TABLE item", &[], Fetch::All).unwrap_err();
    assert!(matches!(err, SqlError::Sqlite(_)), "{err}");
}

#[test]
fn missing_database_fails_on_query_not_before() {
    let (_dir, set) = fixture();
    let db = set.get("nowhere").unwrap();
    let err = db.query("SELECT 1", &[], Fetch::One).unwrap_err();
    assert!(matches!(err, SqlError::Missing(_)), "{err}");
    assert!(err.to_string().contains("nowhere.sqlite"));
}

#[test]
fn path_tricks_in_domain_names_are_rejected() {
    let (_dir, set) = fixture();
    for name in [
        "../shop",
        "shop/..",
        "",
        ".",
        "a b",
        "shop\0",
        "..",
        "/etc/passwd",
    ] {
        assert!(
            matches!(set.get(name), Err(SqlError::InvalidDomain(_))),
            "{name:?}"
        );
    }
}

#[test]
fn slow_statements_are_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("slow")).unwrap();
    rusqlite::Connection::open(dir.path().join("slow/slow.sqlite"))
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let set = DatabaseSet::new(dir.path(), Duration::from_millis(200));
    let db = set.get("slow").unwrap();
    let started = std::time::Instant::now();
    let err = db
        .query(
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c",
            &[],
            Fetch::One,
        )
        .unwrap_err();
    assert!(matches!(err, SqlError::Interrupted(_)), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // the connection is usable again afterwards
    assert_eq!(
        db.query("SELECT 1", &[], Fetch::One).unwrap(),
        Fetched::One(Some(vec![SqlValue::Integer(1)]))
    );
}

#[test]
fn invalid_utf8_text_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("bad")).unwrap();
    rusqlite::Connection::open(dir.path().join("bad/bad.sqlite"))
        .unwrap()
        .execute_batch("CREATE TABLE t (x TEXT); INSERT INTO t VALUES (CAST(x'ff' AS TEXT));")
        .unwrap();
    let set = DatabaseSet::new(dir.path(), Duration::from_secs(1));
    let err = set
        .get("bad")
        .unwrap()
        .query("SELECT x FROM t", &[], Fetch::All)
        .unwrap_err();
    assert!(matches!(err, SqlError::InvalidUtf8), "{err}");
}

#[test]
fn endless_results_stop_at_the_byte_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("any.sqlite");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    // A database at any file has the limits of a set's: a long time limit, but a byte limit
    // that stops an endless result long before memory runs out.
    let db = Database::new(path, Duration::from_secs(600));
    let endless = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n, 'padding' FROM c";
    let started = std::time::Instant::now();
    let err = db
        .query_within(endless, &[], Fetch::All, 1 << 20)
        .unwrap_err();
    assert!(
        matches!(err, SqlError::TooLarge(limit) if limit == 1 << 20),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // Within the limit the rows come as with `query`.
    assert_eq!(
        db.query_within("SELECT 1", &[], Fetch::All, 1 << 20)
            .unwrap(),
        Fetched::All(vec![vec![SqlValue::Integer(1)]])
    );
    // ... and the connection stays read-only.
    assert!(
        db.query("INSERT INTO t VALUES (1)", &[], Fetch::All)
            .is_err()
    );
}

//! Isolation: databases and indexes are never written through a server, and names from
//! clients (domains, universes, handles, database paths, URL paths) never reach files outside
//! what the server was given. A database planted inside the data root but outside the database
//! root holds a marker that no answer may contain.

use std::path::Path;
use std::time::SystemTime;

use crate::common::{Server, demo_root, http_session, slow_root, try_call};
use serde_json::json;
use vakra_test_kit::http::{raw_get, raw_post};

const MARKER: &str = "TOPSECRET-7f3a";

/// A demo data root (with indexes) plus `secret/secret.sqlite` holding [`MARKER`], outside
/// the database root; and the server on it.
fn root_with_secret() -> (tempfile::TempDir, Server) {
    let root = demo_root(true);
    std::fs::create_dir(root.path().join("secret")).unwrap();
    let db = rusqlite::Connection::open(root.path().join("secret/secret.sqlite")).unwrap();
    db.execute_batch(&format!(
        "CREATE TABLE books (book_id INTEGER, genre TEXT); INSERT INTO books VALUES (1, '{MARKER}');"
    ))
    .unwrap();
    drop(db);
    std::fs::write(root.path().join("secret.json"), MARKER).unwrap();
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    (root, server)
}

#[test]
fn traversal_in_http_paths_finds_nothing() {
    let (_root, server) = root_with_secret();
    for target in [
        "/v1/../secret.json",
        "/v1/library/../../secret.json",
        "/v1/library/%2e%2e/%2e%2e/secret.json",
        "/v1/%2E%2E%2Fsecret.json",
        "/openapi/..%2Fsecret.json",
        "/openapi/%2e%2e%2f%2e%2e%2fsecret.json",
        "/openapi/../secret.json",
        "/openapi/%00.json",
        "/mcp/1/..%2Fsecret",
        "/mcp/1/%2e%2e%2fsecret%2fsecret",
        "/mcp/2/..%2F..%2Fetc%2Fpasswd",
        "/mcp/1/secret",
        "/mcp/1/library%00",
        "/mcp/4/%2Fetc%2Fpasswd",
        "/mcp/..%2F1/library",
        "/retriever/..%2Fsecret/query",
        "/retriever/%2e%2e/domains",
    ] {
        let (status, text) = raw_get(&server.base, target);
        assert!(status == 404 || status == 405, "{target}: {status} {text}");
        assert!(!text.contains(MARKER), "{target}: {text}");
    }
    let body = json!({"question": "x"}).to_string();
    for domain in ["..%2Fsecret", "%2e%2e", "secret", "library%00"] {
        let (status, text) = raw_post(&server.base, &format!("/retriever/{domain}/query"), &body);
        assert_eq!(status, 404, "{domain}: {text}");
        assert!(!text.contains(MARKER), "{domain}: {text}");
    }
}

#[tokio::test]
async fn capability_1_names_stay_inside_the_database_root() {
    let (root, server) = root_with_secret();
    let client = http_session(&server, "1", "library").await;
    let table = json!({"": {"modified_table_name": "books", "original_table_name": "books"}});
    let initialize = |path: String| json!({"alias_to_table_dict": table, "condition_sequence": [], "database_path": path});
    // The server's own database may be named (the reference's hidden tool)…
    let own = root.path().join("databases/library/library.sqlite");
    let (text, _) = try_call(
        &client,
        "initialize_active_data",
        initialize(own.display().to_string()),
    )
    .await
    .unwrap();
    assert!(text.contains("\"num_records\": 1168"), "{text}");
    // …but no database outside the database root, however it is spelled.
    let secret = root.path().join("secret/secret.sqlite");
    for path in [
        secret.display().to_string(),
        format!(
            "{}/databases/../secret/secret.sqlite",
            root.path().display()
        ),
        format!(
            "{}/databases/library/../../secret/secret.sqlite",
            root.path().display()
        ),
        format!("{}\0", own.display()),
        "/etc/passwd".to_owned(),
        "secret/secret.sqlite".to_owned(),
    ] {
        let (text, _) = try_call(&client, "initialize_active_data", initialize(path.clone()))
            .await
            .unwrap();
        assert!(
            text.contains("can't find database at location"),
            "{path:?}: {text}"
        );
        assert!(!text.contains(MARKER), "{path:?}: {text}");
    }
    // Universe ids and handles are names in the mapping and the session, never paths.
    for id in ["../secret/secret", "/etc/passwd", "secret", "..", "\0"] {
        let (text, _) = try_call(&client, "get_data", json!({"tool_universe_id": id}))
            .await
            .unwrap();
        assert!(text.contains("Unknown universe ID"), "{id:?}: {text}");
    }
    for label in ["../secret", "/etc/passwd", "secret.sqlite"] {
        let (text, _) = try_call(
            &client,
            "aggregate_data",
            json!({"data_label": label, "key_name": "genre", "aggregation_operation": "count"}),
        )
        .await
        .unwrap();
        assert!(!text.contains(MARKER), "{label}: {text}");
    }
    client.cancel().await.unwrap();
}

/// Every file under `dir` with its length and modification time.
fn snapshot(dir: &Path) -> Vec<(String, u64, SystemTime)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                files.push((
                    entry.path().display().to_string(),
                    meta.len(),
                    meta.modified().unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}

#[tokio::test]
async fn databases_and_indexes_are_never_written() {
    // A catalog whose SQL writes (catalogs are trusted, but the database still refuses).
    let root = slow_root();
    let db_path = root.path().join("databases/slow/slow.sqlite");
    let before = std::fs::read(&db_path).unwrap();
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let (status, _, body) =
        vakra_test_kit::http::get(&format!("{}/v1/slow/add_note?body=x", server.base)).await;
    assert_eq!((status, body.as_str()), (500, "Internal Server Error"));
    let client = http_session(&server, "2", "slow").await;
    let (text, _) = try_call(&client, "get_add_note", json!({"body": "y"}))
        .await
        .unwrap();
    assert!(
        text.starts_with("Error calling API: Server error '500"),
        "{text}"
    );
    client.cancel().await.unwrap();
    drop(server);
    assert_eq!(
        std::fs::read(&db_path).unwrap(),
        before,
        "the database file changed"
    );
    let count: i64 = rusqlite::Connection::open(&db_path)
        .unwrap()
        .query_row("SELECT count(*) FROM notes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 1);

    // Searches leave the document indexes as they were.
    let root = demo_root(true);
    let indexes = root.path().join("indexes");
    let before = snapshot(&indexes);
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);
    let client = http_session(&server, "4", "library").await;
    for question in ["branch history", "", "late fees"] {
        let (text, is_error) = try_call(
            &client,
            "query_library",
            json!({"question": question, "n_results": 3}),
        )
        .await
        .unwrap();
        assert!(!is_error, "{text}");
    }
    let (status, _, _) = vakra_test_kit::http::request(
        reqwest::Method::GET,
        &format!("{}/retriever/domains", server.base),
    )
    .await;
    assert_eq!(status, 200);
    client.cancel().await.unwrap();
    drop(server);
    assert_eq!(snapshot(&indexes), before, "an index file changed");
}

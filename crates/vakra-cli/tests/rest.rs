//! `vakra serve` over real HTTP on the repository's demo data, and its refusals.

use crate::common::{Server, vakra};
use serde_json::Value;
use vakra_test_kit::http::{get, request};
use vakra_test_kit::paths::repo_root;

fn catalog(domain: &str) -> Value {
    let text = std::fs::read_to_string(repo_root().join(format!("openapi/{domain}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn every_demo_endpoint_answers_its_sample_request() {
    let root = repo_root();
    let server = Server::start(&["--root", root.to_str().unwrap()]);
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("openapi/domains.json")).unwrap())
            .unwrap();
    let mut answered = 0;
    for domain in index["domains"].as_array().unwrap() {
        let doc = catalog(domain.as_str().unwrap());
        for (path, item) in doc["paths"].as_object().unwrap() {
            let sample = item["get"]["x-vakra"]["sample"]
                .as_str()
                .unwrap_or_else(|| panic!("{path} has no sample request"));
            let (status, content_type, body) = get(&format!("{}{sample}", server.base)).await;
            assert_eq!(status, 200, "{sample}: {body}");
            assert_eq!(content_type, "application/json", "{sample}");
            let value: Value = serde_json::from_str(&body).unwrap();
            assert!(value.is_object(), "{sample}: {body}");
            answered += 1;
        }
    }
    assert!(answered >= 50, "only {answered} endpoints");
}

#[tokio::test]
async fn openapi_documents_list_paths_in_mount_order() {
    let root = repo_root();
    let server = Server::start(&["--root", root.to_str().unwrap()]);
    let (status, _, body) = get(&format!("{}/openapi.json", server.base)).await;
    assert_eq!(status, 200);
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths: Vec<&String> = doc["paths"].as_object().unwrap().keys().collect();
    assert_eq!(paths[0], "/metrics", "the reference lists /metrics first");
    let mut expected = vec![];
    for domain in ["library", "weather", "weather_alerts"] {
        expected.extend(
            catalog(domain)["paths"]
                .as_object()
                .unwrap()
                .keys()
                .cloned(),
        );
    }
    assert_eq!(
        paths[1..].iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        expected
    );
    assert!(
        !body.contains("x-vakra"),
        "server-side extensions must not be served"
    );

    let (status, _, body) = get(&format!("{}/openapi/weather.json", server.base)).await;
    assert_eq!(status, 200);
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert!(
        doc["paths"]
            .as_object()
            .unwrap()
            .keys()
            .skip(1)
            .all(|p| p.starts_with("/v1/weather/"))
    );
    for missing in [
        "/openapi/nope.json",
        "/openapi/..%2Fdomains.json",
        "/openapi/weather",
    ] {
        let (status, _, _) = get(&format!("{}{missing}", server.base)).await;
        assert_eq!(status, 404, "{missing}");
    }
}

#[tokio::test]
async fn errors_look_like_fastapi() {
    let root = repo_root();
    let server = Server::start(&["--root", root.to_str().unwrap()]);
    let base = &server.base;

    let (status, _, body) = get(&format!("{base}/v1/library/nothing_here")).await;
    assert_eq!((status, body.as_str()), (404, r#"{"detail":"Not Found"}"#));
    let (status, _, body) = get(&format!("{base}/health")).await;
    assert_eq!(
        (status, body.as_str()),
        (404, r#"{"detail":"Not Found"}"#),
        "the reference has no /health"
    );
    let (status, _, body) = request(
        reqwest::Method::POST,
        &format!("{base}/v1/library/most_borrowed_books"),
    )
    .await;
    assert_eq!(
        (status, body.as_str()),
        (405, r#"{"detail":"Method Not Allowed"}"#)
    );
    let (status, _, _) = get(&format!("{base}/v1/library/most_borrowed_books/?limit=2")).await;
    assert_eq!(status, 307, "a trailing slash redirects, as in Starlette");
    // Starlette strips every trailing slash.
    let (status, _, _) = get(&format!("{base}/v1/library/most_borrowed_books//?limit=2")).await;
    assert_eq!(status, 307);
    // FastAPI's GET routes refuse HEAD.
    let (status, _, _) = request(
        reqwest::Method::HEAD,
        &format!("{base}/v1/library/most_borrowed_books"),
    )
    .await;
    assert_eq!(status, 405);

    let (status, content_type, body) =
        get(&format!("{base}/v1/library/most_borrowed_books?limit=abc")).await;
    assert_eq!((status, content_type.as_str()), (422, "application/json"));
    let detail: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(detail["detail"][0]["type"], "int_parsing");
    assert_eq!(
        detail["detail"][0]["loc"],
        serde_json::json!(["query", "limit"])
    );
    assert_eq!(detail["detail"][0]["input"], "abc");

    let (status, _, body) = get(&format!("{base}/v1/library/book_count_by_genre")).await;
    assert_eq!(status, 422);
    assert!(
        body.contains(r#""type":"missing""#) && body.contains(r#""msg":"Field required""#),
        "{body}"
    );

    // a limit beyond 64 bits cannot be bound: the reference's OverflowError is a 500
    let (status, content_type, body) = get(&format!(
        "{base}/v1/library/most_borrowed_books?limit=99999999999999999999999"
    ))
    .await;
    assert_eq!(
        (status, content_type.as_str(), body.as_str()),
        (500, "text/plain; charset=utf-8", "Internal Server Error")
    );
    // a huge but valid limit is just a large LIMIT
    let (status, _, _) = get(&format!(
        "{base}/v1/library/most_borrowed_books?limit=9223372036854775807"
    ))
    .await;
    assert_eq!(status, 200);
    // path tricks never leave the catalog
    for tricky in [
        "/v1/library/../../etc/passwd",
        "/v1/%2e%2e/%2e%2e/etc/passwd",
        "/v1/library/book_count_by_genre%00",
    ] {
        let (status, _, _) = get(&format!("{base}{tricky}")).await;
        assert_eq!(status, 404, "{tricky}");
    }
}

#[tokio::test]
async fn health_readiness_and_missing_databases() {
    let root = repo_root();
    let empty = tempfile::tempdir().unwrap();
    let server = Server::start(&[
        "--root",
        root.to_str().unwrap(),
        "--db-root",
        empty.path().to_str().unwrap(),
    ]);
    let (status, _, body) = get(&format!("{}/healthz", server.base)).await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    let (status, _, body) = get(&format!("{}/readyz", server.base)).await;
    assert_eq!(status, 200);
    let ready: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        ready["databases_missing"],
        serde_json::json!(["library", "weather", "weather_alerts"])
    );
    // a missing database is the reference's 500 on call, not a failure to start
    let (status, _, body) = get(&format!("{}/v1/library/most_borrowed_books", server.base)).await;
    assert_eq!((status, body.as_str()), (500, "Internal Server Error"));
}

#[test]
fn malformed_catalogs_stop_the_server_with_a_clear_error() {
    type Corruption = fn(&mut Value);
    let cases: [(&str, Corruption); 4] = [
        ("not JSON", |_| {}),
        ("bad expression", |doc| {
            let op = doc["paths"]["/v1/library/most_borrowed_books"]["get"]
                .as_object_mut()
                .unwrap();
            op["x-vakra"]["response"] = Value::String("{'books': result[".into());
        }),
        ("unknown bind", |doc| {
            let op = doc["paths"]["/v1/library/most_borrowed_books"]["get"]
                .as_object_mut()
                .unwrap();
            op["x-vakra"]["binds"] = serde_json::json!(["no_such_param"]);
        }),
        ("unknown name", |doc| {
            let op = doc["paths"]["/v1/library/most_borrowed_books"]["get"]
                .as_object_mut()
                .unwrap();
            op["x-vakra"]["response"] = Value::String("{'books': secret}".into());
        }),
    ];
    for (what, corrupt) in cases {
        let dir = tempfile::tempdir().unwrap();
        let openapi = dir.path().join("openapi");
        std::fs::create_dir_all(&openapi).unwrap();
        for file in [
            "domains.json",
            "library.json",
            "weather.json",
            "weather_alerts.json",
        ] {
            std::fs::copy(repo_root().join("openapi").join(file), openapi.join(file)).unwrap();
        }
        let path = openapi.join("library.json");
        if what == "not JSON" {
            std::fs::write(&path, "{\"openapi\": ").unwrap();
        } else {
            let mut doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            corrupt(&mut doc);
            std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
        }
        let output = vakra()
            .args([
                "serve",
                "--root",
                dir.path().to_str().unwrap(),
                "--listen",
                "127.0.0.1:0",
            ])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{what}: the server started");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("library"),
            "{what}: error does not name the catalog: {stderr}"
        );
        if what != "not JSON" {
            assert!(
                stderr.contains("get_most_borrowed_books"),
                "{what}: error does not name the operation: {stderr}"
            );
        }
    }
}

#[test]
fn committed_demo_catalogs_equal_a_fresh_import() {
    let out = tempfile::tempdir().unwrap();
    let status = vakra()
        .args(["import", "--vakra-repo"])
        .arg(repo_root().join("demo"))
        .arg("--out")
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    for file in [
        "domains.json",
        "library.json",
        "weather.json",
        "weather_alerts.json",
    ] {
        let committed = std::fs::read_to_string(repo_root().join("openapi").join(file)).unwrap();
        let fresh = std::fs::read_to_string(out.path().join("openapi").join(file)).unwrap();
        if committed != fresh {
            let (line, (a, b)) = committed
                .lines()
                .zip(fresh.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap_or((0, ("(length differs)", "")));
            panic!(
                "openapi/{file} is stale (run `make demo-data`); first difference at line {}:\n- {a}\n+ {b}",
                line + 1
            );
        }
    }
}

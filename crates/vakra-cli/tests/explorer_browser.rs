//! The tools explorer of `vakra serve`: its routes and listing over plain HTTP, and a click
//! through in headless Chromium (capability 2, and capability 1's `get_data` followed by tools
//! that only the refreshed listing has), whose tool panes (description, input schema), result
//! texts, `isError` flags and tool lists must equal what an MCP client gets from the same server
//! and what the session's trace recorded. Screenshots go to the target directory.
//!
//! The browser part needs Chromium and `tests/browser/node_modules` (`make browser`); without
//! them it is skipped, unless `VAKRA_REQUIRE_BROWSER` is set (as `make test` does).

use std::path::{Path, PathBuf};

use crate::common::{Server, browser_tooling, http_client, run_browser_script};
use serde_json::{Value, json};
use vakra_test_kit::http::get;
use vakra_test_kit::mcp::call_tool;
use vakra_test_kit::paths::repo_root;

fn demo_server() -> Server {
    Server::start(&["--root", repo_root().to_str().unwrap()])
}

#[tokio::test]
async fn the_page_and_its_listing_are_served() {
    let server = demo_server();
    let (status, content_type, html) = get(&format!("{}/explorer/", server.base)).await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "text/html; charset=utf-8");
    assert!(html.contains("<script src=\"app.js\">"), "{html}");
    let (status, _, _) = get(&format!("{}/explorer", server.base)).await;
    assert_eq!(status, 308, "/explorer redirects to /explorer/");
    for (file, kind) in [("app.js", "text/javascript"), ("style.css", "text/css")] {
        let (status, content_type, body) = get(&format!("{}/explorer/{file}", server.base)).await;
        assert_eq!(status, 200, "{file}");
        assert!(content_type.starts_with(kind), "{file}: {content_type}");
        assert!(body.len() > 1000, "{file}");
    }
    let (status, content_type, body) = get(&format!("{}/explorer/api/domains", server.base)).await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "application/json");
    let listing: Value = serde_json::from_str(&body).unwrap();
    let domains = |n: usize| -> Vec<String> {
        listing["capabilities"][n]["domains"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let numbers: Vec<u64> = (0..4)
        .map(|n| listing["capabilities"][n]["capability"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    assert_eq!(domains(0), ["library", "weather"]);
    assert_eq!(domains(1), ["library", "weather", "weather_alerts"]);
    assert_eq!(domains(2), ["library", "weather", "weather_alerts", "bpo"]);
    assert_eq!(domains(3), domains(1));
    assert_eq!(
        listing["capabilities"][0]["domains"][1]["universes"],
        json!(["3ea7e0c0ffee-000000000001", "3ea7e0c0ffee-000000000002"])
    );
    // the REST API keeps answering everything else as before
    let (status, _, body) = get(&format!("{}/", server.base)).await;
    assert_eq!((status, body.as_str()), (404, "{\"detail\":\"Not Found\"}"));
}

#[tokio::test]
async fn a_data_root_without_capability_1_says_why() {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["openapi", "databases"] {
        std::os::unix::fs::symlink(repo_root().join(folder), dir.path().join(folder)).unwrap();
    }
    let server = Server::start(&["--root", dir.path().to_str().unwrap()]);
    let (status, _, body) = get(&format!("{}/explorer/api/domains", server.base)).await;
    assert_eq!(status, 200);
    let listing: Value = serde_json::from_str(&body).unwrap();
    let one = &listing["capabilities"][0];
    assert_eq!(one["domains"], json!([]));
    assert!(
        one["problem"].as_str().unwrap().contains("capability1"),
        "{one}"
    );
    let three: Vec<&str> = listing["capabilities"][2]["domains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(!three.contains(&"bpo"), "no BPO data set here: {three:?}");
}

/// The calls the browser makes; the same calls are then made by an MCP client.
fn plan() -> Value {
    json!([
        {
            "capability": 2, "domain": "library", "screenshot": "explorer-capability-2.png",
            "calls": [
                {"tool": "get_book_count_by_genre", "fields": {"genre": "Fantasy"}},
                {"tool": "get_most_borrowed_books", "fields": {"limit": "3"}},
                // a required argument left out: the SDK's validation error, isError true
                {"tool": "get_titles_by_author", "fields": {"first_name": "Ada"}}
            ]
        },
        {
            "capability": 1, "domain": "weather", "screenshot": "explorer-capability-1.png",
            "calls": [
                {"tool": "get_data", "fields": {"tool_universe_id": "3ea7e0c0ffee-000000000002"}},
                // listed only after get_data switched the universe
                {"tool": "get_stations_names", "fields": {"data_label": "retrieved_observations_1"}},
                {"tool": "compute_data_max", "fields": {"data_label": "retrieved_observations_1", "key_name": "observations_temp_max"}}
            ]
        }
    ])
}

fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn a_call_through_the_page_shows_what_an_agent_gets() {
    let Some((chromium, script)) = browser_tooling("explorer_check.mjs") else {
        return;
    };
    let traces = tempfile::tempdir().unwrap();
    let server = Server::start(&[
        "--root",
        repo_root().to_str().unwrap(),
        "--trace",
        traces.path().to_str().unwrap(),
    ]);
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("explorer");
    std::fs::create_dir_all(&shots).unwrap();
    let plan = plan();
    let plan_text = plan.to_string();
    let page = run_browser_script(
        &chromium,
        &script,
        &[server.base.as_ref(), plan_text.as_ref(), shots.as_os_str()],
    )
    .await;
    assert_eq!(page["consoleErrors"], json!([]), "the page logged errors");

    for (step, seen) in plan
        .as_array()
        .unwrap()
        .iter()
        .zip(page["sessions"].as_array().unwrap())
    {
        let capability = step["capability"].to_string();
        let domain = step["domain"].as_str().unwrap();
        let session_id = seen["sessionId"].as_str().unwrap();
        assert_eq!(session_id.len(), 36, "a session id is shown: {session_id}");
        // the page's session was traced under the id it shows, with the texts it shows
        let trace = std::fs::read_to_string(traces.path().join(format!("{session_id}.jsonl")))
            .expect("the page's session has a trace");
        let traced: Vec<Value> = trace
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let shown_calls = seen["calls"].as_array().unwrap();
        assert_eq!(traced.len(), shown_calls.len());
        for (line, shown) in traced.iter().zip(shown_calls) {
            assert_eq!(line["tool"], shown["tool"]);
            assert_eq!(line["arguments"], shown["arguments"]);
            assert_eq!(line["text"], shown["text"]);
            assert_eq!(line["is_error"], shown["isError"]);
        }
        // the same calls in a fresh session of the same server
        let client = http_client(&server.base, &capability, domain).await;
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(
            seen["toolsAtStart"],
            json!(names(&tools)),
            "{capability}/{domain}"
        );
        for (call, shown) in step["calls"]
            .as_array()
            .unwrap()
            .iter()
            .zip(seen["calls"].as_array().unwrap())
        {
            let tool = call["tool"].as_str().unwrap();
            // the panes show the tool as the session lists it before the call
            let listed = client.list_all_tools().await.unwrap();
            let listed = listed.iter().find(|t| t.name == tool).unwrap();
            let description = listed.description.as_deref().unwrap_or_default();
            let description = if description.is_empty() {
                "(no description)"
            } else {
                description
            };
            assert_eq!(
                shown["description"],
                json!(description),
                "{tool}: description"
            );
            assert_eq!(
                shown["schema"],
                Value::Object((*listed.input_schema).clone()),
                "{tool}: input schema"
            );
            let arguments = shown["arguments"].clone();
            let (text, is_error) = call_tool(&client, tool, arguments.clone()).await;
            assert_eq!(
                shown["text"],
                json!(text),
                "{tool}({arguments}): result text"
            );
            assert_eq!(shown["isError"], json!(is_error), "{tool}: isError");
            assert_eq!(shown["flag"], json!(format!("isError: {is_error}")));
            let tools = client.list_all_tools().await.unwrap();
            assert_eq!(
                shown["toolsAfter"],
                json!(names(&tools)),
                "{tool}: tools after"
            );
        }
        client.cancel().await.unwrap();
        let shot = PathBuf::from(seen["screenshot"].as_str().unwrap());
        let png = std::fs::read(&shot).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{}",
            shot.display()
        );
        eprintln!("screenshot: {}", shot.display());
    }

    // what the page sent and saw, spelled out for the cases the plan is about
    let two = &page["sessions"][0]["calls"];
    assert_eq!(two[0]["text"], json!("{\n  \"count\": 102\n}"));
    assert_eq!(
        two[1]["arguments"],
        json!({"limit": 3}),
        "integers are sent as numbers"
    );
    assert_eq!(two[2]["isError"], json!(true));
    let one = &page["sessions"][1];
    let before = one["toolsAtStart"].as_array().unwrap();
    let after = one["calls"][0]["toolsAfter"].as_array().unwrap();
    assert!(!before.contains(&json!("get_stations_names")));
    assert!(
        after.contains(&json!("get_stations_names")),
        "the list was refreshed"
    );
    assert!(
        one["calls"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("{\"handle\": \"retrieved_observations_1\"")
    );
    assert_eq!(one["calls"][1]["isError"], json!(false));
}

//! Sessions opened by the in-process connector: listing, the replay's argument handling and
//! its error texts, and a plain MCP call.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use vakra_catalog::DataRoot;
use vakra_client::{CallIssue, Connector, InProcess, ReplaySession};
use vakra_mcp::ServerOptions;

/// The project's servers over the repository's demo data root.
fn demo_connector() -> Connector {
    let root = DataRoot::new(vakra_test_kit::paths::repo_root());
    let options = ServerOptions {
        sql_time_limit: Duration::from_secs(5),
        ..ServerOptions::new(root)
    };
    Connector::InProcess(Arc::new(InProcess::new(options)))
}

async fn weather_session() -> ReplaySession {
    demo_connector()
        .open(2, "weather", Duration::from_secs(30))
        .await
        .expect("an in-process session on the demo's weather domain")
}

#[tokio::test]
async fn a_session_lists_the_domains_tools() {
    let session = weather_session().await;
    assert!(session.has_tool("get_station_count_by_country"));
    assert!(!session.has_tool("no_such_tool"));
    let names: Vec<_> = session.tools().iter().map(|t| t.name.to_string()).collect();
    assert!(names.len() > 1, "{names:?}");
    session.close().await;
}

#[tokio::test]
async fn replayed_arguments_may_be_a_json_string() {
    let session = weather_session().await;
    let as_object = session
        .call(
            "get_station_count_by_country",
            &json!({"country": "Canada"}),
        )
        .await;
    assert_eq!(as_object.issue, None, "{}", as_object.text);
    let as_string = session
        .call(
            "get_station_count_by_country",
            &json!(r#"{"country": "Canada"}"#),
        )
        .await;
    assert_eq!(as_string, as_object);
    session.close().await;
}

#[tokio::test]
async fn unusable_arguments_and_unknown_tools_are_reported_not_raised() {
    let session = weather_session().await;
    let bad = session
        .call("get_station_count_by_country", &json!([1]))
        .await;
    assert!(
        bad.text.starts_with("Error: arguments are not an object"),
        "{}",
        bad.text
    );
    assert!(matches!(bad.issue, Some(CallIssue::Failure(_))), "{bad:?}");
    let unknown = session.call("no_such_tool", &json!({})).await;
    assert!(unknown.text.contains("no_such_tool"), "{}", unknown.text);
    assert!(
        matches!(unknown.issue, Some(CallIssue::ErrorResult(_))),
        "{unknown:?}"
    );
    session.close().await;
}

#[tokio::test]
async fn call_tool_returns_the_whole_result() {
    let session = weather_session().await;
    let mut arguments = Map::new();
    arguments.insert("country".into(), Value::from("Canada"));
    let result = session
        .call_tool("get_station_count_by_country", arguments)
        .await
        .expect("an answer");
    assert_ne!(result.is_error, Some(true));
    assert!(!result.content.is_empty());
    session.close().await;
}

#[tokio::test]
async fn a_missing_domain_is_an_error_when_opening() {
    let error = demo_connector()
        .open(2, "no_such_domain", Duration::from_secs(30))
        .await
        .err()
        .expect("no session");
    assert!(!error.is_empty());
}

//! The mixed MCP workload: per-session chains of tool calls over capabilities 1, 2 and 4 on
//! the demo domain `library`, each with arguments of its own, so that an answer that reached
//! the wrong session would differ from the same chain run alone.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Map, Value, json};

/// An MCP client session.
pub type Client = RunningService<RoleClient, ()>;

const GENRES: [&str; 12] = [
    "Cookery",
    "Travel",
    "Children",
    "Fiction",
    "Mystery",
    "Poetry",
    "Science",
    "Science Fiction",
    "Graphic Novel",
    "History",
    "Fantasy",
    "Biography",
];
const COUNTRIES: [&str; 6] = ["Germany", "Brazil", "Canada", "Japan", "Nigeria", "Sweden"];
const QUESTIONS: [&str; 5] = [
    "branch history",
    "opening hours of the library",
    "late fees and overdue loans",
    "membership rules for children",
    "rare books collection",
];

/// One call of a chain. In capability 1, a string argument `$k` stands for the handle that
/// step `k` returned.
#[derive(Debug, Clone)]
pub struct Step {
    pub tool: String,
    pub arguments: Map<String, Value>,
}

/// The calls one session makes, in order, on `/mcp/<capability>/library`.
#[derive(Debug, Clone)]
pub struct Chain {
    pub capability: u8,
    pub steps: Vec<Step>,
}

/// What a chain saw: per call, the tool, the result text and its `isError` flag.
pub type Transcript = Vec<(String, String, bool)>;

fn step(tool: &str, arguments: Value) -> Step {
    let Value::Object(arguments) = arguments else {
        unreachable!("chain arguments are objects")
    };
    Step {
        tool: tool.to_owned(),
        arguments,
    }
}

/// The chain of session `i`: capability 1, 2 or 4 in turn, with arguments drawn from `i`.
pub fn chain(i: usize) -> Chain {
    let genre = GENRES[i % GENRES.len()];
    let country = COUNTRIES[i % COUNTRIES.len()];
    match i % 3 {
        0 => {
            // The joined universe prefixes columns with the table name.
            let (universe, prefix) = if (i / 3).is_multiple_of(2) {
                ("11b7a0c0ffee-000000000001", "")
            } else {
                ("11b7a0c0ffee-000000000002", "books_")
            };
            let col = |c: &str| format!("{prefix}{c}");
            Chain {
                capability: 1,
                steps: vec![
                    step("get_data", json!({"tool_universe_id": universe})),
                    step(
                        "filter_data",
                        json!({"data_label": "$0", "key_name": col("genre"), "value": genre, "condition": "equal_to"}),
                    ),
                    step(
                        "aggregate_data",
                        json!({"data_label": "$1", "key_name": col("price"), "aggregation_operation": "mean"}),
                    ),
                    step(
                        "sort_data",
                        json!({"data_label": "$1", "key_name": col("price"), "ascending": i.is_multiple_of(2)}),
                    ),
                    step(
                        "aggregate_data",
                        json!({"data_label": "$3", "key_name": col("book_id"), "aggregation_operation": "count"}),
                    ),
                ],
            }
        }
        1 => Chain {
            capability: 2,
            steps: vec![
                step("get_book_count_by_genre", json!({"genre": genre})),
                step("get_most_borrowed_books", json!({"limit": 1 + i % 7})),
                step("get_authors_by_country", json!({"country": country})),
                step(
                    "get_books_in_price_range",
                    json!({"min_price": (i % 20) as f64, "max_price": 20.0 + (i % 30) as f64, "genre": genre}),
                ),
            ],
        },
        _ => Chain {
            capability: 4,
            steps: vec![
                step("get_book_count_by_genre", json!({"genre": genre})),
                step(
                    "query_library",
                    json!({"question": QUESTIONS[i % QUESTIONS.len()], "n_results": 1 + i % 5}),
                ),
                step("get_late_fees_by_member", json!({"member_id": 1 + i % 50})),
            ],
        },
    }
}

/// Opens an MCP session for `chain` on the server at `base` (e.g. `http://127.0.0.1:8000`),
/// with rmcp's own HTTP client (a new connection for every request).
pub async fn connect(base: &str, chain: &Chain) -> Result<Client> {
    let url = format!("{base}/mcp/{}/library", chain.capability);
    let transport = StreamableHttpClientTransport::from_uri(url.clone());
    ().serve(transport)
        .await
        .with_context(|| format!("opening an MCP session at {url}"))
}

/// [`connect`] through `http`, e.g. a client that keeps its connections between requests.
pub async fn connect_with(http: reqwest::Client, base: &str, chain: &Chain) -> Result<Client> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let url = format!("{base}/mcp/{}/library", chain.capability);
    let config = StreamableHttpClientTransportConfig::with_uri(url.clone());
    let transport = StreamableHttpClientTransport::with_client(http, config);
    ().serve(transport)
        .await
        .with_context(|| format!("opening an MCP session at {url}"))
}

/// Runs `chain` on `client`; `latencies` receives the time of every call.
pub async fn run(
    client: &Client,
    chain: &Chain,
    latencies: &mut Vec<Duration>,
) -> Result<Transcript> {
    let mut handles: Vec<Option<String>> = Vec::new();
    let mut transcript = Vec::new();
    for step in &chain.steps {
        let mut arguments = step.arguments.clone();
        for value in arguments.values_mut() {
            if let Some(k) = value.as_str().and_then(|s| s.strip_prefix('$')) {
                let k: usize = k.parse().context("a handle reference")?;
                let Some(Some(handle)) = handles.get(k) else {
                    bail!("{}: step {k} returned no handle", step.tool);
                };
                *value = Value::String(handle.clone());
            }
        }
        let started = Instant::now();
        let (text, is_error) = call(client, &step.tool, arguments)
            .await
            .with_context(|| format!("calling {}", step.tool))?;
        latencies.push(started.elapsed());
        handles.push(vakra_chaining::handle_of_peek(&text));
        transcript.push((step.tool.clone(), text, is_error));
    }
    Ok(transcript)
}

/// Calls `tool`: the result's text (its text blocks joined) and its `isError` flag.
pub async fn call(
    client: &Client,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<(String, bool), rmcp::ServiceError> {
    let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let result = client.call_tool(request).await?;
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect();
    Ok((text, result.is_error.unwrap_or(false)))
}

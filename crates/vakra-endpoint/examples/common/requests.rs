//! The request list of the REST benchmark (JSONL lines with `path` and `params`), resolved to
//! endpoints and query pairs as the server would see them; shared by the examples.

use std::sync::Arc;

use vakra_endpoint::{Endpoint, RestBird};

/// The endpoints of the data root `root` over the databases in `db_root`, as the server loads
/// them (every domain, a 30 s statement limit).
pub fn load_bird(root: &str, db_root: &str) -> Result<RestBird, Box<dyn std::error::Error>> {
    Ok(RestBird::load(
        &vakra_catalog::DataRoot::new(root),
        db_root.into(),
        |_| true,
        std::time::Duration::from_secs(30),
    )?)
}

/// One request: its endpoint and its query pairs (scalars as Python's `str()` writes them).
pub type Call = (Arc<Endpoint>, Vec<(String, String)>);

/// Reads `requests` and keeps the lines whose path `bird` serves.
pub fn load(bird: &RestBird, requests: &str) -> Result<Vec<Call>, Box<dyn std::error::Error>> {
    let mut calls = Vec::new();
    for line in std::fs::read_to_string(requests)?
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let record: serde_json::Value = serde_json::from_str(line)?;
        let path = record["path"].as_str().ok_or("record without path")?;
        let Some(endpoint) = bird.find(path) else {
            continue;
        };
        let query: Vec<(String, String)> = record["params"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                )
            })
            .collect();
        calls.push((endpoint.clone(), query));
    }
    Ok(calls)
}

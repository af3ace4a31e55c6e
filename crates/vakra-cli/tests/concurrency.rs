//! 64 MCP sessions at once over streamable HTTP against one `vakra serve`, capabilities 1, 2
//! and 4 mixed, each running its own chain of calls (`vakra_bench::mix`): every answer must be
//! the one the same chain gets when it runs alone, and no call may fail.

use std::sync::Arc;

use crate::common::{Server, demo_root};
use tokio::sync::Barrier;
use vakra_bench::mix;

const SESSIONS: usize = 64;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_sessions_answer_as_they_do_alone() {
    let root = demo_root(true);
    let server = Server::start(&["--root", root.path().to_str().unwrap()]);

    // Each chain alone, one session at a time.
    let mut alone = Vec::new();
    for i in 0..SESSIONS {
        let chain = mix::chain(i);
        let client = mix::connect(&server.base, &chain).await.unwrap();
        let transcript = mix::run(&client, &chain, &mut Vec::new()).await.unwrap();
        client.cancel().await.unwrap();
        for (tool, text, is_error) in &transcript {
            let failed = *is_error
                || text.starts_with("{\"error\"")
                || text.starts_with("Error")
                || text.starts_with("Input validation error");
            assert!(!failed, "session {i}: {tool} failed alone: {text}");
        }
        alone.push(transcript);
    }
    // The chains differ from each other, so cross-talk would show.
    let distinct: std::collections::HashSet<_> = alone.iter().collect();
    assert!(distinct.len() > SESSIONS / 2, "{} distinct", distinct.len());

    // All sessions open first, then every chain starts at the same moment.
    let barrier = Arc::new(Barrier::new(SESSIONS));
    let mut tasks = Vec::new();
    for i in 0..SESSIONS {
        let base = server.base.clone();
        let barrier = Arc::clone(&barrier);
        tasks.push(tokio::spawn(async move {
            let chain = mix::chain(i);
            let client = mix::connect(&base, &chain).await?;
            barrier.wait().await;
            let transcript = mix::run(&client, &chain, &mut Vec::new()).await?;
            client.cancel().await?;
            anyhow::Ok(transcript)
        }));
    }
    let mut mismatches = Vec::new();
    for (i, task) in tasks.into_iter().enumerate() {
        let transcript = task
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("session {i}: {e:#}"));
        if transcript != alone[i] {
            mismatches.push(i);
        }
    }
    assert!(
        mismatches.is_empty(),
        "sessions whose answers differ from their run alone: {mismatches:?}"
    );
}

//! Every `tool_call_results` entry recorded in the reference's six BPO task files reproduces
//! exactly as FastMCP would send it, on the session API (the same replay over a real MCP
//! session is `crates/vakra-cli/tests/bpo_mcp.rs`). How the recordings are read:
//! [`vakra_test_kit::bpo_recorded`].

use crate::common;

use common::{reference_dir, session};
use vakra_test_kit::bpo_recorded::{RECORDED_RESULTS, recorded_sessions};
use vakra_test_kit::text::assert_text;

#[test]
fn all_43_recorded_results_reproduce() {
    let Some(dir) = reference_dir() else {
        return;
    };
    let sessions = recorded_sessions(&dir);
    let total: usize = sessions.iter().map(|(_, calls)| calls.len()).sum();
    assert_eq!(
        total, RECORDED_RESULTS,
        "the six task files record 43 tool results"
    );
    assert_eq!(sessions.len(), 6, "one session per task file");
    let mut matched = 0;
    for (_, calls) in sessions {
        let mut session = session();
        for call in calls {
            let context = call.context();
            let out = session.call(&call.tool, call.args.clone());
            let (text, is_error) = call.expected();
            assert_eq!(out.is_error, is_error, "{context}: isError");
            match (&text, &out.text) {
                (Some(expected), Some(actual)) => assert_text(&context, expected, actual),
                (None, None) => {}
                _ => panic!("{context}: expected {text:?}, got {:?}", out.text),
            }
            matched += 1;
        }
    }
    assert_eq!(matched, RECORDED_RESULTS);
}

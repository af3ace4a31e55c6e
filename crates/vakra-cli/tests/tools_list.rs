//! `vakra tools list` on the demo data root: the text and JSON forms for every capability, and
//! clear refusals of unknown domains and capabilities.

use crate::common::vakra;
use serde_json::Value;
use vakra_test_kit::paths::repo_root;

fn tools_list(args: &[&str]) -> std::process::Output {
    vakra()
        .args(["tools", "list", "--root"])
        .arg(repo_root())
        .args(args)
        .output()
        .unwrap()
}

fn listing(capability: &str, domain: &str) -> (String, Vec<Value>) {
    let text = tools_list(&["--capability", capability, "--domain", domain]);
    let json = tools_list(&["--capability", capability, "--domain", domain, "--json"]);
    for out in [&text, &json] {
        assert!(
            out.status.success(),
            "{capability}/{domain}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tools: Value = serde_json::from_slice(&json.stdout).unwrap();
    (
        String::from_utf8(text.stdout).unwrap(),
        tools.as_array().unwrap().clone(),
    )
}

#[test]
fn text_and_json_list_the_same_tools_for_every_capability() {
    for (capability, domain, first, count) in [
        ("1", "library", "aggregate_data", 9),
        ("2", "library", "get_book_count_by_genre", 21),
        ("3", "bpo", "candidate_source_sla_per_source", 32),
        ("4", "weather", "", 0),
    ] {
        let (text, tools) = listing(capability, domain);
        // one line per tool: name, a tab, the description (descriptions may span lines)
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        for tool in &tools {
            let line = format!(
                "{}\t{}\n",
                tool["name"].as_str().unwrap(),
                tool["description"].as_str().unwrap()
            );
            assert!(
                text.contains(&line),
                "{capability}/{domain}: {line:?} in the text form"
            );
            assert_eq!(
                tool["inputSchema"]["type"], "object",
                "{capability}/{domain}"
            );
        }
        if count > 0 {
            assert_eq!(names.len(), count, "{capability}/{domain}: {names:?}");
            assert_eq!(names[0], first, "{capability}/{domain}");
        }
        if capability == "4" {
            let retrievers: Vec<&&str> = names.iter().filter(|n| n.starts_with("query_")).collect();
            assert!(
                !retrievers.is_empty(),
                "capability 4 adds query tools: {names:?}"
            );
            assert!(
                names.len() > retrievers.len(),
                "and keeps the REST tools: {names:?}"
            );
        }
    }
}

#[test]
fn unknown_domains_and_capabilities_are_refused() {
    for (args, message) in [
        (
            ["--capability", "2", "--domain", "atlantis"],
            "unknown domain \"atlantis\"",
        ),
        (["--capability", "1", "--domain", "atlantis"], "atlantis"),
        (
            ["--capability", "7", "--domain", "library"],
            "capability must be one of 1, 2, 3, 4",
        ),
    ] {
        let out = tools_list(&args);
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

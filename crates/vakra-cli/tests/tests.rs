//! vakra-cli's integration tests: one module a file, in one test binary (`integration`), so
//! that the program's tests are linked once. `cargo test -p vakra-cli --test integration
//! <module>::` runs one file's tests. A new file is added with a `mod` line here, and
//! `every_test_file_is_a_module` fails for a file that is not (docs/testing.md).

mod common;

mod bpo_mcp;
mod built_binary;
mod chaining_mcp;
mod chaining_transcripts;
mod combined_mcp;
mod concurrency;
mod docker;
mod episodes;
mod eval;
mod eval_agreement;
mod eval_board;
mod eval_diff;
mod eval_inputs;
mod eval_shard;
mod exits;
mod explorer_browser;
mod hardening_clients;
mod hardening_disconnect;
mod hardening_limits;
mod http_clients;
mod isolation;
mod kubernetes;
mod limits;
mod mcp;
mod rest;
mod routing;
mod run;
mod run_dialects;
mod shutdown;
mod slow_clients;
mod stall;
mod submission_bundle;
mod tools_list;
mod traces;

/// Every file of `tests/` is a module of this binary (`autotests = false`: a file without its
/// `mod` line above would silently not be compiled).
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let root = std::fs::read_to_string(dir.join("tests.rs")).expect("read tests.rs");
    for entry in std::fs::read_dir(&dir).expect("read tests/") {
        let path = entry.expect("a folder entry").path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "tests") {
            assert!(
                root.lines().any(|l| l == format!("mod {module};")),
                "tests/{name} is not compiled: add `mod {module};` to tests/tests.rs"
            );
        }
    }
}

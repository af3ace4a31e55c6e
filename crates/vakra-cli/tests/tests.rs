//! vakra-cli's integration tests: one module a file, in one test binary (`integration`), so
//! that the program's tests are linked once. `cargo test -p vakra-cli --test integration
//! <module>::` runs one file's tests. A new file is added with a `mod` line here, and
//! `make test-modules` fails for a file that is not (docs/testing.md).

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

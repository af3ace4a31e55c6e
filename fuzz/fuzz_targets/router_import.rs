//! The Python-router importer: any text as a router module (parsed, never run), and the
//! The body is `vakra_fuzz_targets::router_import`, where the seeds are replayed by the tests.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vakra_fuzz_targets::router_import(data));

//! Capability-4 document search with arbitrary questions and result counts.
//! The body is `vakra_fuzz_targets::retrieval_query`, where the seeds are replayed by the tests.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vakra_fuzz_targets::retrieval_query(data));

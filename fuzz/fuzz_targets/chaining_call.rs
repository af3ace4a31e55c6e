//! Capability-1 session calls with arbitrary arguments on a tiny SQLite universe.
//! The body is `vakra_fuzz_targets::chaining_call`, where the seeds are replayed by the tests.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vakra_fuzz_targets::chaining_call(data));

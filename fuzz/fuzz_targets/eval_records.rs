//! The evaluator's readers of untrusted input: trace records (ground truth and predictions),
//! The body is `vakra_fuzz_targets::eval_records`, where the seeds are replayed by the tests.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vakra_fuzz_targets::eval_records(data));

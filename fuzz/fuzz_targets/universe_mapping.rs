//! The capability-1 universe mapping: any text as the reference's YAML and as the converted
//! The body is `vakra_fuzz_targets::universe_mapping`, where the seeds are replayed by the tests.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vakra_fuzz_targets::universe_mapping(data));

//! REST-BIRD parameter parsing and binding: any query string against every demo endpoint.
//! The body is `vakra_fuzz_targets::rest_params`, where the seeds are replayed by the tests.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vakra_fuzz_targets::rest_params(data));

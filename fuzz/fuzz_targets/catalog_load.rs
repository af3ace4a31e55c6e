//! The catalog loader: any bytes as a domain catalog file, and every operation of a catalog
//! The body is `vakra_fuzz_targets::catalog_load`, where the seeds are replayed by the tests.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| vakra_fuzz_targets::catalog_load(data));

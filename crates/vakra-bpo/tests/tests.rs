//! vakra-bpo's integration tests: one module a file, in one test binary (`integration`),
//! so that the crate's tests are linked once (`autotests = false`). `cargo test -p vakra-bpo
//! --test integration <module>::` runs one file's tests; a new file needs its `mod` line here.

mod common;

mod bad_input;
mod demo;
mod fuzzy;
mod listing;
mod recorded;
mod reference_goldens;
mod rng;
mod spec_vectors;

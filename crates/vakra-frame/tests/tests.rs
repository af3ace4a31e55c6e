//! vakra-frame's integration tests: one module a file, in one test binary (`integration`),
//! so that the crate's tests are linked once (`autotests = false`). `cargo test -p vakra-frame
//! --test integration <module>::` runs one file's tests; a new file needs its `mod` line here.

mod common;

mod inference;
mod isoformat;
mod loader;
mod numeric;
mod pandas;
mod reference;
mod regex;
mod render;
mod tools;
mod transcripts;

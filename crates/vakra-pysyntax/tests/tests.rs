//! vakra-pysyntax's integration tests: one module a file, in one test binary (`integration`),
//! so that the crate's tests are linked once (`autotests = false`). `cargo test -p vakra-pysyntax
//! --test integration <module>::` runs one file's tests; a new file needs its `mod` line here.

mod common;

mod errors;
mod literals;
mod module;
mod reference;
mod unparse;

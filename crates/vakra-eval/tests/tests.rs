//! vakra-eval's integration tests: one module a file, in one test binary (`integration`),
//! so that the crate's tests are linked once (`autotests = false`). `cargo test -p vakra-eval
//! --test integration <module>::` runs one file's tests; a new file needs its `mod` line here.

mod exact_match_agreement;
mod operation_id_map;

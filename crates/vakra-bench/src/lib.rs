//! The library half of `vakra-bench`: workloads shared by the `vakra-load` tool and the
//! project's tests, so that what is measured is what is checked.

pub mod mix;

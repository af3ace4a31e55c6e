//! vakra-rest's one integration-test binary (docs/testing.md).

mod forms_fixture;
mod slow_statements;

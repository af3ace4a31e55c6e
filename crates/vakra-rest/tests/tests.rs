//! vakra-rest's one integration-test binary (docs/testing.md).

mod forms_fixture;
mod slow_statements;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use vakra_catalog::DataRoot;
use vakra_endpoint::RestBird;

/// The endpoints of the data root at `root`, over its own databases, every domain, with
/// `limit` as the statement time limit.
fn load_bird(root: &Path, limit: Duration) -> Arc<RestBird> {
    let root = DataRoot::new(root);
    Arc::new(RestBird::load(&root, root.databases_dir(), |_| true, limit).unwrap())
}

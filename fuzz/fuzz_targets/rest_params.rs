//! REST-BIRD parameter parsing and binding: any query string against every demo endpoint.
//!
//! Input: one byte choosing the endpoint, then the raw query string (`a=1&b=x%20y`).

#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use vakra_catalog::DataRoot;
use vakra_endpoint::RestBird;

fn bird() -> &'static RestBird {
    static BIRD: OnceLock<RestBird> = OnceLock::new();
    BIRD.get_or_init(|| {
        let root = DataRoot::new(vakra_fuzz::repo_root());
        RestBird::load(
            &root,
            root.databases_dir(),
            |_| true,
            Duration::from_secs(2),
        )
        .expect("the demo data root loads")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, query)) = data.split_first() else {
        return;
    };
    let bird = bird();
    let endpoints = bird.endpoints();
    let endpoint = &endpoints[usize::from(which) % endpoints.len()];
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query).into_owned().collect();
    let _ = bird.execute(endpoint, &pairs);
});

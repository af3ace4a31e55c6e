//! The catalog loader: any bytes as a domain catalog file, and every operation of a catalog
//! that passes the checks compiled as the server would.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use vakra_endpoint::Endpoint;

fuzz_target!(|data: &[u8]| {
    let Ok(catalog) = vakra_catalog::parse_domain(data, Path::new("fuzz.json")) else {
        return;
    };
    for operation in catalog.operations {
        let _ = Endpoint::compile(&catalog.name, operation);
    }
});

//! The Python-router importer: any text as a router module (parsed, never run), and the
//! expressions it contains through the Python-subset parser.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let _ = vakra_import::router::import_router("fuzz", "fuzz.py", source);
    let _ = vakra_pysyntax::parse_expression(source);
});

//! Parses the reference checkout's router modules when `VAKRA_REF` points
//! at it (e.g. `VAKRA_REF=/tmp/vakra-ref`); skipped otherwise.

use crate::common;

use std::path::PathBuf;
use std::time::Instant;

use vakra_pysyntax::parse_module;
use vakra_test_kit::reference;

#[test]
fn reference_modules_parse_and_round_trip() {
    let Some(root) = reference::checkout("the reference's router modules") else {
        return;
    };
    let rest = root.join("environment/m3/rest");
    let mut files = vec![rest.join("app.py")];
    let entries = std::fs::read_dir(rest.join("server")).expect("server directory");
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|ext| ext == "py") {
            files.push(path);
        }
    }
    files.sort();
    assert!(
        files.len() > 80,
        "expected the router modules, found {}",
        files.len()
    );

    let sources: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|path| {
            let source = std::fs::read_to_string(&path).expect("readable module");
            (path, source)
        })
        .collect();
    let started = Instant::now();
    let mut modules = Vec::new();
    for (path, source) in &sources {
        match parse_module(source) {
            Ok(module) => modules.push(module),
            Err(err) => panic!("{}: {err}", path.display()),
        }
    }
    eprintln!(
        "parsed {} modules in {:?}",
        modules.len(),
        started.elapsed()
    );

    let mut checked = 0;
    for module in &modules {
        for expr in common::all_expressions(&module.body) {
            common::assert_round_trip(expr);
            checked += 1;
        }
    }
    eprintln!("round-tripped {checked} expressions");
}

//! Capability-4 document search with arbitrary questions and result counts.
//!
//! Input: a JSON object of tool arguments (`{"question": …, "n_results": …}`), run through the
//! `query_library` tool; any other input is 16 bytes of `n_results` followed by the question,
//! searched directly.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vakra_catalog::DataRoot;
use vakra_retrieval::Retrievers;

struct Fixture {
    _dir: tempfile::TempDir,
    retrievers: Retrievers,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        for folder in ["documents", "retrievers"] {
            std::fs::create_dir(dir.path().join(folder)).expect("mkdir");
            let from = vakra_fuzz::repo_root().join(folder);
            for entry in std::fs::read_dir(from).expect("demo files") {
                let path = entry.expect("entry").path();
                let name = path.file_name().expect("a file name");
                std::fs::copy(&path, dir.path().join(folder).join(name)).expect("copy");
            }
        }
        let root = DataRoot::new(dir.path());
        vakra_retrieval::build_indexes(&root, false).expect("indexes");
        let retrievers = Retrievers::open(&root).expect("retrievers");
        Fixture {
            _dir: dir,
            retrievers,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let retrievers = &fixture().retrievers;
    if let Some(arguments) = vakra_fuzz::json_object(data) {
        let _ = retrievers.call("library", "query_library", &arguments);
        return;
    }
    let Some((count, question)) = data.split_first_chunk::<16>() else {
        return;
    };
    let question = String::from_utf8_lossy(question);
    let _ = retrievers.query("library", &question, i128::from_le_bytes(*count));
});

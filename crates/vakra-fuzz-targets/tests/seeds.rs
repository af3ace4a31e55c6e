//! Every committed seed of every fuzz target, replayed through the target's body: the seeds
//! are the inputs the targets were written for, so each must run without a panic, and quickly
//! (a seed that hangs is a finding too: the fuzzer would report it as a timeout).

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use vakra_fuzz_targets::{TARGETS, repo_root};

/// Far above any seed's time once fixtures are built (the first seed of a target builds them).
const SEED_TIME: Duration = Duration::from_secs(20);

#[test]
fn every_seed_of_every_target_runs() {
    let seeds = repo_root().join("fuzz/seeds");
    let mut dirs: Vec<String> = std::fs::read_dir(&seeds)
        .expect("fuzz/seeds")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut names: Vec<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    names.sort();
    assert_eq!(
        dirs, names,
        "one seed folder per target, and a target per seed folder"
    );
    for (name, target) in TARGETS {
        let mut files: Vec<_> = std::fs::read_dir(seeds.join(name))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{name} has no seeds");
        for file in files {
            let data = std::fs::read(&file).unwrap();
            // On its own thread, so that a seed that hangs fails the test instead of holding it.
            let (done, finished) = mpsc::channel();
            let started = Instant::now();
            std::thread::spawn(move || {
                target(&data);
                let _ = done.send(());
            });
            match finished.recv_timeout(SEED_TIME) {
                Ok(()) => {}
                Err(RecvTimeoutError::Disconnected) => panic!("{} panicked", file.display()),
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "{} still runs after {:?}",
                        file.display(),
                        started.elapsed()
                    )
                }
            }
        }
    }
}

#[test]
fn every_target_is_a_fuzz_binary() {
    let manifest = std::fs::read_to_string(repo_root().join("fuzz/Cargo.toml")).unwrap();
    for (name, _) in TARGETS {
        let path = format!("fuzz_targets/{name}.rs");
        assert!(manifest.contains(&format!("path = \"{path}\"")), "{name}");
        let source = std::fs::read_to_string(repo_root().join("fuzz").join(&path)).unwrap();
        assert!(
            source.contains(&format!("vakra_fuzz_targets::{name}(")),
            "{path} calls vakra_fuzz_targets::{name}"
        );
    }
}

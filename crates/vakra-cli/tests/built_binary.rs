//! `scripts/built.sh`, which every script and `make docker` use to find a binary: it prints the
//! release binary where cargo put it, wherever `CARGO_TARGET_DIR` says, for a real (tiny,
//! dependency-free) package built by the cargo running the tests; and no script names
//! `target/release`.

use std::path::Path;
use std::process::{Command, Output};

use vakra_test_kit::paths::repo_root;

/// A package `hello` with a binary `greet` and an example `demo`, each printing its name.
fn package(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("examples")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [[bin]]\nname = \"greet\"\npath = \"src/main.rs\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        "fn main() { println!(\"greet\"); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("examples/demo.rs"),
        "fn main() { println!(\"demo\"); }\n",
    )
    .unwrap();
}

fn built(package: &Path, target: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(repo_root().join("scripts/built.sh"))
        .args(args)
        .current_dir(package)
        .env("CARGO", env!("CARGO"))
        .env("CARGO_TARGET_DIR", target)
        .env_remove("CARGO_BUILD_TARGET")
        .output()
        .expect("run scripts/built.sh")
}

#[test]
fn the_binary_is_found_where_cargo_target_dir_puts_it() {
    let dir = tempfile::tempdir().unwrap();
    let package_dir = dir.path().join("hello");
    let target = dir.path().join("elsewhere");
    package(&package_dir);

    let missing = built(&package_dir, &target, &["greet"]);
    assert_eq!(missing.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    let expected = target.join("release/greet");
    assert!(
        stderr.contains(&format!("{} is missing", expected.display())),
        "{stderr}"
    );

    let cases = [
        (
            &["greet", "--or-build", "hello"][..],
            "greet",
            "release/greet",
        ),
        (
            &["demo", "--example", "--or-build", "hello"],
            "demo",
            "release/examples/demo",
        ),
        (&["greet"], "greet", "release/greet"),
    ];
    for (args, name, relative) in cases {
        let out = built(&package_dir, &target, args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            Path::new(path.trim_end()),
            target.join(relative),
            "{args:?}"
        );
        let run = Command::new(path.trim_end()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), name);
    }
    assert!(
        !package_dir.join("target").exists(),
        "nothing built in the package's target/"
    );
}

#[test]
fn bad_arguments_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path());
    for args in [&[][..], &["greet", "--bogus"], &["greet", "--or-build"]] {
        let out = built(dir.path(), &dir.path().join("t"), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("usage:"),
            "{args:?}"
        );
    }
}

/// The scripts and the Makefile find binaries through `scripts/built.sh`, never at a fixed
/// `target/release` path, which `CARGO_TARGET_DIR` moves.
#[test]
fn no_script_names_a_fixed_target_folder() {
    let root = repo_root();
    let mut files = vec![root.join("Makefile")];
    for entry in std::fs::read_dir(root.join("scripts")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "sh") {
            files.push(path);
        }
    }
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.contains("target/release") && !line.contains("target/debug"),
                "{}:{}: {line} (use scripts/built.sh)",
                file.display(),
                n + 1
            );
        }
    }
}

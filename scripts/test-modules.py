#!/usr/bin/env python3
"""Fail when a test file would silently not be compiled.

A crate with `autotests = false` builds one test binary from `tests/tests.rs`; every other
`tests/*.rs` file must be a `mod` of it (docs/testing.md).
"""
import pathlib
import re
import sys

missing = []
for manifest in sorted(pathlib.Path("crates").glob("*/Cargo.toml")):
    if not re.search(r"^autotests\s*=\s*false", manifest.read_text(), re.M):
        continue
    tests = manifest.parent / "tests"
    root = tests / "tests.rs"
    modules = set(re.findall(r"^mod (\w+);", root.read_text(), re.M)) if root.exists() else set()
    for file in sorted(tests.glob("*.rs")):
        if file.name != "tests.rs" and file.stem not in modules:
            missing.append(f"{file}: not compiled; add `mod {file.stem};` to {root}")
for line in missing:
    print(line, file=sys.stderr)
if missing:
    sys.exit(1)
print("test-modules: every test file is a module of its crate's test binary")

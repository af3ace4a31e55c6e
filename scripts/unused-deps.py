#!/usr/bin/env python3
"""Fail when a workspace crate declares a dependency its code never names.

Offline, with what cargo gives: `cargo metadata --no-deps` lists each crate's dependencies (with
renames and kinds); a dependency counts as used when its Rust name appears as a path
(`name::`, `use name`, `extern crate name`, `name!`, `#[name::...]`) in the sources of its
kind: normal dependencies in src/ and build.rs, dev-dependencies in everything, build
dependencies in build.rs. A dependency that is used only for its features or its linked code
(no name in Rust) is listed in the crate's `[package.metadata.unused-deps] ignored = [...]`
with a comment saying why.
"""
import json
import pathlib
import re
import subprocess
import sys


def rust_files(root: pathlib.Path, dirs):
    for d in dirs:
        p = root / d
        if p.is_file() and p.suffix == ".rs":
            yield p
        elif p.is_dir():
            yield from p.rglob("*.rs")


def main() -> int:
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    unused = []
    for pkg in meta["packages"]:
        root = pathlib.Path(pkg["manifest_path"]).parent
        ignored = set(
            ((pkg.get("metadata") or {}).get("unused-deps") or {}).get("ignored", [])
        )
        texts = {}
        for kind, dirs in {
            None: ["src", "build.rs"],
            "dev": ["src", "build.rs", "tests", "benches", "examples"],
            "build": ["build.rs"],
        }.items():
            texts[kind] = "\n".join(
                f.read_text(encoding="utf-8", errors="replace")
                for f in rust_files(root, dirs)
            )
        for dep in pkg["dependencies"]:
            name = dep.get("rename") or dep["name"]
            if name in ignored:
                continue
            ident = name.replace("-", "_")
            pattern = re.compile(
                rf"(?<![\w:]){re.escape(ident)}\s*(::|!)|\buse\s+{re.escape(ident)}\b"
                rf"|\bextern\s+crate\s+{re.escape(ident)}\b"
            )
            if not pattern.search(texts[dep["kind"]]):
                kind = f"{dep['kind']}-" if dep["kind"] else ""
                unused.append(f"{pkg['name']}: {kind}dependency `{name}` is never named")
    for line in unused:
        print(line, file=sys.stderr)
    if unused:
        print(
            f"{len(unused)} unused dependencies: remove them, or list one in its crate's "
            "[package.metadata.unused-deps] ignored with the reason",
            file=sys.stderr,
        )
        return 1
    print("unused-deps: every declared dependency is named in its crate's code")
    return 0


if __name__ == "__main__":
    sys.exit(main())

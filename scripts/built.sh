#!/usr/bin/env bash
# The path of a release binary where cargo puts it:
#   bash scripts/built.sh BINARY [--example] [--or-build PACKAGE]
# prints `<target directory>[/<target triple>]/release[/examples]/BINARY`, the target directory
# being the one `cargo metadata` reports (CARGO_TARGET_DIR, a `build.target-dir` setting, or the
# workspace's target/) and the triple CARGO_BUILD_TARGET's, if set. A missing binary fails, saying
# what to build, or with --or-build is built first (`cargo build --release -p PACKAGE`); a binary
# that is there is used as it is (building one package alone could compile its dependencies
# again with other features). Every script and the Makefile find their binaries so; run it from
# the workspace (the scripts `cd` to the repository first).
set -euo pipefail
usage() { echo "usage: $0 BINARY [--example] [--or-build PACKAGE]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
name=$1 sub= package=
shift
while [[ $# -gt 0 ]]; do
  case $1 in
    --example) sub=/examples; shift ;;
    --or-build) [[ $# -ge 2 ]] || usage; package=$2; shift 2 ;;
    *) usage ;;
  esac
done
metadata=$("${CARGO:-cargo}" metadata --format-version 1 --no-deps)
target=$(printf '%s' "$metadata" | sed -n 's/.*"target_directory":"\(\([^"\\]\|\\.\)*\)".*/\1/p')
[[ -n $target ]] || { echo "$0: cargo metadata reported no target directory" >&2; exit 1; }
path=$target${CARGO_BUILD_TARGET:+/$CARGO_BUILD_TARGET}/release$sub/$name
if [[ ! -x $path && -n $package ]]; then
  kind=--bin
  [[ -n $sub ]] && kind=--example
  "${CARGO:-cargo}" build --release -p "$package" "$kind" "$name" >&2
fi
[[ -x $path ]] || {
  echo "$0: $path is missing: build it first (make release, or cargo build --release)" >&2
  exit 1
}
printf '%s\n' "$path"

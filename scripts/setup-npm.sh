#!/usr/bin/env bash
# setup-npm.sh DIR: the pinned npm packages of DIR/package-lock.json in DIR/node_modules, installed
# again only when the lock file changes.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
stamp="$dir/node_modules/.package-lock.stamp"
if [[ -f $stamp ]] && cmp -s "$dir/package-lock.json" "$stamp"; then
  exit 0
fi
npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
cp "$dir/package-lock.json" "$stamp"
echo "$dir/package-lock.json installed in $dir/node_modules"

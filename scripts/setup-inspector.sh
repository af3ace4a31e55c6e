#!/usr/bin/env bash
# Installs the pinned MCP Inspector CLI (npm) in tests/inspector/node_modules (idempotent), for
# crates/vakra-cli/tests/http_clients.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=tests/inspector
stamp="$dir/node_modules/.package-lock.stamp"
if [[ -f $stamp ]] && cmp -s "$dir/package-lock.json" "$stamp"; then
  exit 0
fi
npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
cp "$dir/package-lock.json" "$stamp"
echo "MCP Inspector installed in $dir/node_modules"

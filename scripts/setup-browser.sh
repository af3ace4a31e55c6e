#!/usr/bin/env bash
# Installs what the explorer's browser test needs (idempotent): Chromium from Debian's packages
# when /usr/bin/chromium is missing, and the pinned playwright-core in tests/browser/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x /usr/bin/chromium ]]; then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
dir=tests/browser
stamp="$dir/node_modules/.package-lock.stamp"
if [[ -f $stamp ]] && cmp -s "$dir/package-lock.json" "$stamp"; then
  exit 0
fi
npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
cp "$dir/package-lock.json" "$stamp"
echo "browser test tooling installed in $dir/node_modules"

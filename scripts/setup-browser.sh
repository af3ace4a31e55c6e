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
exec bash scripts/setup-npm.sh tests/browser

#!/usr/bin/env bash
# Installs Debian's nginx for the routing test (crates/vakra-cli/tests/routing.rs), which runs
# it as a foreground process with its own config on a loopback port (idempotent).
set -euo pipefail
if [[ -x /usr/sbin/nginx ]]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends nginx >/dev/null \
  || { apt-get update >/dev/null && apt-get install -y --no-install-recommends nginx >/dev/null; }
echo "nginx installed: $(/usr/sbin/nginx -v 2>&1)"

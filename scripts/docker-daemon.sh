#!/usr/bin/env bash
# Makes sure a Docker daemon answers: installs Debian's docker.io, docker-compose and debootstrap
# when missing, and starts dockerd when none runs, with no bridge and no iptables rules (the
# containers use host networking, so all their traffic stays on loopback). Exits 3, with
# dockerd's own error, when the daemon cannot run on this machine.
set -euo pipefail
cache=${VAKRA_CACHE:-$HOME/.cache/vakra-rs}
mkdir -p "$cache"
if ! command -v dockerd >/dev/null || ! command -v docker-compose >/dev/null \
  || ! command -v debootstrap >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  packages=(docker.io docker-compose debootstrap)
  apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null \
    || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${packages[@]}" >/dev/null; }
fi
if docker info >/dev/null 2>&1; then
  exit 0
fi
log=$cache/dockerd.log
# setsid: the daemon outlives this script (and the test that called it), as a service would.
setsid dockerd --iptables=false --ip6tables=false --bridge=none --ip-forward=false \
  --ip-masq=false >"$log" 2>&1 < /dev/null &
pid=$!
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo "dockerd started (pid $pid, log $log)"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    break
  fi
  sleep 0.5
done
echo "dockerd cannot run here:" >&2
tail -n 5 "$log" >&2
exit 3

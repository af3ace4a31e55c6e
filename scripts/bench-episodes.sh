#!/usr/bin/env bash
# Episode throughput of `vakra serve --episodes` on the demo split (docs/benchmarks.md):
# CLIENTS concurrent OpenEnv WebSocket clients play the ground truth for SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${1:-64}
seconds=${2:-20}
cargo build --release -p vakra-cli
cargo build --release -p vakra-episodes --example episode_load
vakra=$(bash scripts/built.sh vakra)
load=$(bash scripts/built.sh episode_load --example)
"$vakra" index --root . >/dev/null   # capability 4's retrievers
log=$(mktemp)
"$vakra" serve --root . --episodes demo/tasks --listen 127.0.0.1:0 >"$log" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q '^listening on' "$log" && break; sleep 0.1; done
base=$(sed -n 's/^listening on http:\/\///p' "$log")
echo "machine: $(nproc) cores, $(uname -r); load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$load" "ws://$base/openenv/ws" demo/tasks "$clients" "$seconds"
echo "server max RSS: $(grep VmHWM /proc/$server/status | awk '{print $2/1024 " MiB"}')"

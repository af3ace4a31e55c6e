#!/usr/bin/env bash
# The main job on the bundled demo data: start `vakra serve`, call REST-BIRD over HTTP and an MCP
# server over stdio, print what an agent would see, stop. Needs a release build (make release).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${VAKRA_BIN:-$(bash scripts/built.sh vakra)}
standin_bin=${STANDIN_BIN:-$(bash scripts/built.sh vakra-standin)}
out=$(mktemp)
"$bin" serve --root . --listen "127.0.0.1:${PORT:-0}" >"$out" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 1 200); do grep -q '^listening on ' "$out" && break; sleep 0.05; done
base=$(sed -n 's/^listening on //p' "$out")
[[ -n $base ]] || { echo "vakra serve did not start" >&2; exit 1; }
echo "== vakra serve is listening on $base"
echo "== readiness";            curl -fs "$base/readyz"; echo
echo "== REST: the sample request of each library endpoint (first three)"
python3 -c 'import json; [print(op["get"]["x-vakra"]["sample"]) for op in list(json.load(open("openapi/library.json"))["paths"].values())[:3]]' |
while read -r sample; do echo "GET $sample"; curl -fs "$base$sample"; echo; done
echo "== REST: bad parameter (FastAPI-style 422)"
curl -s "$base/v1/library/most_borrowed_books?limit=abc" || true; echo
echo "== MCP over stdio (capability 1, domain library): get_data, then a filter on its handle"
{
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"0"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_data","arguments":{}}}'
  sleep 0.3
  printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"filter_data","arguments":{"data_label":"retrieved_book_1","key_name":"genre","value":"Fantasy","condition":"equal_to"}}}'
  sleep 0.5
} | "$bin" mcp --capability 1 --domain library --root . | python3 -c '
import sys, json
for line in sys.stdin:
    result = json.loads(line).get("result", {})
    if "content" in result:
        print(result["content"][0]["text"][:160] + "...")
'
echo "== MCP over stdio (capability 2, domain library): initialize, tools/list, tools/call"
{
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"0"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_book_count_by_genre","arguments":{"genre":"Mystery"}}}'
  sleep 0.5
} | "$bin" mcp --capability 2 --domain library --root . | python3 -c '
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    result = msg.get("result", {})
    if "tools" in result:
        tools = result["tools"]
        print("tools/list:", len(tools), "tools, first:", tools[0]["name"])
    elif "content" in result:
        print("tools/call text:"); print(result["content"][0]["text"])
    elif "serverInfo" in result:
        print("initialized:", result["serverInfo"]["name"], result["protocolVersion"])
'
echo "== Run a model: a stand-in model (OpenAI-compatible, on loopback) that plays the demo ground truth"
work=$(mktemp -d)
standin_out=$(mktemp)
"$standin_bin" --split demo/tasks >"$standin_out" &
standin=$!
trap 'kill $server $standin 2>/dev/null; wait $server $standin 2>/dev/null || true; rm -rf "$out" "$work" "$standin_out"' EXIT
for _ in $(seq 1 200); do grep -q '^listening on ' "$standin_out" && break; sleep 0.05; done
model_url=$(sed -n 's/^listening on //p' "$standin_out")
mkdir -p "$work/root"
cp -r openapi databases documents retrievers capability1 bpo "$work/root/"
"$bin" index --root "$work/root" >/dev/null
echo "vakra run --input demo/tasks --out RUN --model-url $model_url --model stand-in --jobs 8"
"$bin" run --quiet --input demo/tasks --out "$work/run" --root "$work/root" \
  --model-url "$model_url" --model stand-in --jobs 8 --price-in 0.15 --price-out 0.6
echo "== Score the run: vakra eval --predictions RUN --ground-truth demo/tasks"
"$bin" eval --quiet --ground-truth demo/tasks --predictions "$work/run" --root "$work/root" \
  --report "$work/report.json" --markdown "$work/report.md" 2>/dev/null

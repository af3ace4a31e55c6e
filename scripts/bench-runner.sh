#!/usr/bin/env bash
# The runner benchmark (docs/benchmarks.md), on this machine:
#   1. `vakra run` of the demo split (11 samples, capabilities 1-4) × TRIALS trials (default 91:
#      1,001 samples) at --jobs JOBS (default 32) against a zero-latency stand-in model that
#      plays the ground truth: wall time, samples/s, max resident memory, and the runner's own
#      time per model step (model and tools excluded) from run.json;
#   2. optionally (VAKRA_REF, a reference checkout, and REF_PYTHON, a Python with the reference
#      runner's requirements), the reference's benchmark_runner.py on the same demo samples with
#      the same stand-in model, its MCP servers being `vakra mcp` as local commands (the only
#      way to run it here without its containers): wall time per capability.
#
# Every command is printed before it runs; all traffic stays on 127.0.0.1.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
TRIALS=${TRIALS:-91}
JOBS=${JOBS:-32}
VAKRA=${VAKRA_BIN:-$(bash scripts/built.sh vakra --or-build vakra-cli)}
STANDIN=${STANDIN_BIN:-$(bash scripts/built.sh vakra-standin --or-build vakra-standin)}
work=$(mktemp -d)
standin_out=$work/standin.out
cleanup() { kill "${standin:-}" 2>/dev/null || true; pkill -f -- "--log $work" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

"$STANDIN" --split demo/tasks >"$standin_out" &
standin=$!
for _ in $(seq 1 200); do grep -q '^listening on ' "$standin_out" && break; sleep 0.05; done
url=$(sed -n 's/^listening on //p' "$standin_out")
[[ -n $url ]] || { echo "the stand-in did not start" >&2; exit 1; }

mkdir -p "$work/root"
cp -r openapi databases documents retrievers capability1 bpo "$work/root/"
(set -x; "$VAKRA" index --root "$work/root" >/dev/null)

echo "== vakra run: demo split x $TRIALS trials, --jobs $JOBS, zero-latency stand-in"
(set -x; /usr/bin/time -f '%e s wall, %M KiB max RSS' "$VAKRA" run --quiet --input demo/tasks \
    --out "$work/run" --root "$work/root" --model-url "$url" --model stand-in \
    --trials "$TRIALS" --jobs "$JOBS")
summary() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(f"{s['ran']} samples ({s['succeeded']} succeeded) in {s['wall_s']:.2f} s: "
      f"{s['ran'] / s['wall_s']:.0f} samples/s; runner's own time per model step "
      f"(wall clock, so waits for a core count at high --jobs): "
      f"p50 {s['runner_step_p50_us']:.0f} us, p99 {s['runner_step_p99_us']:.0f} us")
PY
}
summary "$work/run/run.json"
echo "== the same at --jobs 1 (10 trials), where a step's wall clock is its own work"
(set -x; "$VAKRA" run --quiet --input demo/tasks --out "$work/run1" --root "$work/root" \
    --model-url "$url" --model stand-in --trials 10 --jobs 1 >/dev/null)
summary "$work/run1/run.json"

if [[ -n ${VAKRA_REF:-} && -n ${REF_PYTHON:-} ]]; then
    echo "== the reference runner ($VAKRA_REF) on the same 11 samples, same stand-in model"
    # The reference's prompts, so that both runners can be compared message for message.
    (set -x; "$VAKRA" import --vakra-repo "$VAKRA_REF" --out "$work/refroot" >/dev/null)
    mkdir -p "$work/root/runner"
    cp "$work/refroot/runner/prompts.json" "$work/root/runner/"
    start_logging_standin() {
        "$STANDIN" --split demo/tasks --log "$1" >"$1.out" &
        for _ in $(seq 1 200); do grep -q '^listening on ' "$1.out" && break; sleep 0.05; done
        sed -n 's/^listening on //p' "$1.out"
    }
    ref_url=$(start_logging_standin "$work/ref-requests.jsonl")
    ours_url=$(start_logging_standin "$work/ours-requests.jsonl")
    cfg=$work/mcp.yaml
    {
        echo "tasks:"
        for n in 1 2 3 4; do
            echo "  $n:"
            echo "    mode: stdio"
            echo "    command: $VAKRA"
            echo "    args: [mcp, --capability, '$n', --root, '$work/root']"
        done
    } >"$cfg"
    for dir in demo/tasks/capability_*; do
        name=$(basename "$dir"); n=${name:11:1}
        export "CAPABILITY_${n}_DIR=$REPO/$dir"
    done
    mkdir -p "$work/ref-predictions"
    for dir in demo/tasks/capability_*; do
        name=$(basename "$dir"); n=${name:11:1}
        (set -x; cd "$VAKRA_REF" && OPENAI_BASE_URL="$ref_url" OPENAI_API_KEY=stand-in \
            /usr/bin/time -f "capability $n: %e s wall, %M KiB max RSS" \
            "$REF_PYTHON" benchmark_runner.py --capability_id "$n" --provider openai \
            --model stand-in --mcp-config "$cfg" --output "$work/ref-predictions/$name" \
            >"$work/ref-$n.log" 2>&1) || { echo "reference runner failed:"; tail -20 "$work/ref-$n.log"; }
        grep -E "Total items|Successful|s wall" "$work/ref-$n.log" | sed 's/^/    /' || true
    done
    echo "== vakra run on the same samples (--jobs 1, as the reference)"
    (set -x; /usr/bin/time -f '%e s wall, %M KiB max RSS' "$VAKRA" run --quiet --input demo/tasks \
        --out "$work/ours" --root "$work/root" --model-url "$ours_url" --model stand-in --jobs 1)
    echo "== what the model was sent: the first request of each question, reference vs vakra run"
    python3 - "$work/ref-requests.jsonl" "$work/ours-requests.jsonl" <<'PY'
import json, sys
def first_requests(path):
    out = {}
    for line in open(path):
        request = json.loads(line)
        query = [m["content"] for m in request["messages"] if m["role"] == "user"][-1]
        out.setdefault(query, request)
    return out
ref, ours = first_requests(sys.argv[1]), first_requests(sys.argv[2])
same = sum(ref[q]["messages"] == ours.get(q, {}).get("messages") for q in ref)
tools = sum(sorted(t["function"]["name"] for t in ref[q].get("tools", []))
            == sorted(t["function"]["name"] for t in ours.get(q, {}).get("tools", [])) for q in ref)
print(f"{same} of {len(ref)} questions: identical messages; {tools} of {len(ref)}: the same tool names offered")
PY
    echo "== the reference runner's predictions scored by vakra eval"
    (set -x; "$VAKRA" eval --quiet --ground-truth demo/tasks --predictions "$work/ref-predictions" \
        --root "$work/root" --report "$work/ref-report.json" 2>/dev/null) || true
fi

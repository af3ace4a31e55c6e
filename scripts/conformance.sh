#!/usr/bin/env bash
# Runs ../shared/conformance/run.sh against this checkout's release build, with a Python
# environment for its probes. Needs VAKRA_REF (a checkout of the reference repository).
#
# Then the BPO comparison: the reference's BPO server (FastMCP 2.14) answers a broad set of calls,
# recorded by crates/vakra-bpo/tests/reference/record_goldens.py into a temporary folder (the
# recording is derived from the reference's code and data, so it never enters the repository),
# and crates/vakra-bpo's listing and reference_goldens tests compare every tool listing and answer
# with it. VAKRA_REQUIRE_REF=1 and VAKRA_REQUIRE_REF_CHECKOUT=1 make those tests fail, not skip,
# when an input is missing.
#
# Then the evaluator's agreement test on the published sample traces, and the reference's
# validate_output.py on what `vakra run` writes.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VAKRA_REF:?set VAKRA_REF to a checkout of IBM/vakra}"
shared=${SHARED:-../shared}
venv=${CONFORMANCE_VENV:-.venv-conformance}
# The tests read shared/ where VAKRA_SHARED says (an absolute path: they run in their crate).
VAKRA_SHARED=$(cd "$shared" && pwd)
export VAKRA_SHARED
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$shared/conformance/tools/requirements.txt"
fi
# Capability 4's tool checksums against $shared/reference/tool_checksums.json (39 match, 2
# documented mismatches); the switches fail the test instead of skipping it.
VAKRA_REQUIRE_REF=1 VAKRA_REQUIRE_REF_CHECKOUT=1 cargo test -p vakra-cli --test integration combined_mcp::reference_checksums_of_capability_4
# run.sh replays recordings made under pandas 2.3.3: capability 1 with the pandas switch. (MCP
# clients start `vakra mcp` with a bare environment, so the variable reaches it through the data
# root that run.sh's `vakra import` makes: it records the version there.)
VAKRA_PANDAS=2 VAKRA_BIN=$(bash scripts/built.sh vakra) PYTHON=$venv/bin/python bash "$shared/conformance/run.sh"

# --- Capability 1 under pandas 3.1.1, the default ----------------------------------------------
# The reference is recorded afresh, under pandas 3, replaying the call sequence of each
# capability-1 conformance plan (tools/ref_mcp_probe.py), into a temporary folder (the recordings
# are the reference's answers, so they never enter the repository); run.sh then replays them
# against `vakra mcp` with default flags.
p3_venv=${PANDAS3_VENV:-.venv-pandas3}
if [[ ! -x $p3_venv/bin/python ]]; then
  python3 -m venv "$p3_venv"
  "$p3_venv/bin/pip" install --quiet -r "$shared/conformance/tools/requirements-pandas3.txt"
fi
p3_goldens=$(mktemp -d)
mkdir -p "$p3_goldens/mcp"
for plan in "$shared"/conformance/goldens/mcp/cap1-*.calls.jsonl; do
  label=$(basename "$plan" .calls.jsonl)
  VAKRA_REF=$VAKRA_REF "$p3_venv/bin/python" "$shared/conformance/tools/ref_mcp_probe.py" run \
    --preset cap1 --python "$p3_venv/bin/python" --domain "${label#cap1-}" \
    --db-root "$shared/conformance/db" --replay "$plan" --out "$p3_goldens/mcp" --label "$label" >/dev/null
done
(unset VAKRA_PANDAS; CHECKS=cap1 GOLDENS=$p3_goldens VAKRA_BIN=$(bash scripts/built.sh vakra) PYTHON=$venv/bin/python \
  bash "$shared/conformance/run.sh")
# The capability-1 transcript scripts (shared has pandas-3 transcripts of two of them), recorded
# the way their README says (a copy of the reference with the fixtures' universes added, the mock
# databases rebuilt), then replayed by crates/vakra-cli/tests/chaining_transcripts.rs.
fixtures=$shared/conformance/cap1-transcripts
p3_ref=$p3_goldens/reference
mkdir -p "$p3_ref" "$p3_goldens/dbs" "$p3_goldens/transcripts"
(cd "$VAKRA_REF" && tar --exclude=.git -cf - .) | tar -xf - -C "$p3_ref"
cat "$fixtures/mapping_additions_testdom.yaml" >>"$p3_ref/environment/configs/mcp_tool_universe_id_mapping.yaml"
"$p3_venv/bin/python" - "$fixtures" "$p3_goldens" <<'PYEOF'
import asyncio, glob, json, os, sqlite3, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
fixtures, work = sys.argv[1], sys.argv[2]
dbs, ref = os.path.join(work, "dbs"), os.path.join(work, "reference")
for sql in glob.glob(os.path.join(fixtures, "mockdb_*.sql")):
    domain = os.path.basename(sql)[len("mockdb_"):-len(".sql")]
    os.makedirs(os.path.join(dbs, domain), exist_ok=True)
    con = sqlite3.connect(os.path.join(dbs, domain, domain + ".sqlite"))
    con.executescript(open(sql).read()); con.commit(); con.close()
def dump(res):
    return res.model_dump(mode="json", by_alias=True, exclude_none=True)
async def record(script, out):
    spec = json.load(open(script))
    env = {"MCP_DOMAIN": spec["domain"], "MCP_DB_ROOT": dbs, "MCP_SERVER_TYPE": "router",
           "PYTHONPATH": ref, "CAPABILITY_ID": "1", **spec.get("env", {})}
    params = StdioServerParameters(command=sys.executable, args=["-m", "environment.m3.python_tools.mcp"],
                                   env=env, cwd=ref)
    log = []
    with open(os.devnull, "w") as err:
        async with stdio_client(params, errlog=err) as (r, w), ClientSession(r, w) as s:
            log.append({"step": "initialize", "result": dump(await s.initialize())})
            for st in spec["steps"]:
                if st[0] == "list":
                    log.append({"step": "tools/list", "result": dump(await s.list_tools())})
                    continue
                _, name, args = st
                # the scripts name their database under /tmp/dbs; the test maps that prefix back
                live = {k: v.replace("/tmp/dbs", dbs, 1) if k == "database_path" else v for k, v in args.items()}
                log.append({"step": "tools/call", "name": name, "arguments": args,
                            "result": dump(await s.call_tool(name, live))})
    json.dump(log, open(out, "w"), ensure_ascii=False)
for script in sorted(glob.glob(os.path.join(fixtures, "script_*.json"))):
    name = os.path.basename(script)[len("script_"):-len(".json")]
    asyncio.run(record(script, os.path.join(work, "transcripts", f"transcript_{name}_pandas3.json")))
PYEOF
VAKRA_REQUIRE_REF=1 VAKRA_CAP1_PANDAS3=$p3_goldens/transcripts cargo test --release -p vakra-cli \
  --test integration chaining_transcripts:: -- --nocapture
rm -rf "$p3_goldens"

# --- BPO (capability 3, domain bpo) -------------------------------------------------------------
# The reference's BPO requirements are unpinned; the comparison targets FastMCP 2.x with the
# pandas 2 line (docs/compatibility.md).
bpo_venv=${BPO_GOLDENS_VENV:-.venv-bpo-goldens}
if [[ ! -x $bpo_venv/bin/python ]]; then
  python3 -m venv "$bpo_venv"
  "$bpo_venv/bin/pip" install --quiet 'fastmcp>=2.14,<2.15' 'pandas>=2.3,<3' pyarrow loguru \
    rapidfuzz fastapi
fi
goldens=$(mktemp -d)
trap 'rm -rf "$goldens"' EXIT
VAKRA_REF=$VAKRA_REF "$bpo_venv/bin/python" crates/vakra-bpo/tests/reference/record_goldens.py \
  "$goldens/bpo_goldens.json"
VAKRA_REQUIRE_REF=1 VAKRA_REQUIRE_REF_CHECKOUT=1 VAKRA_BPO_GOLDENS=$goldens/bpo_goldens.json \
  cargo test -p vakra-bpo --test integration -- listing:: reference_goldens:: --nocapture

# The evaluator: whole-pipeline exact-match verdicts on the published sample traces equal the
# reference evaluator's recorded ones (crates/vakra-cli/tests/eval_agreement.rs).
VAKRA_REQUIRE_REF=1 VAKRA_REQUIRE_REF_CHECKOUT=1 cargo test --release -p vakra-cli --test integration eval_agreement::

# The runner: the reference's validate_output.py accepts what `vakra run` writes
# (crates/vakra-cli/tests/run.rs; its Python needs only pydantic, which the conformance venv has).
VAKRA_REQUIRE_REF=1 VAKRA_REQUIRE_REF_CHECKOUT=1 VAKRA_PYTHON=$venv/bin/python cargo test --release -p vakra-cli --test integration \
  run::the_oracle_model_scores_100_on_every_capability_and_the_output_validates

# The runner: the reference's own runner and `vakra run` against one capturing stand-in, every
# request byte for byte (scripts/runner-parity.sh): on the demo split with the reference's prompts
# imported, then on imported domains over the synthetic conformance databases (a split made from
# the conformance recordings; shortlists of domains over 128 tools included). Needs a venv with
# the reference runner's requirements (RUNNER_VENV; made on first use, ~3 GB with torch).
bash scripts/runner-parity.sh demo/tasks .
parity=$(mktemp -d)
trap 'rm -rf "$goldens" "$parity"' EXIT
"$(bash scripts/built.sh vakra)" import --vakra-repo "$VAKRA_REF" --out "$parity/root" >/dev/null
mkdir -p "$parity/root/databases"
for db in "$shared"/conformance/db/*/; do
  ln -s "$(cd "$db" && pwd)" "$parity/root/databases/$(basename "$db")"
done
python3 scripts/make_parity_split.py "$shared/conformance/goldens/mcp" "$parity/split" 3
bash scripts/runner-parity.sh "$parity/split" "$parity/root"

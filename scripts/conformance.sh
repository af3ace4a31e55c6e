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
VAKRA_BIN=$(bash scripts/built.sh vakra) PYTHON=$venv/bin/python bash "$shared/conformance/run.sh"

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
  cargo test -p vakra-bpo --test listing --test reference_goldens -- --nocapture

# The evaluator: whole-pipeline exact-match verdicts on the published sample traces equal the
# reference evaluator's recorded ones (crates/vakra-cli/tests/eval_agreement.rs).
VAKRA_REQUIRE_REF=1 VAKRA_REQUIRE_REF_CHECKOUT=1 cargo test --release -p vakra-cli --test integration eval_agreement::

# The runner: the reference's validate_output.py accepts what `vakra run` writes
# (crates/vakra-cli/tests/run.rs; its Python needs only pydantic, which the conformance venv has).
VAKRA_REQUIRE_REF=1 VAKRA_REQUIRE_REF_CHECKOUT=1 VAKRA_PYTHON=$venv/bin/python cargo test --release -p vakra-cli --test integration \
  run::the_oracle_model_scores_100_on_every_capability_and_the_output_validates

#!/usr/bin/env bash
# Runs ../shared/conformance/run.sh against this checkout's release build, with a Python
# environment for its probes. Needs VAKRA_REF (a checkout of the reference repository).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VAKRA_REF:?set VAKRA_REF to a checkout of IBM/vakra}"
shared=${SHARED:-../shared}
venv=${CONFORMANCE_VENV:-.venv-conformance}
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$shared/conformance/tools/requirements.txt"
fi
# Capability 4's tool checksums against $shared/reference/tool_checksums.json (39 match, 2
# documented mismatches); VAKRA_REQUIRE_REF=1 fails the test instead of skipping it.
VAKRA_REQUIRE_REF=1 cargo test -p vakra-cli --test combined_mcp reference_checksums_of_capability_4
VAKRA_BIN=target/release/vakra PYTHON=$venv/bin/python bash "$shared/conformance/run.sh"

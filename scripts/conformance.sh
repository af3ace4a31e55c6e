#!/usr/bin/env bash
# Runs ../shared/conformance/run.sh against this checkout's release build, with a Python
# environment for its probes, then the evaluator's agreement test on the published sample
# traces. Needs VAKRA_REF (a checkout of the reference repository).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VAKRA_REF:?set VAKRA_REF to a checkout of IBM/vakra}"
shared=${SHARED:-../shared}
venv=${CONFORMANCE_VENV:-.venv-conformance}
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$shared/conformance/tools/requirements.txt"
fi
VAKRA_BIN=target/release/vakra PYTHON=$venv/bin/python bash "$shared/conformance/run.sh"
# The evaluator: whole-pipeline exact-match verdicts on the published sample traces equal the
# reference evaluator's recorded ones (crates/vakra-cli/tests/eval_agreement.rs).
VAKRA_REQUIRE_REF=1 cargo test --release -p vakra-cli --test eval_agreement

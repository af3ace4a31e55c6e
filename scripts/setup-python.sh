#!/usr/bin/env bash
# Creates .venv-test with the official MCP Python client used by the tests (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VAKRA_VENV:-.venv-test}
req=tests/python/requirements.txt
stamp="$venv/.requirements"
if [[ -x $venv/bin/python && -f $stamp ]] && cmp -s "$req" "$stamp"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
echo "python test client installed in $venv"

#!/usr/bin/env bash
# Creates .venv-openenv with OpenEnv's client (openenv-core), used by the episode tests (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VAKRA_OPENENV_VENV:-.venv-openenv}
req=tests/python/openenv-requirements.txt
stamp="$venv/.requirements"
if [[ -x $venv/bin/python && -f $stamp ]] && cmp -s "$req" "$stamp"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
echo "OpenEnv client installed in $venv"

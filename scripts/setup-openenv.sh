#!/usr/bin/env bash
# Creates .venv-openenv with OpenEnv's client (openenv-core), used by the episode tests (idempotent).
exec bash "$(dirname "$0")/setup-venv.sh" "${VAKRA_OPENENV_VENV:-.venv-openenv}" tests/python/openenv-requirements.txt

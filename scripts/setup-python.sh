#!/usr/bin/env bash
# Creates .venv-test with the official MCP Python client used by the tests (idempotent).
exec bash "$(dirname "$0")/setup-venv.sh" "${VAKRA_VENV:-.venv-test}" tests/python/requirements.txt

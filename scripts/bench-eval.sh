#!/usr/bin/env bash
# Evaluation throughput: the demo split's capability 2–4 samples copied to COPIES samples each
# (fresh uuids), ground truth given as predictions, replayed in-process and exact-matched.
# With HTML, the HTML report is written there too and its sample explorer timed in headless
# Chromium (tests/browser/report_timing.mjs; needs `make browser`).
#   bash scripts/bench-eval.sh [COPIES] [JOBS] [HTML]
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-400}
jobs=${2:-8}
html=${3:-}
vakra=${VAKRA_BIN:-$(bash scripts/built.sh vakra --or-build vakra-cli)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root"
cp -r openapi databases documents retrievers capability1 bpo "$work/root/"
$vakra index --root "$work/root" >/dev/null
python3 - "$work" "$copies" <<'PY'
import json, sys
from pathlib import Path
work, copies = Path(sys.argv[1]), int(sys.argv[2])
for cap in Path("demo/tasks").iterdir():
    if cap.name.startswith("capability_1"):
        continue  # capability-1 uuids are universe ids; they cannot be copied
    for kind in ("input", "output"):
        for f in (cap / kind).glob("*.json"):
            records = json.loads(f.read_text())
            out = [dict(r, uuid=f"{r['uuid']}-{i}") for i in range(copies) for r in records]
            for target in [work / "gt" / cap.name / kind] + ([work / "pred" / cap.name] if kind == "output" else []):
                target.mkdir(parents=True, exist_ok=True)
                (target / f.name).write_text(json.dumps(out))
PY
/usr/bin/time -f "wall %e s, max RSS %M KiB" $vakra eval --quiet --ground-truth "$work/gt" --predictions "$work/pred" \
  --root "$work/root" --report "$work/report.json" --jobs "$jobs" ${html:+--html "$html"} 2>&1 | grep -v "^warning"
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['timing']; print(f\"{t['samples']} samples in {t['seconds']:.2f} s: {t['samples_per_minute']:.0f} samples/min\")" "$work/report.json"
if [[ -n $html ]]; then
  ls -l "$work/report.json" "$html" | awk '{print $5, $9}'
  node tests/browser/report_timing.mjs "$html" 5
fi

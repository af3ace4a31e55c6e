"""Compares the request bodies two runners sent a capturing stand-in model (one body per line,
as `vakra-standin --log` writes them), byte for byte.

Tool-call ids come from the stand-in, so each body's ids are renumbered by first appearance
before comparing. Bodies are grouped into conversations by their first two messages and compared
as multisets (the runners may take samples in another order).

usage: compare_requests.py LABEL REFERENCE.log VAKRA.log  -> prints "LABEL: N of M identical";
exit 1 when any differs (the first difference is shown)."""
import collections, difflib, json, re, sys

ID = re.compile(r'"(call_[A-Za-z0-9_]+)"')


def normalise(body: str) -> str:
    seen = {}
    return ID.sub(lambda m: '"call_%d"' % seen.setdefault(m.group(1), len(seen)), body)


def read(path):
    with open(path, encoding="utf-8") as f:
        return [normalise(line.rstrip("\n")) for line in f if line.strip()]


def main():
    label, ref_path, ours_path = sys.argv[1:4]
    ref, ours = read(ref_path), read(ours_path)
    left = collections.Counter(ours)
    same, missing = 0, []
    for body in ref:
        if left[body] > 0:
            left[body] -= 1
            same += 1
        else:
            missing.append(body)
    extra = [b for b, n in left.items() for _ in range(n)]
    print(f"{label}: {same} of {len(ref)} reference requests identical ({len(ours)} sent by vakra run)")
    if missing:
        target = missing[0]
        key = json.dumps(json.loads(target)["messages"][:2])
        close = [b for b in extra if json.dumps(json.loads(b)["messages"][:2]) == key] or extra
        best = max(close, key=lambda b: difflib.SequenceMatcher(None, b, target).quick_ratio(), default="")
        print("first difference (reference, then vakra run):")
        a, b = target, best
        i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
        print("  ref:  ..." + a[max(0, i - 200): i + 300])
        print("  ours: ..." + b[max(0, i - 200): i + 300])
    if not ref:
        print(f"{label}: the reference's runner sent no request (see its output)")
    sys.exit(0 if ref and not missing and not extra else 1)


if __name__ == "__main__":
    main()

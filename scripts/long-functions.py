#!/usr/bin/env python3
"""Lists the functions of non-test code longer than a limit (lines from `fn` to its closing
brace), longest first: the `src/` trees of the workspace's crates, leaving out `#[cfg(test)]`
modules and `#[test]` functions. `--max N` (default 150); `--allow K` exits 1 when more than K
functions are over the limit.

Usage: python3 scripts/long-functions.py [--max 150] [--allow 3]
"""

import argparse
import pathlib
import re
import sys

FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def code_only(text):
    """The text with comments, strings and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif re.match(r"b?r#*\"", text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r"b?r(#*)\"", text[i:])
            hashes = m.group(1)
            end = text.find("\"" + hashes, i + m.end())
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(?:\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append(" " * m.end())
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_end(code, start):
    """The index of the brace closing the block that opens at or after `start`."""
    depth = 0
    for j in range(code.index("{", start), len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def functions(path):
    text = path.read_text()
    code = code_only(text)
    lines = code.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    line_of = lambda index: next(k for k in range(len(offsets) - 1) if offsets[k + 1] > index)
    skip_until = -1
    pending_test = False
    found = []
    for number, line in enumerate(lines):
        if offsets[number] <= skip_until:
            continue
        stripped = line.strip()
        if stripped.startswith("#[cfg(test)]") or stripped.startswith("#[test]") or stripped.startswith("#[tokio::test"):
            pending_test = True
            continue
        if stripped.startswith("#["):
            continue
        if pending_test and stripped:
            pending_test = False
            if "{" in code[offsets[number]:] and (re.match(r"^\s*(pub\s+)?mod\s", line) or FN.match(line)):
                end = block_end(code, offsets[number])
                skip_until = end
            continue
        m = FN.match(line)
        if m:
            rest = code[offsets[number]:]
            brace, semi = rest.find("{"), rest.find(";")
            if brace < 0 or (0 <= semi < brace):
                continue  # a declaration without a body
            end = block_end(code, offsets[number])
            last = line_of(end)
            found.append((last - number + 1, m.group(1), number + 1))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=150)
    parser.add_argument("--allow", type=int, default=None)
    args = parser.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    long = []
    for path in sorted(root.glob("crates/*/src/**/*.rs")):
        for length, name, line in functions(path):
            if length > args.max:
                long.append((length, f"{path.relative_to(root)}:{line}", name))
    long.sort(reverse=True)
    for length, place, name in long:
        print(f"{length:5} {place} {name}")
    print(f"long-functions: {len(long)} non-test functions over {args.max} lines")
    if args.allow is not None and len(long) > args.allow:
        print(f"long-functions: more than {args.allow}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Writes tests/data/wratio_vectors.json: rapidfuzz 3.x `process.extract(query, choices,
scorer=fuzz.WRatio, limit=5)` on synthetic choices and queries made up here (ids, words,
spaces of both widths, non-Latin text, long strings), for tests/fuzzy.rs.

    pip install 'rapidfuzz>=3,<4' && python gen_wratio_vectors.py ../data/wratio_vectors.json
"""

import json
import random
import sys

import rapidfuzz
from rapidfuzz import fuzz, process

rng = random.Random(2024)


def word(alphabet, low, high):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


choices = []
choices += [f"{n:05d}BR" for n in range(5950, 5990)]
choices += [f"REQ{n:05d}" for n in range(0, 1200, 37)]
choices += [f"JOB-{word('ABCDEF', 2, 3)}-{n}" for n in range(40)]
choices += [" ".join(word("abcdefgh", 1, 6) for _ in range(rng.randint(1, 5))) for _ in range(60)]
choices += [word("ab ", 60, 90) for _ in range(10)]
choices += [word("éüßñ ab", 3, 12) for _ in range(20)]
choices += [word("日本語中文 ", 2, 8) for _ in range(10)]
choices += ["data engineer", "engineer data", "senior data engineer", "data  engineer ", "engineer"]
choices += ["a\u00a0b", "a\u2003b", "\u00a0", "x y x y", "", "  "]

queries = ["", " ", "05960BR", "5958", "05958br", "REQ", "req00111", "data", "engineer data x",
           "a b", "a\u00a0b", "a\u2003b", "é", "日本", "x y", "y x x", "ab" * 40, "senior", "JOB"]
alphabets = ["0123456789BRQ", "abcdefgh ", "ab ", "éüßñ ab", "日本語中文 ", "0123456789REQ -"]
for _ in range(250):
    queries.append(word(rng.choice(alphabets), 1, rng.choice([8, 16, 40, 100])))
for _ in range(100):
    base = rng.choice(choices)
    if base:
        pos = rng.randrange(len(base))
        queries.append(base[:pos] + rng.choice("xyz 0") + base[pos + 1:])

vectors = []
for q in queries:
    result = process.extract(q, choices, scorer=fuzz.WRatio, limit=5)
    vectors.append({"query": q, "top": [index for _, _, index in result], "scores": [s for _, s, _ in result]})

with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write('{"rapidfuzz": %s,\n"choices": %s,\n"vectors": [\n' % (
        json.dumps(rapidfuzz.__version__), json.dumps(choices, ensure_ascii=False)))
    f.write(",\n".join(json.dumps(v, ensure_ascii=False) for v in vectors))
    f.write("\n]}\n")

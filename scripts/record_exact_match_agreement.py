"""Records the reference evaluator's exact-match verdicts on this project's synthetic judge
inputs, for crates/vakra-eval/tests/exact_match_agreement.rs. Needs a reference checkout and its
evaluator's imports (langchain-openai); nothing of the reference is written, only its verdicts.

    API_KEY=unused python scripts/record_exact_match_agreement.py IBM-vakra
"""
import json
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "crates/vakra-eval/tests/fixtures"

PEEK = '{"handle": "filtered_book_1", "num_records": 102, "key_details": [{"name": "book_id", "dtype": "int64", "first_3_values": [40, 41, 81]}]}'
REST = '{\n  "loans": 1520,\n  "branch": "Gl\\u00e9be"\n}'


def cases():
    """(name, expected, actual) triples shaped like the benchmark's tool responses."""
    yield "identical", [REST], [REST]
    yield "order does not matter", ["a", "b"], ["b", "x", "a"]
    yield "duplicates need one occurrence", ["a", "a"], ["a"]
    yield "whitespace matters", [REST], [REST.replace("\n", "")]
    yield "None equals empty", [None, "x"], ["", "x"]
    yield "empty expected", [], ["anything"]
    yield "both empty", [], []
    yield "no actual", ["x"], []
    yield "peek", [PEEK], ["27.65", PEEK]
    yield "peek with another handle", [PEEK], [PEEK.replace("filtered_book_1", "filtered_book_2")]
    yield "retrieved chunks", [["chunk one", "chunk 'two'"]], [["chunk one", "chunk 'two'"]]
    yield "retrieved chunks reordered", [["chunk one", "chunk two"]], [["chunk two", "chunk one"]]
    yield "chunks with quotes and unicode", [["l'été \"chaud\"", "tab\there"]], [["l'été \"chaud\"", "tab\there"]]
    yield "only the last twenty", ["early"], ["early"] + [f"r{i}" for i in range(20)]
    yield "inside the last twenty", ["early"], ["early"] + [f"r{i}" for i in range(19)]
    yield "error texts match", ["Error calling API: 404"], ["Error calling API: 404"]
    yield "numbers are not normalised", ["23"], ["23.0"]
    yield "several missing", ["a", "b", "c"], ["b"]
    yield "missing with quotes", ["it's", 'say "hi"', "back\\slash"], []
    yield "missing unicode", ["Ünïcode Press", "emoji 🎉"], []
    yield "nested list response", [[["x", 1]]], [[["x", 1]]]
    yield "number responses", [3, 2.5, True], ["3", "2.5", "True"]
    yield "dict response", [{"k": "v"}], ["{'k': 'v'}"]


def main(reference):
    sys.path.insert(0, str(Path(reference) / "evaluator"))
    from judge import ExactMatchJudge  # noqa: E402
    from utils import JudgeInput  # noqa: E402

    judge = ExactMatchJudge()
    out = []
    for name, expected, actual in cases():
        verdict = judge.judge(JudgeInput(
            capability="c", domain="d", query="q", additional_instructions="", gt_answer="",
            pred_answer="", gt_tool_calls=[], pred_tool_calls=[], gt_tool_responses=expected,
            pred_tool_responses=actual))
        out.append({"name": name, "expected": expected, "actual": actual,
                    "score": verdict.score, "explanation": verdict.explanation})
    path = FIXTURES / "exact_match_reference_verdicts.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(out)} verdicts to {path}")


if __name__ == "__main__":
    main(sys.argv[1])

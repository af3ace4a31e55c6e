#!/usr/bin/env python3
"""Capability 4's search side by side with the reference's retriever stack (scripts/retrieval-parity.sh).

Steps, each run in the venv that has what it needs:
    prepare OUT            (any python)  OUT/root: the demo data root without its JSONL documents;
                                         OUT/chunks.json: the demo's chunks plus a synthetic
                                         domain `lexicon` of 1,200 chunks; OUT/questions.json
    embed OUT MODEL        (sentence-transformers)  chunk and question vectors as the reference
                                         computes them: SentenceTransformer(MODEL).encode(texts),
                                         the questions one per call, as its retriever does
    store OUT              (chromadb)    OUT/root/documents: a Chroma store written as the
                                         reference's indexer writes it (ids `<id>_<i>`, metadata,
                                         batches of 5,000), then the questions asked with their
                                         vectors (n_results 10) -> OUT/reference.json
    compare OUT VAKRA_JSON (any python)  vakra's answers against the reference's
"""

import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
N_RESULTS = 10


def prepare(out: Path) -> None:
    import shutil
    root = out / "root"
    if root.exists():
        shutil.rmtree(root)
    for name in ["openapi", "databases", "retrievers"]:
        shutil.copytree(REPO / name, root / name, symlinks=True)
    (root / "documents").mkdir(parents=True)
    chunks = {}
    for path in sorted((REPO / "documents").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        chunks[path.stem] = [{"id": r["id"], "text": r["text"], "metadata": r.get("metadata", {})} for r in rows]
    rng = random.Random(24)
    syllables = ["ka", "lo", "mi", "ra", "tu", "ve", "zo", "ni", "sa", "pe", "do", "gu"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(600)]
    english = ["river", "station", "library", "winter", "budget", "harbour", "garden", "museum"]
    lexicon = []
    for i in range(1200):
        text = " ".join(rng.choice(words + english) for _ in range(rng.randint(12, 60)))
        lexicon.append({"id": f"lex{i // 4}_{i}", "text": f"Entry {i}\n{text}",
                        "metadata": {"doc_id": f"lex{i // 4}", "from_clapnq": i % 3 == 0}})
    chunks["lexicon"] = lexicon
    questions = [{"domain": q["domain"], "question": q["question"]}
                 for q in map(json.loads, (REPO / "demo/documents/questions.jsonl").read_text().splitlines())]
    questions += [{"domain": "lexicon", "question": " ".join(rng.choice(words + english) for _ in range(rng.randint(4, 12))) + "?"}
                  for _ in range(50)]
    negatives = json.loads((root / "retrievers/domain_negatives.json").read_text())
    negatives["lexicon"] = ["lexicon"]
    (root / "retrievers/domain_negatives.json").write_text(json.dumps(negatives))
    descriptions = json.loads((root / "retrievers/domain_description_dict.json").read_text())
    descriptions["lexicon"] = {"description": "This tool can return documents related to a made-up lexicon."}
    (root / "retrievers/domain_description_dict.json").write_text(json.dumps(descriptions))
    (out / "chunks.json").write_text(json.dumps(chunks))
    (out / "questions.json").write_text(json.dumps(questions))
    print(f"{sum(map(len, chunks.values()))} chunks in {len(chunks)} domains, {len(questions)} questions")


def embed(out: Path, model_dir: str) -> None:
    from sentence_transformers import SentenceTransformer
    model = SentenceTransformer(model_dir, device="cpu")
    chunks = json.loads((out / "chunks.json").read_text())
    questions = json.loads((out / "questions.json").read_text())
    vectors = {d: model.encode([c["text"] for c in cs], convert_to_numpy=True).tolist() for d, cs in chunks.items()}
    asked = [model.encode([q["question"]], convert_to_numpy=True)[0].tolist() for q in questions]
    (out / "vectors.json").write_text(json.dumps({"chunks": vectors, "questions": asked}))


def store(out: Path) -> None:
    import chromadb
    chunks = json.loads((out / "chunks.json").read_text())
    vectors = json.loads((out / "vectors.json").read_text())
    questions = json.loads((out / "questions.json").read_text())
    client = chromadb.PersistentClient(path=str(out / "root" / "documents"))
    for domain, rows in chunks.items():
        collection = client.get_or_create_collection(name=domain, embedding_function=None)
        for start in range(0, len(rows), 5000):
            batch = rows[start:start + 5000]
            collection.add(ids=[r["id"] for r in batch], documents=[r["text"] for r in batch],
                           metadatas=[{"doc_id": r["metadata"].get("doc_id", r["id"]),
                                       "from_clapnq": bool(r["metadata"].get("from_clapnq", False))} for r in batch],
                           embeddings=vectors["chunks"][domain][start:start + 5000])
    answers = []
    for question, vector in zip(questions, vectors["questions"]):
        got = client.get_collection(question["domain"]).query(
            query_embeddings=[vector], n_results=N_RESULTS, include=["documents", "distances"])
        answers.append({"ids": got["ids"][0], "distances": got["distances"][0], "texts": got["documents"][0]})
    (out / "reference.json").write_text(json.dumps(answers))


def compare(out: Path, vakra_json: Path) -> None:
    reference = json.loads((out / "reference.json").read_text())
    ours = json.loads(vakra_json.read_text())
    questions = json.loads((out / "questions.json").read_text())
    same_lists = same_texts = same_as_sets = 0
    worst = 0.0
    for question, ref, got in zip(questions, reference, ours):
        ids = [r["id"] for r in got["results"]]
        texts = [r["text"] for r in got["results"]]
        same_lists += ids == ref["ids"]
        same_texts += texts == ref["texts"]
        same_as_sets += set(ids) == set(ref["ids"])
        by_id = {r["id"]: r["distance"] for r in got["results"]}
        for i, d in zip(ref["ids"], ref["distances"]):
            if i in by_id:
                worst = max(worst, abs(by_id[i] - d))
        if ids != ref["ids"]:
            first = next(k for k in range(len(ids)) if ids[k] != ref["ids"][k])
            print(f"differs at rank {first + 1}: {question['domain']}: {question['question'][:60]!r} "
                  f"ours {ids[first]} {got['results'][first]['distance']:.7f}, reference {ref['ids'][first]} {ref['distances'][first]:.7f}")
    n = len(questions)
    print(f"{n} questions: same ordered list {same_lists}/{n}, same texts in order {same_texts}/{n}, "
          f"same set {same_as_sets}/{n}; largest distance difference {worst:.2e}")


if __name__ == "__main__":
    step, rest = sys.argv[1], sys.argv[2:]
    {"prepare": lambda: prepare(Path(rest[0])), "embed": lambda: embed(Path(rest[0]), rest[1]),
     "store": lambda: store(Path(rest[0])), "compare": lambda: compare(Path(rest[0]), Path(rest[1]))}[step]()

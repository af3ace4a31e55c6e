#!/usr/bin/env python3
"""Writes Chroma stores with the real `chromadb` package for the tests and benchmarks of
capability 4's stored-vector search, and what chromadb itself answers for them. Texts, ids and
vectors are synthetic (a fixed numpy seed); vectors are given explicitly, so no model is needed.

    python scripts/make_chroma_store.py tests OUT
        OUT/root/documents/          one store, three collections, the shapes Chroma keeps:
            alpha  300 × 384  vectors only in the log (below the sync threshold)
            beta  1000 × 768  vectors in the HNSW folder (persisted at the threshold)
            gamma 1500 × 384  HNSW folder plus a log tail, with an update, an upsert and a
                              delete after the folder was written
        OUT/wrongdim/documents/      the store with alpha's dimension altered (384 → 385)
        OUT/partial/documents/       the store with beta's data_level0.bin cut short
        OUT/cosine/documents/        the store with alpha's distance set to cosine
        OUT/expected.json            per collection: query vectors; for 5 and all neighbours,
                                     chromadb's ids and distances, and the exact neighbours
                                     (ids and distances as hnswlib computes them)
    python scripts/make_chroma_store.py bench OUT CHUNKS DIM
        OUT/root/documents/          one collection `bench` of CHUNKS × DIM vectors
        OUT/root/documents/bench.jsonl  the same chunks without vectors (to time embedding)
        OUT/words.txt                the words the texts use (for a benchmark model's vocabulary)
        OUT/questions.json           questions over those words
"""

import json
import shutil
import sys
from pathlib import Path

import chromadb
import numpy as np

SYLLABLES = ["ka", "lo", "mi", "ra", "tu", "ve", "zo", "ni", "sa", "pe", "do", "gu"]


def words(rng, count):
    vocabulary = ["".join(rng.choice(SYLLABLES, size=rng.integers(2, 4))) for _ in range(400)]
    return vocabulary, [" ".join(rng.choice(vocabulary, size=rng.integers(8, 40))) for _ in range(count)]


def chunks(rng, count, dim, prefix):
    vocabulary, texts = words(rng, count)
    ids = [f"{prefix}{i // 3}_{i}" for i in range(count)]
    metadatas = [{"doc_id": f"{prefix}{i // 3}", "from_clapnq": bool(i % 2)} for i in range(count)]
    vectors = rng.standard_normal((count, dim)).astype(np.float32)
    titled = [f"Title {ids[i]}\n{texts[i]}" for i in range(count)]
    return ids, titled, metadatas, vectors, vocabulary


def add(collection, ids, texts, metadatas, vectors, batch=500):
    for start in range(0, len(ids), batch):
        end = start + batch
        collection.add(ids=ids[start:end], documents=texts[start:end],
                       metadatas=metadatas[start:end], embeddings=vectors[start:end].tolist())


def hnsw_l2(vectors, query):
    """Squared L2 as hnswlib sums it for Chroma: 4 float32 lanes, then left to right."""
    diff = (vectors - query).astype(np.float32)
    squares = (diff * diff).astype(np.float32)
    dim = squares.shape[1]
    head = dim if dim % 4 == 0 else (dim // 16 * 16 if dim > 16 else dim // 4 * 4)
    lanes = np.cumsum(squares[:, :head].reshape(len(vectors), head // 4, 4), axis=1, dtype=np.float32)[:, -1, :]
    total = ((lanes[:, 0] + lanes[:, 1]) + lanes[:, 2]) + lanes[:, 3]
    if head < dim:
        tail = np.cumsum(squares[:, head:], axis=1, dtype=np.float32)[:, -1]
        total = (total + tail).astype(np.float32)
    return total.astype(np.float32)


def expected_for(collection, ids, vectors, rng, queries=12):
    dim = vectors.shape[1]
    asked = rng.standard_normal((queries, dim)).astype(np.float32)
    out = {"queries": asked.tolist(), "answers": []}
    for k in (5, len(ids)):
        got = collection.query(query_embeddings=asked.tolist(), n_results=k,
                               include=["distances", "documents", "metadatas"])
        exact = []
        for q in asked:
            distances = hnsw_l2(vectors, q)
            order = sorted(range(len(ids)), key=lambda i: (distances[i], ids[i].encode()))[:k]
            exact.append({"ids": [ids[i] for i in order],
                          "distances": [float(distances[i]) for i in order]})
        out["answers"].append({"k": k, "chroma": {"ids": got["ids"], "distances": got["distances"]},
                               "exact": exact})
    return out


def tests(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    store = out / "root" / "documents"
    client = chromadb.PersistentClient(path=str(store))
    rng = np.random.default_rng(20261128)
    expected = {}
    for name, count, dim in [("alpha", 300, 384), ("beta", 1000, 768), ("gamma", 1500, 384)]:
        collection = client.get_or_create_collection(name=name)
        ids, texts, metadatas, vectors, _ = chunks(rng, count, dim, name[0])
        add(collection, ids, texts, metadatas, vectors, batch=1000 if name == "beta" else 500)
        if name == "gamma":
            # After the folder holds the first 1,000: change one persisted vector, upsert one,
            # delete one; all three live only in the log.
            vectors[3] = rng.standard_normal(dim).astype(np.float32)
            collection.update(ids=[ids[3]], embeddings=[vectors[3].tolist()])
            vectors[1200] = rng.standard_normal(dim).astype(np.float32)
            collection.upsert(ids=[ids[1200]], embeddings=[vectors[1200].tolist()],
                              documents=[texts[1200]], metadatas=[metadatas[1200]])
            collection.delete(ids=[ids[7]])
            keep = [i for i in range(count) if i != 7]
            ids, vectors = [ids[i] for i in keep], vectors[keep]
        expected[name] = expected_for(collection, ids, vectors, rng)
    del client
    for case in ("wrongdim", "partial", "cosine"):
        shutil.copytree(out / "root", out / case)
    import sqlite3
    connection = sqlite3.connect(out / "wrongdim" / "documents" / "chroma.sqlite3")
    connection.execute("UPDATE collections SET dimension = 385 WHERE name = 'alpha'")
    connection.commit()
    connection.close()
    connection = sqlite3.connect(out / "cosine" / "documents" / "chroma.sqlite3")
    connection.execute("UPDATE collections SET schema_str = replace(schema_str, '\"space\":\"l2\"', "
                       "'\"space\":\"cosine\"') WHERE name = 'alpha'")
    connection.commit()
    connection.close()
    connection = sqlite3.connect(out / "partial" / "documents" / "chroma.sqlite3")
    (segment,) = connection.execute(
        "SELECT s.id FROM segments s JOIN collections c ON s.collection = c.id "
        "WHERE c.name = 'beta' AND s.scope = 'VECTOR'").fetchone()
    connection.close()
    data = out / "partial" / "documents" / segment / "data_level0.bin"
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
    (out / "expected.json").write_text(json.dumps(expected))
    print(out)


def bench(out: Path, count: int, dim: int) -> None:
    if out.exists():
        shutil.rmtree(out)
    store = out / "root" / "documents"
    client = chromadb.PersistentClient(path=str(store))
    rng = np.random.default_rng(7)
    collection = client.get_or_create_collection(name="bench")
    ids, texts, metadatas, vectors, vocabulary = chunks(rng, count, dim, "b")
    add(collection, ids, texts, metadatas, vectors, batch=5000)
    with open(store / "bench.jsonl", "w") as f:
        for i in range(count):
            f.write(json.dumps({"id": ids[i], "text": texts[i], "metadata": metadatas[i]}) + "\n")
    (out / "words.txt").write_text("\n".join(vocabulary + ["title"] + ids) + "\n")
    _, questions = words(np.random.default_rng(8), 200)
    (out / "questions.json").write_text(json.dumps([q[:80] for q in questions]))
    print(out)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "tests":
        tests(Path(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == "bench":
        bench(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)

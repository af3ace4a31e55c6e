#!/usr/bin/env python3
"""Makes tiny random ModernBERT sentence-embedding models and their reference embeddings, to
check the `dense` feature's ModernBERT encoder against Hugging Face transformers without the
real (granite-embedding-english-r2) weights. The models' output is the committed test fixture
crates/vakra-embed/tests/fixtures/modernbert-tiny (random weights and a small WordPiece
vocabulary made here, so both are this project's). Rerunning it needs torch, transformers and
sentence-transformers (a few GB), e.g. in a throw-away venv:

    python3 -m venv /tmp/mbvenv
    /tmp/mbvenv/bin/pip install torch transformers safetensors sentence-transformers
    /tmp/mbvenv/bin/python crates/vakra-embed/scripts/modernbert-reference.py \
        crates/vakra-embed/tests/fixtures/modernbert-tiny
    cargo test -p vakra-retrieval --features dense --lib modernbert -- --nocapture

OUT gets two model folders (weights of 32 dimensions, under 200 KB each):

    OUT/cls/     transformers' current config form (layer_types, rope_parameters);
                 CLS pooling, then Normalize (the layout of granite-embedding-english-r2)
    OUT/mean/    the same weights with the older config form (global_rope_theta,
                 global_attn_every_n_layers, ...); mean pooling, no Normalize

each with `reference.json`: the texts and the embeddings SentenceTransformer.encode gives.
"""

import json
import shutil
import sys
from pathlib import Path

import torch
from sentence_transformers import SentenceTransformer
from tokenizers import BertWordPieceTokenizer
from transformers import BertTokenizerFast, ModernBertConfig, ModernBertModel

TEXTS = [
    "Which branch of the library opens earliest on Sundays?",
    "short",
    "A much longer passage, so that the sliding-window layers see tokens beyond their window: "
    "the weather station on the ridge recorded the highest wind speed of the winter, and the "
    "one in the valley the lowest temperature, while the library kept its reading room open.",
    "Numbers 12345 and punctuation; (brackets), quotes \"like these\" - and UPPER case.",
]

HIDDEN = 32
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
PUNCTUATION = ".,;:()\"'-?!"
WORDS = ["the", "and", "of", "library", "weather", "station", "branch", "wind", "##s", "##ing"]


def vocabulary() -> list:
    """A small uncased WordPiece vocabulary: specials, characters, continuations, a few words."""
    return SPECIAL + list(CHARS) + list(PUNCTUATION) + ["##" + c for c in CHARS] + WORDS


def tokenizer(work: Path) -> BertTokenizerFast:
    work.mkdir(parents=True, exist_ok=True)
    vocab = work / "vocab.txt"
    vocab.write_text("\n".join(vocabulary()) + "\n")
    wordpiece = BertWordPieceTokenizer(str(vocab), lowercase=True)
    wordpiece.save(str(work / "tokenizer.json"))
    return BertTokenizerFast(
        tokenizer_file=str(work / "tokenizer.json"),
        do_lower_case=True,
        model_max_length=128,
        unk_token="[UNK]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        mask_token="[MASK]",
    )


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def sentence_transformers_files(folder: Path, cls: bool, normalize: bool) -> None:
    kinds = [("", "Transformer"), ("1_Pooling", "Pooling")]
    if normalize:
        kinds.append(("2_Normalize", "Normalize"))
        (folder / "2_Normalize").mkdir(parents=True, exist_ok=True)
    modules = [
        {"idx": i, "name": str(i), "path": path, "type": f"sentence_transformers.models.{kind}"}
        for i, (path, kind) in enumerate(kinds)
    ]
    write_json(folder / "modules.json", modules)
    write_json(
        folder / "1_Pooling" / "config.json",
        {
            "word_embedding_dimension": HIDDEN,
            "pooling_mode_cls_token": cls,
            "pooling_mode_mean_tokens": not cls,
            "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
        },
    )
    write_json(folder / "sentence_bert_config.json", {"max_seq_length": 128, "do_lower_case": False})


def reference(folder: Path) -> float:
    model = SentenceTransformer(str(folder), device="cpu")
    embeddings = model.encode(TEXTS, batch_size=len(TEXTS), convert_to_numpy=True)
    one_by_one = [model.encode([t], convert_to_numpy=True)[0] for t in TEXTS]
    spread = max(float(abs(a - b).max()) for a, b in zip(embeddings, one_by_one))
    write_json(
        folder / "reference.json",
        {"texts": TEXTS, "embeddings": [[float(x) for x in row] for row in embeddings]},
    )
    return spread


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    tok = tokenizer(out / "_vocab")
    ids = tok.convert_tokens_to_ids
    torch.manual_seed(20261121)
    config = ModernBertConfig(
        vocab_size=len(vocabulary()),
        hidden_size=HIDDEN,
        intermediate_size=48,
        num_hidden_layers=4,
        num_attention_heads=4,
        max_position_embeddings=256,
        local_attention=16,
        global_attn_every_n_layers=3,
        pad_token_id=ids("[PAD]"),
        bos_token_id=ids("[CLS]"),
        cls_token_id=ids("[CLS]"),
        eos_token_id=ids("[SEP]"),
        sep_token_id=ids("[SEP]"),
        initializer_range=0.2,
    )
    model = ModernBertModel(config).eval()
    with torch.no_grad():
        # Random norms, so that their weights are exercised too (initialised to ones).
        for name, parameter in model.named_parameters():
            if "norm" in name:
                parameter.copy_(1.0 + 0.3 * torch.randn_like(parameter))
    for sub, cls, normalize in [("cls", True, True), ("mean", False, False)]:
        folder = out / sub
        if folder.exists():
            shutil.rmtree(folder)
        model.save_pretrained(str(folder), safe_serialization=True)
        tok.save_pretrained(str(folder))
        sentence_transformers_files(folder, cls, normalize)
        if sub == "mean":
            legacy = json.loads((folder / "config.json").read_text())
            legacy.pop("layer_types", None)
            rope = legacy.pop("rope_parameters", None) or {}
            legacy["global_rope_theta"] = rope.get("full_attention", {}).get("rope_theta", 160000.0)
            legacy["local_rope_theta"] = rope.get("sliding_attention", {}).get("rope_theta", 10000.0)
            legacy["global_attn_every_n_layers"] = 3
            write_json(folder / "config.json", legacy)
        spread = reference(folder)
        lengths = [len(tok(t)["input_ids"]) for t in TEXTS]
        print(f"{folder}: tokens per text {lengths}; batch vs one-by-one max abs diff {spread:.2e}")
    shutil.rmtree(out / "_vocab")


if __name__ == "__main__":
    main()

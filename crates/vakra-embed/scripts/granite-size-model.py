#!/usr/bin/env python3
"""Makes a sentence-embedding model of the reference retriever's size class for benchmarks:
a ModernBERT with random weights and the dimensions granite-embedding-english-r2 publishes
(22 layers, hidden 768, intermediate 1152, 12 heads, global attention every 3rd layer, local
window 128; ~149 M parameters), CLS pooling then Normalize, and a WordPiece vocabulary of the
benchmark's synthetic words (so a question is about one token per word, as with a real
vocabulary). Its embeddings mean nothing; its cost per query is the real model's.

    /path/to/venv-with-torch-transformers-sentence-transformers/bin/python \
        crates/vakra-embed/scripts/granite-size-model.py OUT WORDS_FILE
"""

import json
import sys
from pathlib import Path

import torch
from tokenizers import BertWordPieceTokenizer
from transformers import BertTokenizerFast, ModernBertConfig, ModernBertModel

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
CHARS = "abcdefghijklmnopqrstuvwxyz0123456789.,;:()\"'-?!"


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, words = Path(sys.argv[1]), Path(sys.argv[2]).read_text().split()
    out.mkdir(parents=True, exist_ok=True)
    vocabulary = SPECIAL + list(CHARS) + ["##" + c for c in CHARS] + sorted(set(words))
    (out / "vocab.txt").write_text("\n".join(vocabulary) + "\n")
    BertWordPieceTokenizer(str(out / "vocab.txt"), lowercase=True).save(str(out / "tokenizer.json"))
    tok = BertTokenizerFast(tokenizer_file=str(out / "tokenizer.json"), do_lower_case=True,
                            model_max_length=8192)
    ids = tok.convert_tokens_to_ids
    torch.manual_seed(20261128)
    config = ModernBertConfig(
        vocab_size=len(vocabulary), hidden_size=768, intermediate_size=1152,
        num_hidden_layers=22, num_attention_heads=12, max_position_embeddings=8192,
        local_attention=128, global_attn_every_n_layers=3,
        pad_token_id=ids("[PAD]"), bos_token_id=ids("[CLS]"), cls_token_id=ids("[CLS]"),
        eos_token_id=ids("[SEP]"), sep_token_id=ids("[SEP]"),
    )
    model = ModernBertModel(config).eval()
    model.save_pretrained(str(out), safe_serialization=True)
    tok.save_pretrained(str(out))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]
    write_json(out / "modules.json", modules)
    (out / "2_Normalize").mkdir(exist_ok=True)
    write_json(out / "1_Pooling" / "config.json", {
        "word_embedding_dimension": 768, "pooling_mode_cls_token": True,
        "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    })
    write_json(out / "sentence_bert_config.json", {"max_seq_length": 8192, "do_lower_case": False})
    params = sum(p.numel() for p in model.parameters())
    print(f"{out}: {params / 1e6:.0f} M parameters, vocabulary {len(vocabulary)}")


if __name__ == "__main__":
    main()

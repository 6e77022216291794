"""Training pairs for the support model: (claim, span) -> supported / contradicted / not stated.

Sources (../shared/corpus; licences in workbench/judgment/model/MODEL_CARD.md):
- nli/vitaminc (real + synthetic): SUPPORTS / REFUTES / NOT ENOUGH INFO, contrastive (one changed
  number, date or name flips the label). Split **by Wikipedia page** (SHA-1 of the page name):
  test 10 % (the held-out figure, never trained or tuned on), calib 5 %, train 85 %.
- nli/docnli-binary (MultiNLI, FEVER): entailment / not_entailment only. They carry no
  contradiction label, so their rows are binary (`yb`): the loss reads P(supported) alone.
  5 % calib, the rest train.
- train/out/pairs.jsonl (train/build_pairs.py, CUAD by contract: train / calib / test): fact and
  category claims on the gold sentence (supported), the same clause with another contract's fact
  or the claim's fact swapped (contradicted: the clause states another value), a claim against
  a similar sentence that is not its clause, and off-topic claims (not stated).
- contract-nli/train_truncated.json (50 NDAs x 17 hypotheses) unless --no-contractnli: evidence
  spans of an Entailment (supported) or a Contradiction (contradicted), and the lexically closest
  non-evidence spans (not stated). ContractNLI dev is never read here.

Rows: {"src", "split", "a" (claim), "b" (span), "y" (0 supported, 1 contradicted, 2 not stated)
or "yb" (1 entailed, 0 not)}.

    .venv/bin/python train/build_nli.py --pairs train/out/pairs.jsonl --out train/out/nli.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
LABELS = ("supported", "contradicted", "not_stated")
VITAMINC = {"SUPPORTS": 0, "REFUTES": 1, "NOT ENOUGH INFO": 2}


def page_split(page: str) -> str:
    """VitaminC's split by Wikipedia page: its pairs come in contrasting sets about one page, so
    a page is wholly in one split."""
    h = int(hashlib.sha1(page.encode()).hexdigest(), 16) % 100
    return "test" if h < 10 else "calib" if h < 15 else "train"


_DETOK = [(" .", "."), (" ,", ","), (" ;", ";"), (" :", ":"), (" 's", "'s"), (" n't", "n't"), ("-LRB- ", "("),
          (" -RRB-", ")"), ("-LRB-", "("), ("-RRB-", ")"), ("\ufffd", " "), (" %", "%"), ("$ ", "$")]


def detok(text: str) -> str:
    """Wikipedia dump tokenisation back to written text ("Westlife 's" -> "Westlife's"), as a PDF reads."""
    for a, b in _DETOK:
        text = text.replace(a, b)
    return re.sub(r"\s+", " ", text).strip()


def vitaminc():
    for name in ("real", "synthetic"):
        for line in (CORPUS / "nli" / "vitaminc" / f"{name}.jsonl").open():
            r = json.loads(line)
            yield dict(src=f"vitaminc-{name}", split=page_split(r["page"]), page=r["page"], a=detok(r["claim"]),
                       b=detok(r["evidence"]), y=VITAMINC[r["label"]])


def docnli(rng: random.Random):
    for name in ("mnli_dev", "mnli_test", "fever_dev", "fever_test"):
        for line in (CORPUS / "nli" / "docnli-binary" / f"{name}.tsv").open():
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[0] not in ("entailment", "not_entailment"):
                continue
            label, premise, hypothesis = parts
            yield dict(src=name.split("_")[0], split="calib" if rng.random() < 0.05 else "train",
                       a=detok(hypothesis), b=detok(premise), yb=int(label == "entailment"))


def cuad(pairs: Path):
    """CUAD support rows of build_pairs: supported, a swapped fact (contradicted) or another clause."""
    for line in pairs.open():
        r = json.loads(line)
        if r["kind"] != "sup":
            continue
        y = 0 if r["label"] == 1 else 1 if r.get("rel") == 1 else 2
        yield dict(src="cuad" if r["cat"] != "off-topic" else "off-topic", split=r["split"], a=r["a"], b=r["b"],
                   y=y, doc=r["doc"], **({"swapped": True} if r.get("swapped") else {}),
                   **({"fact": True} if r.get("fact") else {}))


def contractnli(rng: random.Random):
    """ContractNLI train: every hypothesis of the 50 NDAs. Evidence spans state or contradict the
    hypothesis; the closest spans that are not evidence (by shared words) do not say."""
    import sys

    sys.path.insert(0, str(ROOT))
    from train.build_pairs import BM25

    data = json.loads((CORPUS / "contract-nli" / "train_truncated.json").read_text())
    hyp = {k: v["hypothesis"] for k, v in data["labels"].items()}
    for doc in data["documents"]:
        text = doc["text"]
        stexts = [re.sub(r"\s+", " ", text[s:e]).strip() for s, e in doc["spans"]]
        ok = [i for i, t in enumerate(stexts) if len(t.split()) >= 4]
        bm = BM25([stexts[i] for i in ok])
        for key, a in doc["annotation_sets"][0]["annotations"].items():
            base = dict(src="contractnli", split="train", doc=doc["id"], a=hyp[key])
            if a["choice"] in ("Entailment", "Contradiction"):
                for i in a["spans"][:4]:
                    yield dict(base, b=stexts[i], y=0 if a["choice"] == "Entailment" else 1)
            sc = bm.scores(hyp[key])
            order = sorted(range(len(ok)), key=lambda j: -sc[j])
            negs = [ok[j] for j in order if ok[j] not in a["spans"]]
            for n in negs[:2] + rng.sample(negs[2:12], min(1, len(negs[2:12]))):
                yield dict(base, b=stexts[n], y=2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", default=str(ROOT / "train" / "out" / "pairs.jsonl"), help="build_pairs.py's output")
    ap.add_argument("--out", default=str(ROOT / "train" / "out" / "nli.jsonl"))
    ap.add_argument("--no-contractnli", action="store_true", help="leave ContractNLI's training NDAs out")
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    n: Counter = Counter()
    sources = [vitaminc(), docnli(rng), cuad(Path(args.pairs))]
    if not args.no_contractnli:
        sources.append(contractnli(rng))
    with out.open("w") as f:
        for source in sources:
            for row in source:
                if not row["a"] or not row["b"]:
                    continue
                n[(row["src"], row["split"], row.get("y", f"b{row.get('yb', -1)}"))] += 1
                f.write(json.dumps(row) + "\n")
    for k in sorted(n, key=str):
        print(*k, n[k])
    print("wrote", out, sum(n.values()), "rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Claim checking on ContractNLI dev (61 NDAs x 17 hypotheses) through the product: `verify`.

Each dev NDA is rendered to a PDF (pymupdf.Story, as ../shared/tools/check_cli.py does),
ingested into a bench workspace, and its 17 hypotheses are checked as claims by
`Workbench.check_claims` — the engine `ask` and `verify` share (retrieval, whole units, the
judge, the fact gate). No dev document was trained or calibrated on (held out by contract); the
9 hypotheses outside train/build_pairs.TRAIN_HYPS were never trained on either (held out by
hypothesis) and are the headline figure. Reported:

- balanced accuracy, Entailment vs (Contradiction + NotMentioned): a hypothesis is predicted
  entailed when `verify` calls it supported;
- evidence recall@5: one of the (up to) five spans `verify` returns covers at least half of a
  gold evidence span (gold character spans located in the PDF's text), over the hypotheses with
  gold evidence (Entailment and Contradiction).

    .venv/bin/python -m bench.bench_contractnli [--docs N] [--workspace DIR]

(run from the repository root, or with PYTHONPATH naming the checkout to measure). Per-claim
results go to bench/out/bench_contractnli.json."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "corpus" / "contract-nli" / "dev.json"
OUT = ROOT / "bench" / "out"


def balanced_accuracy(y, pred) -> float:
    y, pred = np.asarray(y, bool), np.asarray(pred, bool)
    return 0.5 * (pred[y].mean() + (~pred[~y]).mean())


def covers(span, gold: list[tuple[int, int]]) -> bool:
    return any(min(span.end, e) - max(span.start, s) >= 0.5 * (e - s) for s, e in gold)


def contradiction_f1(rows: list[dict]) -> tuple[float, int]:
    """F1 of the verdict "contradicted" against ContractNLI's Contradiction label, and the count of those."""
    y = np.array([r["label"] == "Contradiction" for r in rows])
    pred = np.array([r.get("verdict") == "contradicted" for r in rows])
    tp = float((y & pred).sum())
    return (round(2 * tp / max(1.0, y.sum() + pred.sum()), 3), int(y.sum()))


def report(rows: list[dict], name: str) -> dict:
    y = np.array([r["label"] == "Entailment" for r in rows])
    pred = np.array([r["supported"] for r in rows])
    with_gold = [r for r in rows if r["gold"]]
    out = {"n": len(rows), "balanced_accuracy": round(float(balanced_accuracy(y, pred)), 3),
           "supported_when_entailed": round(float(pred[y].mean()), 3),
           "supported_otherwise": round(float(pred[~y].mean()), 3),
           "recall_at_5": round(float(np.mean([r["hit"] for r in with_gold])), 3), "with_gold": len(with_gold)}
    out["contradiction_f1"], out["contradictions"] = contradiction_f1(rows)
    plain = [r for r in rows if not r.get("facts_differ")]
    out["contradiction_f1_no_fact_differs"], out["contradictions_no_fact_differs"] = contradiction_f1(plain)
    print(f"  {name:32s} n={out['n']:4d}  balanced accuracy {out['balanced_accuracy']:.3f} (supported: entailed "
          f"{out['supported_when_entailed']:.2f}, others {out['supported_otherwise']:.2f}); evidence recall@5 "
          f"{out['recall_at_5']:.3f} (n={out['with_gold']}); contradiction F1 {out['contradiction_f1']:.3f} "
          f"(n={out['contradictions']}), where no fact differs {out['contradiction_f1_no_fact_differs']:.3f} "
          f"(n={out['contradictions_no_fact_differs']})")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=None, help="first N documents only")
    ap.add_argument("--workspace", default=str(OUT / "contractnli_ws"), help="kept between runs: ingest once")
    ap.add_argument("--tag", default="", help="suffix of the output file")
    ap.add_argument("--judge", default="shipped", help="shipped (engine.get_judge), lexical, model or blend")
    ap.add_argument("--split", default="dev", choices=("dev", "train"),
                    help="train: the 50 NDAs of ContractNLI train instead (a development check, not a figure to report)")
    ap.add_argument("--dump", default="", help="write every claim's candidate units, support scores and gold "
                    "flags to this pickle (to study the ranking)")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from bench.common import use_judge

    use_judge(a.judge)
    sys.path.insert(0, str(ROOT))
    import workbench
    from bench.common import render_text_pdf
    from train.build_pairs import TRAIN_HYPS
    from workbench.config import Settings
    from workbench.judgment.facts import compare
    from workbench.service import Workbench

    print(f"workbench from {Path(workbench.__file__).resolve().parent}", file=sys.stderr)
    data = json.loads((DEV if a.split == "dev" else DEV.with_name("train_truncated.json")).read_text())
    dump: list[dict] = []
    hyp = {k: v["hypothesis"] for k, v in data["labels"].items()}
    keys = sorted(hyp)
    ws = Path(a.workspace if a.split == "dev" else a.workspace + "_train")
    (ws / "pdf").mkdir(parents=True, exist_ok=True)
    wb = Workbench(Settings(data_dir=ws))
    rows: list[dict] = []
    unmapped = total_gold = 0
    t_check = 0.0
    for doc in data["documents"][:a.docs]:
        pdf = ws / "pdf" / f"{doc['id']}.pdf"
        if not pdf.exists():
            render_text_pdf(doc["text"], pdf)
        d = wb.ingest(str(pdf), source_type="contract")
        parsed = wb.parsed(d.id)
        wb.check_claims([hyp[keys[0]]], [d.id])  # builds the indexes: not part of the per-claim time
        t = time.perf_counter()
        checks = wb.check_claims([hyp[k] for k in keys], [d.id])
        t_check += time.perf_counter() - t
        ann = doc["annotation_sets"][0]["annotations"]
        for k, c in zip(keys, checks, strict=True):
            gold = []
            for si in ann[k]["spans"]:
                s, e = doc["spans"][si]
                text = doc["text"][s:e].strip()
                if sum(ch.isalnum() for ch in text) < 3:
                    continue  # signature lines, blanks
                total_gold += 1
                sp = parsed.locate(text)
                if sp is None:
                    unmapped += 1
                else:
                    gold.append((sp.start, sp.end))
            if a.dump:
                from workbench.backends import engine
                from workbench.pipeline.claims import EVIDENCE_MAX_WORDS
                from workbench.pipeline.context import DocsContext

                units = engine.units_for(hyp[k], DocsContext([parsed], wb.retriever), {}, min_words=10,
                                         max_words=EVIDENCE_MAX_WORDS, join=False)  # as check_claim reads them
                from workbench.text.weights import weights_for

                judge, texts = engine.get_judge(), [u.judged for u in units]
                wts = [weights_for(u.document_id) for u in units]
                dump.append({"doc": doc["id"], "hyp": k, "claim": hyp[k], "label": ann[k]["choice"],
                             "units": [u.text for u in units],
                             "features": judge.features(hyp[k], texts, wts, ("coverage", "cosine", "soft")),
                             "matches": judge.word_matches(hyp[k], texts, wts),
                             "gold": [covers(u, gold) for u in units],
                             "support": engine.SCORES("support", hyp[k], texts,
                                                      [u.document_id for u in units]).tolist()})
            gold_texts = [doc["text"][slice(*doc["spans"][si])] for si in ann[k]["spans"]]
            rows.append({"doc": doc["id"], "hyp": k, "label": ann[k]["choice"], "supported": c.supported,
                         "verdict": c.verdict, "facts_differ": any(compare(hyp[k], t).conflicts for t in gold_texts),
                         "score": c.score, "gold": gold, "hit": any(covers(sp, gold) for sp in c.evidence),
                         "reason": c.reason})
    print(f"ContractNLI dev through `verify`: {len({r['doc'] for r in rows})} NDAs, {len(rows)} claims; "
          f"warm {t_check / max(1, len(rows)) * 1000:.0f} ms per claim; gold spans located {total_gold - unmapped}"
          f"/{total_gold}")
    held = [r for r in rows if r["hyp"] not in TRAIN_HYPS]
    summary = {"held_out_hypotheses": report(held, "dev, 9 held-out hypotheses"),
               "trained_hypotheses": report([r for r in rows if r["hyp"] in TRAIN_HYPS],
                                            "dev, 8 hypotheses trained on"),
               "all": report(rows, "dev, all 17 hypotheses"),
               "ms_per_claim_warm": round(t_check / max(1, len(rows)) * 1000, 1)}
    if a.dump:
        import pickle

        Path(a.dump).write_bytes(pickle.dumps(dump))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"bench_contractnli{a.tag}.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

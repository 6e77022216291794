"""Does calibrating on reviewers' labels help? ContractNLI dev claims, reviewers simulated by the
gold labels on part of the documents, agreement measured on the other documents only.

Each NDA is rendered to a PDF, ingested into a scratch workspace and every hypothesis checked
through the product (`Workbench.check_claims`): a score and a supported/unsupported verdict per
(NDA, hypothesis). Gold: Entailment = supported; Contradiction and NotMentioned = unsupported.
Documents are split in two halves; the simulated reviewers label one half, the calibration
(workbench.calibration.calibrate: threshold on the score, applied only if its own grouped
cross-validation on those labels says it helps) is fitted there, and Cohen's kappa / balanced
accuracy of the verifier's verdicts (before) and of the calibrated verdicts (after) are measured
on the held-out half. Then the halves swap. Checks are cached in bench/out/calibrate-rows.json.

This measures the calibration *function* on the claim checker's cached scores. The product fits
it with `workbench calibrate --claims` on checked drafts' sentence labels and passes the threshold
into the claim checker, where the fact check still runs; "after" here is `score >= threshold`,
which also flips claims the fact check rejected (their score is capped just under 0.5) once the
threshold falls below it. bench_calibrate_product.py measures `workbench calibrate` (the question
verifier) end to end.

    .venv/bin/python bench/bench_calibrate.py [--docs 24]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from workbench.config import get_settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import render_text_pdf  # noqa: E402

DEV = ROOT.parent / "shared" / "corpus" / "contract-nli" / "dev.json"
OUT = ROOT / "bench" / "out"


def collect(n_docs: int) -> list[dict]:
    cache = OUT / "calibrate-rows.json"
    rows: list[dict] = json.loads(cache.read_text()) if cache.exists() else []
    done = {r["doc"] for r in rows}
    data = json.loads(DEV.read_text())
    keys = sorted(data["labels"])
    hyps = [data["labels"][k]["hypothesis"] for k in keys]
    todo = [d for d in data["documents"][:n_docs] if d["id"] not in done]
    if todo:
        os.environ["WORKBENCH_DATA_DIR"] = tempfile.mkdtemp(prefix="wb-bench-cal-")
        os.environ["WORKBENCH_INDEX_ON_INGEST"] = "false"
        from workbench.service import Workbench

        wb = Workbench(get_settings())
        OUT.mkdir(parents=True, exist_ok=True)
        for i, doc in enumerate(todo, 1):
            t = time.perf_counter()
            pdf = Path(tempfile.mkdtemp()) / f"{doc['id']}.pdf"
            render_text_pdf(doc["text"], pdf)
            d = wb.ingest(pdf, source_type="contract")
            checks = wb.check_claims(hyps, [d.id])
            gold = doc["annotation_sets"][0]["annotations"]
            for k, c in zip(keys, checks, strict=True):
                rows.append({"doc": doc["id"], "hypothesis": k, "score": c.score, "verifier": c.supported,
                             "gold": gold[k]["choice"] == "Entailment"})
            cache.write_text(json.dumps(rows))
            print(f"[{i}/{len(todo)}] {doc['id']} {time.perf_counter() - t:.1f}s", file=sys.stderr)
    keep = {d["id"] for d in data["documents"][:n_docs]}
    return [r for r in rows if r["doc"] in keep]


def main() -> None:
    from workbench.calibration import balanced_accuracy, calibrate, cohen_kappa

    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=24)
    args = ap.parse_args()
    rows = collect(args.docs)
    docs = list(dict.fromkeys(r["doc"] for r in rows))
    halves = [set(docs[: len(docs) // 2]), set(docs[len(docs) // 2:])]
    report = {"docs": len(docs), "claims": len(rows), "folds": []}
    pooled = {"truth": [], "before": [], "after": []}
    for name, labelled in (("A labelled, B held out", halves[0]), ("B labelled, A held out", halves[1])):
        train = [r for r in rows if r["doc"] in labelled]
        test = [r for r in rows if r["doc"] not in labelled]
        cal = calibrate([r["score"] for r in train], [r["verifier"] for r in train], [r["gold"] for r in train],
                        [r["doc"] for r in train], cal_id=name)
        decide = (lambda r, t=cal.threshold: r["score"] >= t) if cal.applied else (lambda r: r["verifier"])
        truth = [r["gold"] for r in test]
        before = [r["verifier"] for r in test]
        after = [decide(r) for r in test]
        pooled["truth"] += truth
        pooled["before"] += before
        pooled["after"] += after
        report["folds"].append({
            "split": name, "labelled_claims": len(train), "held_out_claims": len(test),
            "threshold": cal.threshold, "applied": cal.applied, "cv_on_labels": cal.reason,
            "kappa_before": cohen_kappa(truth, before), "kappa_after": cohen_kappa(truth, after),
            "balanced_accuracy_before": balanced_accuracy(truth, before),
            "balanced_accuracy_after": balanced_accuracy(truth, after)})
    report["held_out_pooled"] = {
        "kappa_before": cohen_kappa(pooled["truth"], pooled["before"]),
        "kappa_after": cohen_kappa(pooled["truth"], pooled["after"]),
        "balanced_accuracy_before": balanced_accuracy(pooled["truth"], pooled["before"]),
        "balanced_accuracy_after": balanced_accuracy(pooled["truth"], pooled["after"])}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

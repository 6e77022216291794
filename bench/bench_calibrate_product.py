"""`workbench calibrate` itself, on ContractNLI dev relabels: does refitting the verifier on
reviewers' labels make it agree better with them on items it was not fitted to?

Through the product, end to end:
1. Each NDA (the first --docs of dev) is rendered to a PDF and ingested; every one of the 17
   hypotheses is asked of it as a question (`Workbench.ask`, rules backend): one run per
   (NDA, hypothesis), each with its extracted items and the verifier's verdict and score.
2. Simulated reviewers: an item's gold label is "supported" when its quote overlaps one of the
   gold evidence spans annotated for that (NDA, hypothesis) (half the shorter text in common);
   otherwise "unsupported". ContractNLI marks evidence for Entailment and for Contradiction: both
   are passages that address the question, which is what the question verifier decides (whether
   the passage says yes or no is the answer's business); NotMentioned has none.
3. The NDAs are split in two halves. For each half in turn, a copy of the workspace gets the
   reviewers' labels on that half's runs only (`workbench review`), and `workbench calibrate
   --json` runs on it: its own cross-validated κ on those labels and whether it applies.
4. Held out: on the other half's items, κ and balanced accuracy against the gold labels of the
   verifier as shipped (before) and of the calibration in force after step 3 (after: the
   verifier's verdicts through `Calibration.decide`, as new runs would get them).

    .venv/bin/python bench/bench_calibrate_product.py [--docs 8]

`--claims`: the same for the claim checker, `workbench calibrate --claims`. Each NDA's 17
hypotheses are one checked draft (`Workbench.check_draft`, one sentence per line); a simulated
reviewer labels each sentence with the gold verdict (Entailment = supported); the calibration is
fitted on one half's labels; held out, the other half's drafts are checked again under it (the
fact check still runs) and compared with their first check. Drafts are kept in
bench/out/calibrate-claims/.

The asked runs are kept in bench/out/calibrate-product/ (run ids are (NDA, hypothesis)), so a
second invocation only labels and calibrates."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from difflib import SequenceMatcher
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import render_text_pdf  # noqa: E402

DEV = ROOT.parent / "shared" / "corpus" / "contract-nli" / "dev.json"
OUT = ROOT / "bench" / "out"
BASE = OUT / "calibrate-product"


def _use(data_dir: Path):
    from workbench.config import get_settings
    from workbench.service import Workbench

    os.environ["WORKBENCH_DATA_DIR"] = str(data_dir)
    os.environ["WORKBENCH_INDEX_ON_INGEST"] = "false"
    os.environ.pop("WORKBENCH_DATABASE_URL", None)
    get_settings.cache_clear()
    return Workbench(get_settings())


def _norm(s: str) -> str:
    return " ".join("".join(ch.lower() if ch.isalnum() else " " for ch in s).split())


def overlaps(quote: str, gold: str) -> bool:
    a, b = _norm(quote), _norm(gold)
    if not a or not b:
        return False
    if a in b or b in a:
        return True
    m = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return m.size >= 0.5 * min(len(a), len(b))


def ask_all(docs: list[dict], keys: list[str], hyps: dict[str, str]) -> None:
    """Step 1, cached: one run per (NDA, hypothesis) in the base workspace."""
    wb = _use(BASE)
    for i, doc in enumerate(docs, 1):
        ids = [f"{doc['id']}-{k}" for k in keys]
        if all(wb.store.has_run(r) for r in ids):
            continue
        t = time.perf_counter()
        pdf = Path(tempfile.mkdtemp()) / f"{doc['id']}.pdf"
        render_text_pdf(doc["text"], pdf)
        d = wb.ingest(pdf, source_type="contract")
        wb.ask([hyps[k] for k in keys], [d.id], run_ids=ids)
        print(f"[{i}/{len(docs)}] {doc['id']}: 17 questions {time.perf_counter() - t:.0f}s", file=sys.stderr)
    wb.store.dispose()


def gold_labels(wb, docs: list[dict], keys: list[str]) -> dict[str, dict[str, bool]]:
    """run id → {evidence id: the simulated reviewers' label (True: supported)}."""
    out: dict[str, dict[str, bool]] = {}
    for doc in docs:
        ann = doc["annotation_sets"][0]["annotations"]
        for k in keys:
            run = wb.store.get_run(f"{doc['id']}-{k}")
            spans = [doc["text"][doc["spans"][j][0]:doc["spans"][j][1]] for j in ann[k]["spans"]]
            out[run.run_id] = {e.requirement_id: any(overlaps(e.exact_quote, g) for g in spans)
                               for e in run.evidence}
    return out


def claims_main(docs: list[dict], keys: list[str], hyps: dict[str, str]) -> None:
    from workbench import cli
    from workbench.calibration import balanced_accuracy, cohen_kappa

    base = OUT / "calibrate-claims"
    wb = _use(base)
    first: dict[str, list[bool]] = {}
    doc_of: dict[str, str] = {}
    done = {r.question: r for r in wb.runs() if r.kind == "draft"}
    for i, doc in enumerate(docs, 1):
        title = f"nda-{doc['id']}"
        if title not in done:
            t = time.perf_counter()
            pdf = Path(tempfile.mkdtemp()) / f"{doc['id']}.pdf"
            render_text_pdf(doc["text"], pdf)
            d = wb.ingest(pdf, source_type="contract")
            done[title] = wb.check_draft("\n\n".join(hyps[k] for k in keys), [d.id], title=title, markdown=False)
            print(f"[{i}/{len(docs)}] {title}: checked {time.perf_counter() - t:.0f}s", file=sys.stderr)
        run = done[title]
        assert len(run.answer.sentences) == len(keys), (title, len(run.answer.sentences))
        first[title] = [s.supported for s in run.answer.sentences]
        doc_of[title] = run.document_ids[0]
    wb.store.dispose()
    gold = {f"nda-{d['id']}": [d["annotation_sets"][0]["annotations"][k]["choice"] == "Entailment" for k in keys]
            for d in docs}
    titles = [f"nda-{d['id']}" for d in docs]
    halves = [titles[: len(titles) // 2], titles[len(titles) // 2:]]
    report: dict = {"docs": len(docs), "claims": len(docs) * len(keys), "splits": []}
    pooled: dict[str, list[bool]] = {"truth": [], "before": [], "after": []}
    for labelled, held in ((halves[0], halves[1]), (halves[1], halves[0])):
        scratch = Path(tempfile.mkdtemp(prefix="wb-calc-split-")) / "ws"
        shutil.copytree(base, scratch)
        wb = _use(scratch)
        for title in labelled:
            for n, ok in enumerate(gold[title], 1):
                wb.review(done[title].run_id, f"SENT-{n}", "supported" if ok else "unsupported", "gold-reviewer")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert cli.main(["calibrate", "--claims", "--json"]) == 0
        cal = json.loads(buf.getvalue().strip().splitlines()[-1])
        truth, before, after = [], [], []
        t = time.perf_counter()
        for title in held:
            again = wb.check_claims([hyps[k] for k in keys], [doc_of[title]]) if cal["applied"] else None
            truth += gold[title]
            before += first[title]
            after += [c.supported for c in again] if again else first[title]
        recheck_s = time.perf_counter() - t
        wb.store.dispose()
        shutil.rmtree(scratch.parent, ignore_errors=True)
        pooled["truth"] += truth
        pooled["before"] += before
        pooled["after"] += after
        report["splits"].append({
            "labelled": labelled, "calibrate": {k: cal[k] for k in ("threshold", "labels", "positives", "folds",
                                                                    "kappa_before", "kappa_after", "applied", "reason")},
            "held_out_claims": len(truth), "recheck_s": round(recheck_s, 1),
            "held_out_kappa_before": cohen_kappa(truth, before), "held_out_kappa_after": cohen_kappa(truth, after),
            "held_out_balanced_accuracy_before": balanced_accuracy(truth, before),
            "held_out_balanced_accuracy_after": balanced_accuracy(truth, after),
            "held_out_supported_before": sum(before), "held_out_supported_after": sum(after)})
        print(f"split: {cal['reason']}", file=sys.stderr)
    report["held_out_pooled"] = {
        "kappa_before": cohen_kappa(pooled["truth"], pooled["before"]),
        "kappa_after": cohen_kappa(pooled["truth"], pooled["after"]),
        "balanced_accuracy_before": balanced_accuracy(pooled["truth"], pooled["before"]),
        "balanced_accuracy_after": balanced_accuracy(pooled["truth"], pooled["after"])}
    print(json.dumps(report, indent=2))


def main() -> None:
    from workbench import cli
    from workbench.calibration import Calibration, balanced_accuracy, cohen_kappa

    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=8)
    ap.add_argument("--claims", action="store_true", help="the claim checker (workbench calibrate --claims)")
    args = ap.parse_args()
    data = json.loads(DEV.read_text())
    keys = sorted(data["labels"])
    hyps = {k: data["labels"][k]["hypothesis"] for k in keys}
    docs = data["documents"][: args.docs]
    if args.claims:
        claims_main(docs, keys, hyps)
        return
    ask_all(docs, keys, hyps)
    wb = _use(BASE)
    gold = gold_labels(wb, docs, keys)
    runs = {rid: wb.store.get_run(rid) for rid in gold}
    wb.store.dispose()
    halves = [docs[: len(docs) // 2], docs[len(docs) // 2:]]
    items = sum(len(g) for g in gold.values())
    report: dict = {"docs": len(docs), "runs": len(gold), "items": items,
                    "gold_supported": sum(v for g in gold.values() for v in g.values()), "splits": []}
    pooled: dict[str, list[bool]] = {"truth": [], "before": [], "after": []}
    for n, (labelled, held) in enumerate(((halves[0], halves[1]), (halves[1], halves[0])), 1):
        scratch = Path(tempfile.mkdtemp(prefix="wb-cal-split-")) / "ws"
        shutil.copytree(BASE, scratch)
        wb = _use(scratch)
        t = time.perf_counter()
        for doc in labelled:
            for k in keys:
                rid = f"{doc['id']}-{k}"
                for ev_id, ok in gold[rid].items():
                    wb.review(rid, ev_id, "supported" if ok else "unsupported", "gold-reviewer",
                              note="ContractNLI dev gold (simulated reviewer)")
        label_s = time.perf_counter() - t
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = cli.main(["calibrate", "--json"])
        assert code == 0, buf.getvalue()
        cal = Calibration.model_validate(json.loads(buf.getvalue().strip().splitlines()[-1]))
        in_force = wb.calibration()
        wb.store.dispose()
        shutil.rmtree(scratch.parent, ignore_errors=True)
        truth, before, after = [], [], []
        for doc in held:
            for k in keys:
                run = runs[f"{doc['id']}-{k}"]
                for v in run.verifications:
                    if v.requirement_id not in gold[run.run_id] or v.rejection_reason in ("quote_not_found",):
                        continue
                    truth.append(gold[run.run_id][v.requirement_id])
                    before.append(v.verified)
                    after.append((in_force.decide(v) if in_force else v).verified)
        pooled["truth"] += truth
        pooled["before"] += before
        pooled["after"] += after
        report["splits"].append({
            "labelled_docs": [d["id"] for d in labelled], "labelled_items": cal.labels,
            "labelled_supported": cal.positives, "labelling_s": round(label_s, 1),
            "calibrate": {k: getattr(cal, k) for k in ("id", "threshold", "folds", "kappa_before", "kappa_after",
                                                        "balanced_accuracy_before", "balanced_accuracy_after",
                                                        "applied", "reason")},
            "held_out_items": len(truth), "held_out_supported": sum(truth),
            "held_out_kappa_before": cohen_kappa(truth, before), "held_out_kappa_after": cohen_kappa(truth, after),
            "held_out_balanced_accuracy_before": balanced_accuracy(truth, before),
            "held_out_balanced_accuracy_after": balanced_accuracy(truth, after),
            "held_out_verified_before": sum(before), "held_out_verified_after": sum(after)})
        print(f"split {n}: {cal.reason}", file=sys.stderr)
    report["held_out_pooled"] = {
        "kappa_before": cohen_kappa(pooled["truth"], pooled["before"]),
        "kappa_after": cohen_kappa(pooled["truth"], pooled["after"]),
        "balanced_accuracy_before": balanced_accuracy(pooled["truth"], pooled["before"]),
        "balanced_accuracy_after": balanced_accuracy(pooled["truth"], pooled["after"])}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""The relevance judge as `ask` uses it: one decision per (contract, question), not per pair.

`ask` answers NO_AUTHORITATIVE_EVIDENCE when none of the ~40-80 units it considers scores
relevance >= engine.RELEVANT, and its evidence holds the answer when the answering unit is among
the ones that do. A judge calibrated on balanced pairs (one gold, a few negatives) says nothing
about the best of 50 negatives, which is what decides a question the contract does not answer.

This script simulates that decision on cuad-train contracts (text, lawyer-labelled clauses for
41 categories; split by contract as train/build_pairs.split_of):
- candidates per (contract, category question): the contract's sentences that BM25 (20) or MiniLM
  (30) find for the question, cut into units by the product's engine.candidate_units;
- features per unit (columns): the lexical judge's two (IDF-weighted coverage in the contract,
  rescaled MiniLM cosine), the unit's cosine as a z-score among the contract's sentences' cosines
  for the same question (how much it stands out), the clause-topic score and how much the
  question asks about a kind at all (`topic`, `asked`: workbench/judgment/topics.py), and
  optionally the trained cross-encoder's relevance logit (--model);
- a pair is "found" when a unit overlapping the gold clause is among the 12 best scoring
  >= the threshold, "NAE" when no unit does (categories the contract lacks).

    .venv/bin/python train/doc_decision.py build --split calib --out train/out/dd_calib.json [--model] [--product WS]
    .venv/bin/python train/doc_decision.py build --split test --out train/out/dd_test.json [--model] [--product WS]
    .venv/bin/python train/doc_decision.py fit --fit train/out/dd_calib.json --report train/out/dd_test.json \
        [--features coverage,cosine,model]
    .venv/bin/python train/doc_decision.py build --split calib --question 2 --out train/out/dd_calib_q2.json --product WS
    .venv/bin/python train/doc_decision.py build --split test --question 2 --out train/out/dd_test_q2.json --product WS
    .venv/bin/python train/doc_decision.py grid --fit train/out/dd_calib.json,train/out/dd_calib_q2.json \
        --report train/out/dd_test.json,train/out/dd_test_q2.json

(--question N: build_pairs' N-th paraphrase of each category that has one (others are skipped),
asked with the topic bank stripped of that exact question, so every wording measured is one the
bank does not hold. --product WS: the candidates `ask` really gets, each contract rendered to a PDF and ingested in
the workspace WS; about 25 s a contract with --model on 2 cores.)

`fit` fits a logistic over the features on every candidate of the fit file (the candidates' own
rate of answers), then picks the bias that finds the most answers while keeping NAE >= --min-nae
on the fit file, and prints the curves of the shipped weights and of the fit on the report file
(held out by contract). A measuring tool: the fit with the cross-encoder was tried in the engine
and not kept (docs/benchmarks-log.md, "Judgment: relevance at the decision `ask` makes")."""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from train.build_pairs import BM25, CORPUS, QUESTIONS, gold_ranges, overlaps, sentences, split_of  # noqa: E402
from train.fitting import logistic  # noqa: E402

MAX_PROPOSED = 12


@cache
def _workbench(ws: Path):
    from workbench.config import Settings
    from workbench.service import Workbench

    return Workbench(Settings(data_dir=ws))


def product_candidates(name: str, text: str, ws: Path):
    """A function question -> (unit texts, unit (start, end)) as `ask`'s extract sees them: the
    contract rendered to a PDF, ingested, retrieved chunks and segment search (engine.units_for);
    and the gold locator for that PDF's text."""
    from bench.common import render_text_pdf
    from workbench.backends import engine
    from workbench.pipeline.context import DocsContext

    wb = _workbench(ws)
    pdf = ws / "pdf" / (Path(name).stem[:80] + ".pdf")
    pdf.parent.mkdir(parents=True, exist_ok=True)
    if not pdf.exists():
        render_text_pdf("\n".join(" ".join(p.split()) for p in text.split("\n\n")), pdf)
    doc = wb.ingest(str(pdf), source_type="contract")
    parsed = wb.parsed(doc.id)
    context = DocsContext([parsed], wb.retriever)
    settings = wb.settings

    def units(q: str):
        ranges: dict[str, list[tuple[int, int]]] = {}
        for ch in wb.retriever.retrieve(q, [parsed], settings.top_k):
            ranges.setdefault(ch.document_id, []).append((ch.start, ch.end))
        us = engine.units_for(q, context, ranges, min_words=settings.quote_min_words,
                              max_words=settings.quote_max_words)
        return [u.text for u in us], [(u.start, u.end) for u in us]

    def gold(clauses: list[str]) -> list[tuple[int, int]]:
        out = []
        for c in clauses:
            for piece in c.split("<omitted>"):
                piece = " ".join(piece.split())
                sp = parsed.locate(piece) if len(piece) >= 4 else None
                if sp is not None:
                    out.append((sp.start, sp.end))
        return out

    return parsed, units, gold


def without_question(topics, question: str):
    """The topic model with `question` taken out of its bank, if it is there."""
    import dataclasses

    from workbench.index.embed import embed_texts
    from workbench.text.terms import embed_form

    v = np.asarray(embed_texts([embed_form(question)]), np.float32)[0]
    from workbench.judgment.topics import bank_lexicon

    keep = topics.bank_vectors @ v < 0.999
    bank = [q for q, k in zip(topics.bank, keep, strict=True) if k]
    category = topics.bank_category[keep]
    return dataclasses.replace(topics, bank_vectors=topics.bank_vectors[keep], bank_category=category, bank=tuple(bank),
                               bank_words=bank_lexicon(list(topics.categories), bank, category.tolist()))


def build(split: str, limit: int, with_model: bool, out: Path, question_index: int, product: Path | None) -> None:
    from workbench.backends import engine
    from workbench.index.embed import embed_texts
    from workbench.text.terms import embed_form
    from workbench.text.weights import TermWeights

    judge = engine.LexicalJudge()
    full_topics = judge._topic_model()
    scorer = None
    if with_model:
        from workbench.judgment import model as M

        scorer = M.get_relevance_model()
    rows = [json.loads(line) for line in (CORPUS / "cuad-train" / "labels.jsonl").read_text().splitlines()]
    by_doc: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        if split_of(r["txt"]) == split and r["category"] in QUESTIONS:
            by_doc.setdefault(r["txt"], {})[r["category"]] = r["clauses"]
    names = sorted(by_doc)[:limit or None]
    pairs = []
    t0 = time.time()
    for n, name in enumerate(names):
        raw_text = (CORPUS / "cuad-train" / name).read_text(errors="replace")
        doc, spans = sentences(raw_text)
        sents = [(s, e, doc[s:e]) for s, e in spans]
        texts = [t for _s, _e, t in sents]
        w = TermWeights(texts, source_type="contract")
        if product is not None:
            try:
                parsed, product_units, product_gold = product_candidates(name, raw_text, product)
            except Exception as exc:  # noqa: BLE001 - a contract the renderer cannot lay out: skip it, say so
                print(f"skipped {name}: {exc}", flush=True)
                continue
            w = TermWeights((s.text for s in parsed.segments()), source_type="contract")
        keep = [i for i, t in enumerate(texts) if len(t.split()) >= 4]
        if not keep:
            continue
        V = np.asarray(embed_texts([embed_form(texts[i]) for i in keep]), np.float32)
        bm = BM25([texts[i] for i in keep])
        for cat, qs in QUESTIONS.items():
            clauses = by_doc[name].get(cat, [])
            gold = gold_ranges(doc, clauses) if clauses else []
            if clauses and not gold:
                continue  # gold not located in the text: no trustworthy label
            if question_index >= len(qs):
                continue
            q = qs[question_index]
            judge._topics = without_question(full_topics, q)
            qv = np.asarray(embed_texts([embed_form(q)]), np.float32)[0]
            cs = V @ qv
            if product is not None:
                if clauses:
                    gold = product_gold(clauses)
                    if not gold:
                        continue
                ut, offsets = product_units(q)
            else:
                sc = np.asarray(bm.scores(q))
                idx = set(np.argsort(-sc, kind="stable")[:20]) | set(np.argsort(-cs, kind="stable")[:30])
                chosen = [sents[keep[j]] for j in sorted(idx)]
                units = engine.candidate_units(q, name, chosen, min_words=10, max_words=40)
                ut, offsets = [doc[u.start:u.end] for u in units], [(u.start, u.end) for u in units]
            if not ut:
                pairs.append(dict(doc=name, cat=cat, has_gold=bool(gold), X=np.zeros((0, 6 if scorer is not None else 5)), gold=np.zeros(0, bool),
                                  texts=[]))
                continue
            f = judge.features(q, ut, [w] * len(ut))
            raw = judge._cos(q, ut)  # the unit's cosine against the contract's sentences' for this question
            zcos = (raw - cs.mean()) / (cs.std() + 1e-6)
            topic, asked = judge.topic(q, ut)
            cols = [f[:, 0], f[:, 1], zcos, topic, np.full(len(ut), asked)]
            if scorer is not None:
                cols.append(scorer.logit(q, ut))
            X = np.column_stack(cols)
            g = np.array([overlaps(o, gold) for o in offsets], bool)
            pairs.append(dict(doc=name, cat=cat, has_gold=bool(gold), X=X, gold=g, texts=ut, q=q))
        print(f"{n + 1}/{len(names)} {name[:50]} ({time.time() - t0:.0f} s)", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_pairs(pairs, out)


def save_pairs(pairs: list[dict], out: Path) -> None:
    """The candidates as JSON (arrays as lists): data, never a pickle to load."""
    out.write_text(json.dumps([{**p, "X": np.asarray(p["X"]).tolist(), "gold": np.asarray(p["gold"]).tolist()}
                               for p in pairs]))


def load_pairs(path: Path | str) -> list[dict]:
    """What save_pairs wrote, X (candidates × columns) and gold as arrays again."""
    out = []
    for p in json.loads(Path(path).read_text()):
        x = np.asarray(p["X"], np.float64)
        out.append({**p, "X": x if x.size else x.reshape(0, 0), "gold": np.asarray(p["gold"], bool)})
    return out


def decide(pairs, score_fn, t: float) -> tuple[float, float]:
    """(found rate over pairs with gold, NAE rate over pairs without) at threshold t."""
    found, nae = [], []
    for p in pairs:
        s = score_fn(p["X"]) if len(p["X"]) else np.zeros(0)
        ok = s >= t
        if p["has_gold"]:
            top = np.argsort(-s, kind="stable")[:MAX_PROPOSED]
            found.append(bool(any(ok[i] and p["gold"][i] for i in top)))
        else:
            nae.append(not ok.any())
    return float(np.mean(found)), float(np.mean(nae))


def lin(wts, bias):
    w = np.asarray(wts)
    return lambda X: 1 / (1 + np.exp(-(X[:, :len(w)] @ w + bias)))


def curve(pairs, score_fn, name: str) -> None:
    cells = []
    for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        f, n = decide(pairs, score_fn, t)
        cells.append(f"t={t:.1f}: {f:.2f}/{n:.2f}")
    print(f"  {name:34s} found/NAE  " + "  ".join(cells))


COLUMNS = ("coverage", "cosine", "zcos", "topic", "asked", "model")


def fit(fit_file: Path, report_file: Path, names: list[str], min_nae: float) -> None:
    from workbench.judgment.scores import FEATURES, LEXICAL_FIT

    fp = load_pairs(fit_file)
    rp = load_pairs(report_file)
    cols = [COLUMNS.index(n) for n in names]
    shipped_cols = [COLUMNS.index(n) for n in FEATURES["relevance"]]
    for p in (*fp, *rp):
        p["shipped"] = p["X"][:, shipped_cols] if len(p["X"]) else np.zeros((0, len(shipped_cols)))
        p["X"] = p["X"][:, cols] if len(p["X"]) else np.zeros((0, len(cols)))
    X = np.concatenate([p["X"] for p in fp if len(p["X"])])
    y = np.concatenate([p["gold"] for p in fp if len(p["X"])]).astype(float)
    for name, pairs in (("fit", fp), ("report", rp)):
        g = [p for p in pairs if p["has_gold"]]
        print(f"{name} file: a gold unit among the candidates for {np.mean([p['gold'].any() for p in g]):.3f} "
              f"of {len(g)} pairs with gold (the ceiling of found)")
    print(f"fit on {len(fp)} pairs ({sum(p['has_gold'] for p in fp)} with gold), {len(y)} candidates, "
          f"{y.mean():.3f} answer; report on {len(rp)} pairs ({sum(p['has_gold'] for p in rp)} with gold)")
    w, b = logistic(X, y, l2=1e-4)
    # the bias for the decision ask makes (at RELEVANT = 0.5): the most answers found while at
    # least `min_nae` of the questions a contract does not answer get NO_AUTHORITATIVE_EVIDENCE
    grid = [(d, *decide(fp, lin(w, b + d), 0.5)) for d in np.arange(-1.0, 4.01, 0.1)]
    ok = [g for g in grid if g[2] >= min_nae] or [max(grid, key=lambda g: g[2])]
    d, found, nae = max(ok, key=lambda g: (g[1], g[2]))
    print(f"features {names}")
    print(f"fitted weights {np.round(w, 3).tolist()}, bias {b:.3f} (candidates' rate), {b + d:.3f} "
          f"(most found with NAE >= {min_nae} on the fit file: found {found:.3f}, NAE {nae:.3f})")
    lex = LEXICAL_FIT["relevance"]
    for name, pairs in (("fit file", fp), ("report file (held out)", rp)):
        print(name)
        curve([{**p, "X": p["shipped"]} for p in pairs], lin(list(lex[:-1]), lex[-1]), "shipped")
        curve(pairs, lin(w, b), "fitted, candidates' rate")
        curve(pairs, lin(w, b + d), "fitted, bias chosen on fit file")
        if "model" in names:
            k = names.index("model")
            curve(pairs, lambda X, k=k: 1 / (1 + np.exp(-X[:, k])), "model logit alone")


def grid(fit_files: str, report_files: str, min_nae: float) -> None:
    """The engine's topic weights: coverage and cosine kept at their hand-set (3, 3, bias -2.6), so
    a question about no kind of clause scores as before; (topic, asked) from a grid, the most
    answers found on the fit files pooled (comma-separated: several wordings) with NAE >= min_nae
    there; then each file's figures and the pooled ones."""
    fits = {f: load_pairs(f) for f in fit_files.split(",")}
    reports = {f: load_pairs(f) for f in report_files.split(",")}
    fp = [p for ps in fits.values() for p in ps]
    idx = [COLUMNS.index(n) for n in ("coverage", "cosine", "topic", "asked")]

    def score(c1: float, c2: float):
        return lambda X: 1 / (1 + np.exp(-(X[:, idx] @ np.array([3.0, 3.0, c1, c2]) - 2.6)))

    best = max(((*decide(fp, score(c1, c2), 0.5), c1, c2) for c1 in np.arange(0, 16.01, 0.5)
                for c2 in np.arange(-5, 1.01, 0.25)), key=lambda r: (r[1] >= min_nae, r[0], r[1]))
    print(f"topic {best[2]:.2f}, asked {best[3]:.2f}: the most found with NAE >= {min_nae} on the fit files")
    groups = [*fits.items(), ("fit files pooled", fp), *((f"{f} (held out)", ps) for f, ps in reports.items()),
              ("report files pooled (held out)", [p for ps in reports.values() for p in ps])]
    for name, pairs in groups:
        for label, fn in (("words and cosine (3, 3, -2.6)", score(0, 0)), ("with topics", score(best[2], best[3]))):
            print(f"  {name:44s} {label:30s} found %.3f  NAE %.3f" % decide(pairs, fn, 0.5))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--split", default="calib")
    b.add_argument("--limit", type=int, default=0)
    b.add_argument("--model", action="store_true")
    b.add_argument("--question", type=int, default=0, help="which paraphrase of each category's question")
    b.add_argument("--out", required=True)
    b.add_argument("--product", default="", help="a workspace folder: candidates as `ask` gets them (each contract "
                   "rendered to a PDF and ingested there, retrieved chunks and segment search) instead of BM25 + MiniLM")
    b.add_argument("--question-words", default="on", choices=("on", "off"),
                   help="off: questions find their kinds by bank similarity alone, no OTHER_QUESTIONS (the mapper before)")
    f = sub.add_parser("fit")
    f.add_argument("--fit", required=True)
    f.add_argument("--report", required=True)
    f.add_argument("--min-nae", type=float, default=0.75, help="NO_AUTHORITATIVE_EVIDENCE rate the bias must keep "
                   "on the fit file (the product's goal is 0.70: a margin for contracts unlike these)")
    f.add_argument("--features", default="coverage,cosine", help=f"columns to fit on, of {COLUMNS}")
    g = sub.add_parser("grid", help="the engine's topic weights (see grid())")
    g.add_argument("--fit", required=True)
    g.add_argument("--report", required=True)
    g.add_argument("--min-nae", type=float, default=0.78)
    a = ap.parse_args(argv)
    if a.cmd == "build":
        if a.question_words == "off":
            from bench.common import question_words_off

            question_words_off()
        build(a.split, a.limit, a.model, Path(a.out), a.question, Path(a.product) if a.product else None)
    elif a.cmd == "grid":
        grid(a.fit, a.report, a.min_nae)
    else:
        fit(Path(a.fit), Path(a.report), a.features.split(","), a.min_nae)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

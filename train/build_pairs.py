"""Build (text, span, label) training pairs for the judgment cross-encoder from shared data.

Sources (both CC BY 4.0):
- cuad-train/: 379 contracts split by contract (hash of the file name) into train 70 %,
  calib 10 % (fits the calibration) and test 20 % (held out: bench/bench_judgment.py).
  Relevance pairs: a category question (several paraphrases) with a sentence that overlaps the
  lawyers' gold clause (positive), other sentences of the same contract that BM25 finds similar
  (hard negatives) and a random one. Support pairs: a claim built from the category (and from the
  normalised answer where it states a fact: a state, a date, a duration) with the gold sentence
  (positive), the same claim with another fact (negative), the claim with a hard negative.
- contract-nli/train_truncated.json: only hypotheses of TRAIN_HYPS (8 of 17); the other 9 are
  never trained on, so ContractNLI dev on them is held out by hypothesis.

Writes JSONL rows {"kind", "split", "a", "b", "label", "rel"?}: `label` is the row's own task
(relevance for kind "rel", support for "sup" and "nli"); `rel`, where present, says whether the
span is on the claim's topic (gold or evidence span), which trains the relevance output on
support rows too (a swapped fact is on topic but unsupported). Pure Python, seconds to run.

    python train/build_pairs.py --out train/out/pairs.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

# ContractNLI hypotheses trained on; dev figures are reported on the others (held out).
TRAIN_HYPS = {"nda-2", "nda-4", "nda-7", "nda-10", "nda-12", "nda-15", "nda-17", "nda-19"}


def split_of(name: str) -> str:
    """Deterministic split by contract: train 70 %, calib 10 %, test 20 %."""
    h = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % 100
    return "train" if h < 70 else "calib" if h < 80 else "test"


# Questions a reviewer would ask, per CUAD category (paraphrases; one is drawn per pair).
QUESTIONS: dict[str, list[str]] = {
    "Document Name": ["What is the name of this agreement?", "What is the title of the contract?"],
    "Parties": ["Who are the parties to this agreement?", "Which companies signed this contract?",
                "Between whom is this agreement made?"],
    "Agreement Date": ["When was this agreement signed?", "What is the date of the agreement?",
                       "On what date was the contract made?"],
    "Effective Date": ["When does this agreement take effect?", "What is the effective date?",
                       "From what date is the contract effective?"],
    "Expiration Date": ["When does the agreement expire?", "How long is the initial term of the contract?",
                        "When does the term of this agreement end?"],
    "Renewal Term": ["Does the agreement renew automatically?", "What is the renewal term?",
                     "For how long does the contract renew after the initial term?"],
    "Notice Period To Terminate Renewal": ["How much notice is needed to stop the agreement from renewing?",
                                           "What is the notice period for non-renewal?"],
    "Governing Law": ["What law governs this agreement?", "Which state's laws govern the contract?",
                      "What is the governing law of the agreement?"],
    "Most Favored Nation": ["Is there a most favored nation clause?",
                            "Must a party get terms at least as good as those offered to others?"],
    "Non-Compete": ["Is there a non-compete restriction?", "May a party compete with the other party?",
                    "Does the contract restrict competing business?"],
    "Exclusivity": ["Is the relationship exclusive?", "Does the agreement grant exclusive rights?",
                    "Is a party required to deal exclusively with the other?"],
    "No-Solicit Of Customers": ["Is a party prohibited from soliciting the other party's customers?",
                                "Is there a non-solicitation of customers clause?"],
    "Competitive Restriction Exception": ["Are there exceptions to the non-compete or exclusivity?",
                                          "What exceptions apply to the competitive restrictions?"],
    "No-Solicit Of Employees": ["May a party hire or solicit the other party's employees?",
                                "Is there a non-solicitation of employees clause?"],
    "Non-Disparagement": ["Is there a non-disparagement obligation?",
                          "Are the parties prohibited from disparaging each other?"],
    "Termination For Convenience": ["Can a party terminate the agreement without cause?",
                                    "How can the contract be terminated for convenience?",
                                    "May either party terminate on notice without a reason?"],
    "Rofr/Rofo/Rofn": ["Is there a right of first refusal or first offer?",
                       "Does a party have a right of first negotiation?"],
    "Change Of Control": ["What happens on a change of control?",
                          "Can the agreement be terminated if a party is acquired or merges?"],
    "Anti-Assignment": ["Can the agreement be assigned?", "Is consent needed to assign the contract?",
                        "May a party transfer its rights under the agreement?"],
    "Revenue/Profit Sharing": ["Is revenue or profit shared between the parties?",
                               "What royalties or revenue share are payable?"],
    "Price Restrictions": ["Are there restrictions on changing prices?", "Can the prices be raised?"],
    "Minimum Commitment": ["Is there a minimum purchase or order commitment?",
                           "What minimum quantity or amount must be bought?"],
    "Volume Restriction": ["Is there a limit on the volume or number of uses?",
                           "Are fees increased above a usage threshold?"],
    "Ip Ownership Assignment": ["Who owns the intellectual property created under the agreement?",
                                "Is intellectual property assigned to a party?"],
    "Joint Ip Ownership": ["Is any intellectual property jointly owned?",
                           "Do the parties jointly own inventions?"],
    "License Grant": ["What license is granted?", "Does the agreement grant a license?",
                      "What rights does the licensee receive?"],
    "Non-Transferable License": ["Is the license non-transferable?", "Can the licensee transfer the license?"],
    "Affiliate License-Licensor": ["Does the license include the licensor's affiliates' IP?"],
    "Affiliate License-Licensee": ["May the licensee's affiliates use the license?",
                                   "Does the license extend to affiliates of the licensee?"],
    "Unlimited/All-You-Can-Eat-License": ["Is the license unlimited in use?"],
    "Irrevocable Or Perpetual License": ["Is the license perpetual or irrevocable?"],
    "Source Code Escrow": ["Is source code placed in escrow?"],
    "Post-Termination Services": ["What obligations continue after termination?",
                                  "What must a party do after the agreement ends?"],
    "Audit Rights": ["Does a party have the right to audit the books and records?",
                     "Can the records be inspected or audited?"],
    "Uncapped Liability": ["Is any liability unlimited or excluded from the cap?",
                           "Which liabilities are not capped?"],
    "Cap On Liability": ["Is liability capped?", "What is the limit of liability?",
                         "Are damages limited under the contract?"],
    "Liquidated Damages": ["Are there liquidated damages or termination fees?"],
    "Warranty Duration": ["How long is the warranty period?", "For how long is the product warranted?"],
    "Insurance": ["What insurance must a party maintain?", "Is insurance coverage required?"],
    "Covenant Not To Sue": ["Is a party barred from challenging the other's IP or bringing claims?",
                            "Is there a covenant not to sue?"],
    "Third Party Beneficiary": ["Are there third-party beneficiaries of the agreement?",
                                "Can a third party enforce the contract?"],
}

# Statements of each category's presence (support pairs where the answer is not a fact).
CLAIMS: dict[str, list[str]] = {
    "Most Favored Nation": ["A party must receive terms no less favorable than those given to others."],
    "Non-Compete": ["A party is restricted from competing with the other party."],
    "Exclusivity": ["The agreement grants exclusive rights.", "The party must deal exclusively with the other."],
    "No-Solicit Of Customers": ["A party may not solicit the other party's customers."],
    "No-Solicit Of Employees": ["A party may not solicit or hire the other party's employees."],
    "Non-Disparagement": ["The parties may not disparage each other."],
    "Termination For Convenience": ["Either party may terminate the agreement without cause on notice.",
                                    "The agreement can be terminated for convenience."],
    "Rofr/Rofo/Rofn": ["A party has a right of first refusal."],
    "Change Of Control": ["A change of control of a party allows termination or requires consent."],
    "Anti-Assignment": ["The agreement may not be assigned without the other party's consent.",
                        "Neither party may assign this Agreement without prior written consent."],
    "Revenue/Profit Sharing": ["A party must pay royalties or a share of revenue."],
    "Minimum Commitment": ["A party must purchase a minimum quantity."],
    "Ip Ownership Assignment": ["Intellectual property developed under the agreement is assigned to a party."],
    "Joint Ip Ownership": ["Jointly developed intellectual property is jointly owned."],
    "License Grant": ["The agreement grants a license."],
    "Non-Transferable License": ["The license is non-transferable."],
    "Irrevocable Or Perpetual License": ["The license is perpetual or irrevocable."],
    "Post-Termination Services": ["Some obligations continue after the agreement terminates."],
    "Audit Rights": ["A party may audit the other party's books and records."],
    "Cap On Liability": ["Liability under the agreement is limited.",
                         "Neither party is liable for indirect or consequential damages."],
    "Uncapped Liability": ["Some liabilities are excluded from the limitation of liability."],
    "Liquidated Damages": ["A party must pay liquidated damages or a termination fee."],
    "Insurance": ["A party must maintain insurance."],
    "Third Party Beneficiary": ["A third party may enforce the agreement."],
    "Covenant Not To Sue": ["A party may not challenge the other party's intellectual property."],
    "Warranty Duration": ["The products are warranted for a limited period."],
}

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]


def wordings() -> dict[str, list[str]]:
    """Every wording of each category's question we have: build_pairs' paraphrases, the
    clause-topic bank's (train/fit_topics.py EXTRA_BANK) and CUAD's own description. With the
    paraphrases alone (2–3 a category) the model learned the wordings, not the question: "Which
    body of law did the parties choose to govern this contract?" read −2.1 against a governing-law
    clause that "What law governs this agreement?" read +2.8."""
    try:
        from train.fit_topics import EXTRA_BANK, descriptions
    except ImportError:  # run as a script
        from fit_topics import EXTRA_BANK, descriptions  # type: ignore[no-redef]
    desc = descriptions()
    return {c: list(dict.fromkeys([*qs, *EXTRA_BANK.get(c, []), *([desc[c]] if c in desc else [])]))
            for c, qs in QUESTIONS.items()}


def date_words(ans: str) -> str | None:
    """'5/8/14' -> 'May 8, 2014'; None when the answer is not a plain m/d/yy date."""
    m = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{2,4})", ans.strip())
    if not m:
        return None
    mo, d, y = int(m[1]), int(m[2]), int(m[3])
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    if y < 100:
        y += 2000 if y < 40 else 1900
    return f"{MONTHS[mo - 1]} {d}, {y}"


DURATION = re.compile(r"^(\d+)\s+(day|month|year|week)s?$")


def fact_claims(cat: str, ans: str) -> list[str]:
    """Claims stating the normalised answer as a fact (empty when the answer is not one)."""
    ans = ans.strip()
    if cat == "Governing Law" and ans and len(ans) < 40 and ";" not in ans:
        return [f"This Agreement is governed by the laws of {ans}.",
                f"The contract is governed by {ans} law."]
    if cat in ("Agreement Date", "Effective Date", "Expiration Date") and (d := date_words(ans)):
        verb = {"Agreement Date": "is dated", "Effective Date": "is effective as of",
                "Expiration Date": "expires on"}[cat]
        return [f"The agreement {verb} {d}."]
    if cat == "Notice Period To Terminate Renewal" and DURATION.match(ans):
        return [f"Notice of non-renewal must be given {ans} before the end of the term."]
    if cat == "Renewal Term":
        m = re.match(r"^(?:successive )?(\d+ (?:year|month)s?)$", ans)
        if m:
            return [f"The agreement renews for periods of {m[1]}."]
    return []


def swap_pool(rows) -> dict[str, list[str]]:
    pool: dict[str, set[str]] = {}
    for r in rows:
        if r["clauses"] and fact_claims(r["category"], r["answer"] or ""):
            pool.setdefault(r["category"], set()).add(r["answer"].strip())
    return {k: sorted(v) for k, v in pool.items()}


# --- sentences of a contract ----------------------------------------------------------------
SENT_END = re.compile(r"(?<=[.;!?])\s+(?=[A-Z0-9(\"“\[])")


def sentences(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Whitespace-normalised text (paragraphs joined by newlines) and sentence spans in it;
    sentences over 90 words are cut into windows of 60 words."""
    paras = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", text)]
    doc, spans = "", []
    for p in paras:
        if not p:
            continue
        base = len(doc)
        doc += p + "\n"
        pos = 0
        for part in SENT_END.split(p):
            i = p.find(part, pos)
            pos = i + len(part)
            words = list(re.finditer(r"\S+", part))
            if len(words) <= 90:
                spans.append((base + i, base + i + len(part)))
            else:
                for k in range(0, len(words), 60):
                    w = words[k:k + 60]
                    spans.append((base + i + w[0].start(), base + i + w[-1].end()))
    return doc, spans


def gold_ranges(doc: str, clauses: list[str]) -> list[tuple[int, int]]:
    flat = doc.replace("\n", " ")
    out = []
    for c in clauses:
        for piece in c.split("<omitted>"):
            piece = re.sub(r"\s+", " ", piece).strip()
            if len(piece) < 4:
                continue
            i = flat.find(piece)
            if i >= 0:
                out.append((i, i + len(piece)))
    return out


def overlaps(span, golds) -> bool:
    s, e = span
    for gs, ge in golds:
        ov = min(e, ge) - max(s, gs)
        if ov > 0 and (ov >= 0.5 * (e - s) or ov >= 0.8 * (ge - gs)):
            return True
    return False


TOKEN = re.compile(r"[a-z0-9]+")
STOP = set(["the", "a", "an", "of", "to", "and", "or", "in", "on", "for", "by", "with", "is", "are", "be", "this", "that", "any", "as", "at", "from", "it", "its", "such", "may", "shall", "will", "which", "who", "what", "does", "do", "how", "when", "can", "there"])


def toks(s: str) -> list[str]:
    return [t for t in TOKEN.findall(s.lower()) if t not in STOP]


class BM25:
    def __init__(self, docs: list[str]):
        self.docs = [Counter(toks(d)) for d in docs]
        self.len = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.len) / max(len(self.len), 1)
        df = Counter(t for d in self.docs for t in d)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, q: str) -> list[float]:
        qt = toks(q)
        out = []
        for d, dl in zip(self.docs, self.len, strict=True):
            s = 0.0
            for t in qt:
                f = d.get(t, 0)
                if f:
                    s += self.idf[t] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * dl / self.avg))
            out.append(s)
        return out


def swap(fact: str, pool: list[str], rng: random.Random) -> str | None:
    others = [p for p in pool if p.lower() != fact.lower()]
    return rng.choice(others) if others else None


def cuad_pairs(rng: random.Random):
    rows = [json.loads(line) for line in (CORPUS / "cuad-train" / "labels.jsonl").read_text().splitlines()]
    pool = swap_pool(rows)
    by_doc: dict[str, list[dict]] = {}
    for r in rows:
        by_doc.setdefault(r["txt"], []).append(r)
    for name in sorted(by_doc):
        split = split_of(name)
        doc, spans = sentences((CORPUS / "cuad-train" / name).read_text(errors="replace"))
        texts = [doc[s:e] for s, e in spans]
        keep = [i for i, t in enumerate(texts) if len(t.split()) >= 4]
        if not keep:
            continue
        bm = BM25([texts[i] for i in keep])
        gold_of = {r["category"]: [i for i in keep if overlaps(spans[i], gold_ranges(doc, r["clauses"]))]
                   for r in by_doc[name] if r["category"] in QUESTIONS and r["clauses"]}
        for r in by_doc[name]:
            cat = r["category"]
            if cat not in QUESTIONS:
                continue
            pos = gold_of.get(cat, [])
            if r["clauses"] and not pos:
                continue  # gold not located: no trustworthy pairs
            q = rng.choice(QUESTIONS[cat])
            sc = bm.scores(q)
            order = sorted(range(len(keep)), key=lambda j: -sc[j])
            negs = [keep[j] for j in order if keep[j] not in pos][:6]
            rand = [i for i in keep if i not in pos]
            base = dict(split=split, doc=name, cat=cat)
            if pos:
                p = rng.choice(pos)
                yield dict(base, kind="rel", a=q, b=texts[p], label=1)
                if len(pos) > 1 and split == "train":  # another gold sentence, asked another way
                    yield dict(base, kind="rel", a=rng.choice(QUESTIONS[cat]), b=texts[rng.choice(pos)], label=1)
                # another category's clause in the same contract: legal, on a neighbouring topic,
                # and not an answer (what keeps an off-topic question from finding "evidence")
                neighbours = [i for c, g in gold_of.items() if c != cat for i in g if i not in pos]
                if neighbours:
                    yield dict(base, kind="rel", a=q, b=texts[rng.choice(neighbours)], label=0)
                hard = negs[:2] if split != "train" else rng.sample(negs[:4], min(2, len(negs[:4])))
                for n in hard:
                    yield dict(base, kind="rel", a=q, b=texts[n], label=0)
                if rand:
                    yield dict(base, kind="rel", a=q, b=texts[rng.choice(rand)], label=0)
                facts = fact_claims(cat, r["answer"] or "")
                if facts:
                    c = rng.choice(facts)
                    yield dict(base, kind="sup", a=c, b=texts[p], label=1, rel=1, fact=True)
                    other = swap(r["answer"], pool[cat], rng)
                    if other:
                        # the same clause, another fact: on topic (rel 1) but not supported (label 0)
                        yield dict(base, kind="sup", a=rng.choice(fact_claims(cat, other)), b=texts[p], label=0,
                                   rel=1, fact=True, swapped=True)
                    if other and r["answer"].strip() in texts[p]:
                        # the clause with its fact swapped (the claim kept): the span must be read
                        yield dict(base, kind="sup", a=c, b=texts[p].replace(r["answer"].strip(), other), label=0,
                                   rel=1, fact=True, swapped=True)
                    if negs:
                        yield dict(base, kind="sup", a=c, b=texts[negs[0]], label=0, rel=0, fact=True)
                elif cat in CLAIMS:
                    c = rng.choice(CLAIMS[cat])
                    yield dict(base, kind="sup", a=c, b=texts[p], label=1, rel=1)
                    if negs:
                        yield dict(base, kind="sup", a=c, b=texts[negs[0]], label=0, rel=0)
            elif negs and rng.random() < 0.5:
                # the category is absent: the most similar sentences do not answer
                yield dict(base, kind="rel", a=q, b=texts[negs[0]], label=0)
                if cat in CLAIMS:
                    yield dict(base, kind="sup", a=rng.choice(CLAIMS[cat]), b=texts[negs[0]], label=0, rel=0)


# Questions and claims no contract answers (science, medicine, sport, cooking, geography,
# computing): against a contract's sentences, even its most similar ones, they are neither
# relevant nor supported. Without them every question the model saw was a contract question,
# and a generic clause ("The parties agree as follows") looked like an answer to anything.
OFF_TOPIC = [
    "What is the melting point of tungsten?", "How many moons does Jupiter have?",
    "What dose of paracetamol is safe for children?", "Who won the 1998 football world cup?",
    "How long should pasta be boiled?", "What is the capital of Australia?",
    "Which vaccine schedule is recommended for infants?", "How does photosynthesis work?",
    "What is the boiling point of water at high altitude?", "How do I reset a forgotten router password?",
    "What causes the seasons on Earth?", "Which programming language is fastest for numerical code?",
    "How should multifactor authentication be configured for remote access?",
    "What were the findings of the clinical trial on hepatitis C treatment?",
    "How tall is Mount Everest?", "What is the half-life of carbon-14?",
    "Which species of birds migrate across the Sahara?", "How many players are on a rugby team?",
    "What temperature should chicken be cooked to?", "When did the Roman Empire fall?",
    "What is the speed of light in a vacuum?", "How are earthquakes measured?",
    "Which antibiotics treat tuberculosis?", "What is the population of Brazil?",
    "How should audit logs be reviewed and retained for information systems?",
    "What is the recommended daily intake of vitamin D?", "How do solar panels generate electricity?",
    "Who painted the Sistine Chapel ceiling?", "What is the tallest tree species?",
    "How is blood pressure measured?",
]
OFF_TOPIC_CLAIMS = [
    "Tungsten melts at 3,422 degrees Celsius.", "Jupiter has 95 known moons.",
    "Children may take paracetamol every four hours.", "Pasta should be boiled for ten minutes.",
    "Canberra is the capital of Australia.", "Water boils at a lower temperature at high altitude.",
    "Chicken must be cooked to 74 degrees Celsius.", "The speed of light is about 300,000 km per second.",
    "Mount Everest is 8,849 metres tall.", "Adults need 600 IU of vitamin D per day.",
]


def off_topic_pairs(rng: random.Random):
    """Off-topic questions and claims against contract sentences (the BM25-closest and a random
    one), negative on both outputs; split by contract like the rest."""
    rows = [json.loads(line) for line in (CORPUS / "cuad-train" / "labels.jsonl").read_text().splitlines()]
    for name in sorted({r["txt"] for r in rows}):
        split = split_of(name)
        doc, spans = sentences((CORPUS / "cuad-train" / name).read_text(errors="replace"))
        texts = [doc[s:e] for s, e in spans if len(doc[s:e].split()) >= 4]
        if not texts:
            continue
        bm = BM25(texts)
        base = dict(split=split, doc=name, cat="off-topic")
        for q in rng.sample(OFF_TOPIC, 3):
            sc = bm.scores(q)
            best = max(range(len(texts)), key=lambda j: sc[j])
            yield dict(base, kind="rel", a=q, b=texts[best], label=0)
            yield dict(base, kind="rel", a=q, b=rng.choice(texts), label=0)
        c = rng.choice(OFF_TOPIC_CLAIMS)
        yield dict(base, kind="sup", a=c, b=rng.choice(texts), label=0, rel=0)


def nli_pairs(rng: random.Random, path: Path, hyps: set[str] | None, split: str):
    """ContractNLI: (hypothesis, evidence span) supported when entailed, not when contradicted,
    relevant (rel 1) either way; (hypothesis, similar non-evidence span) neither."""
    data = json.loads(path.read_text())
    hyp = {k: v["hypothesis"] for k, v in data["labels"].items()}
    for doc in data["documents"]:
        text = doc["text"]
        spans = [(s, e) for s, e in doc["spans"]]
        stexts = [re.sub(r"\s+", " ", text[s:e]).strip() for s, e in spans]
        ok = [i for i, t in enumerate(stexts) if len(t.split()) >= 4]
        bm = BM25([stexts[i] for i in ok])
        for key, a in doc["annotation_sets"][0]["annotations"].items():
            if hyps is not None and key not in hyps:
                continue
            h = hyp[key]
            ev = [i for i in a["spans"] if i in ok]
            base = dict(split=split, doc=doc["id"], cat=key)
            for i in ev[:4]:
                yield dict(base, kind="nli", a=h, b=stexts[i], label=int(a["choice"] == "Entailment"), rel=1)
            sc = bm.scores(h)
            order = sorted(range(len(ok)), key=lambda j: -sc[j])
            negs = [ok[j] for j in order if ok[j] not in a["spans"]][:3]
            for n in negs[:3]:
                yield dict(base, kind="nli", a=h, b=stexts[n], label=0, rel=0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(ROOT / "train" / "out" / "pairs.jsonl"))
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--continuation", default=None, help="also write the second run's pairs (off-topic + replay) here")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    n = Counter()
    with out.open("w") as f:
        for row in cuad_pairs(rng):
            n[(row["split"], row["kind"], row["label"])] += 1
            f.write(json.dumps(row) + "\n")
        for row in off_topic_pairs(rng):
            n[(row["split"], row["kind"], row["label"])] += 1
            f.write(json.dumps(row) + "\n")
        for row in nli_pairs(rng, CORPUS / "contract-nli" / "train_truncated.json", TRAIN_HYPS, "train"):
            n[(row["split"], row["kind"], row["label"])] += 1
            f.write(json.dumps(row) + "\n")
    for k in sorted(n):
        print(*k, n[k])
    if args.continuation:
        continuation(out, Path(args.continuation))
    return 0


def continuation(pairs: Path, out: Path, seed: int = 5) -> None:
    """The second training run's pairs: every off-topic training pair, with a replay sample of
    the rest (3,500 relevance, 1,800 support, 700 ContractNLI) so the first run is not forgotten."""
    rng = random.Random(seed)
    rows = [json.loads(line) for line in pairs.read_text().splitlines()]
    train = [r for r in rows if r["split"] == "train"]
    rest = [r for r in train if r["cat"] != "off-topic"]
    rng.shuffle(rest)
    mix = [r for r in train if r["cat"] == "off-topic"]
    for kind, k in (("rel", 3500), ("sup", 1800), ("nli", 700)):
        mix += [r for r in rest if r["kind"] == kind][:k]
    out.write_text("".join(json.dumps(r) + "\n" for r in mix))
    print(f"continuation pairs: {len(mix)} -> {out}")


if __name__ == "__main__":
    raise SystemExit(main())

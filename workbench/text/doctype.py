"""Which kind of source a document is (contract, statute, policy, paper), guessed from its own
words on the first pages. A guess for a default only: the user's choice always wins, and a
document that gives no clear signal stays "other"."""

from __future__ import annotations

import re

_SIGNALS: dict[str, list[tuple[str, float]]] = {
    "contract": [(r"\bagreement\b", 2), (r"\bthe parties\b|\bparty\b", 1.5), (r"\bwhereas\b", 2),
                 (r"\bhereinafter\b|\bhereto\b|\bhereunder\b", 1.5), (r"\bin witness whereof\b", 3),
                 (r"\bwitnesseth\b", 3), (r"\b(licensor|licensee|franchisor|franchisee|seller|buyer|reseller)\b", 1.5),
                 (r"\beffective date\b", 1), (r"\bterminat(e|ion)\b", 0.5), (r"\bgoverning law\b|\bgoverned by\b", 1.5)],
    "statute": [(r"\bbe it enacted\b", 4), (r"\bpublic law\b", 2), (r"\bu\.s\.c\.", 1.5), (r"§", 1),
                (r"\bcongress\b", 1), (r"\bshort title\b", 2.5), (r"\b(an )?act\b.{0,40}\bto amend\b", 2.5),
                (r"\bfederal register\b", 1.5), (r"\bcfr\b|\bcode of federal regulations\b", 1.5),
                (r"\b(proposed|final) rule\b", 2), (r"\bregulation\b", 0.5)],
    "policy": [(r"\bpolicy\b", 1), (r"\bspecial publication\b", 3), (r"\bsecurity requirements?\b", 2),
               (r"\bguidelines?\b", 2), (r"\brecommendations?\b", 1), (r"\bstandards?\b", 0.5), (r"\bshall\b", 0.3), (r"\bprocedures?\b", 0.5),
               (r"\bcompliance\b", 0.5), (r"\borganizations? (shall|must|should)\b", 1.5)],
    "paper": [(r"\babstract\b", 2), (r"\bintroduction\b", 0.5), (r"\breferences\b|\bbibliography\b", 1),
              (r"\bet al\.", 1.5), (r"\barxiv\b", 2.5), (r"\bwe (propose|present|show)\b", 2.5),
              (r"\b(university|institute of technology)\b", 0.5), (r"\bproceedings\b|\bconference\b", 1)],
}
CHARS = 12_000


def infer_source_type(text: str, title: str | None = None) -> str:
    """"contract", "statute", "policy" or "paper" when the first pages say so clearly, else
    "other". Title words count double."""
    head = ((title or "") + "\n" + (title or "") + "\n" + text[:CHARS]).lower()
    scores = {}
    for kind, signals in _SIGNALS.items():
        score = 0.0
        for pattern, weight in signals:
            n = len(re.findall(pattern, head))
            score += weight * min(n, 5) ** 0.5  # a word repeated adds less and less
        scores[kind] = score
    best = max(scores, key=scores.get)
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] < 4 or ranked[0] < 1.3 * ranked[1]:
        return "other"
    return best

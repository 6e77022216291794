"""Facts read from a claim and a passage, and compared: jurisdictions, dates, durations, amounts,
percentages and numbers, in any written form ("sixty (60) days", "19th day of May, 2010", "5/8/14").

A learned support score says whether a passage is about what a claim says; it does not reliably
tell Delaware from New York or 30 days from sixty. This module does, deterministically: a claim
that states a fact is supported only by a passage that states the same fact, and a passage that
states a different fact of the same kind contradicts it. `compare` names the facts in words
(never stems), so the reason can be shown to a reviewer as it is."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --- vocabularies ------------------------------------------------------------------------------
US_STATES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
    "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky",
    "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri",
    "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York",
    "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island",
    "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington",
    "West Virginia", "Wisconsin", "Wyoming", "District of Columbia", "Puerto Rico",
]
OTHER_JURISDICTIONS = [
    "United States", "Canada", "Ontario", "Quebec", "British Columbia", "Alberta", "Nova Scotia",
    "England and Wales", "England", "Wales", "Scotland", "Northern Ireland", "United Kingdom", "Ireland",
    "Germany", "France", "Italy", "Spain", "Portugal", "Netherlands", "Belgium", "Luxembourg", "Switzerland",
    "Austria", "Sweden", "Norway", "Denmark", "Finland", "Poland", "Israel", "India", "China",
    "People's Republic of China", "Hong Kong", "Singapore", "Japan", "Korea", "Republic of Korea", "Taiwan",
    "Australia", "New South Wales", "Victoria", "Queensland", "New Zealand", "Mexico", "Brazil", "Argentina",
    "Chile", "Cayman Islands", "British Virgin Islands", "Bermuda", "South Africa", "Russia",
    "Russian Federation", "Cyprus", "Malta", "Greece", "Turkey", "United Arab Emirates", "Dubai",
    "Saudi Arabia", "Thailand", "Malaysia", "Indonesia", "Philippines", "Vietnam",
]
ALIASES = {
    "u.s.": "United States", "u.s.a.": "United States", "usa": "United States",
    "united states of america": "United States", "uk": "United Kingdom", "u.k.": "United Kingdom",
    "great britain": "United Kingdom", "prc": "People's Republic of China",
    "people's republic of china": "China", "state of new york": "New York", "new york state": "New York",
    "commonwealth of massachusetts": "Massachusetts", "commonwealth of virginia": "Virginia",
    "commonwealth of pennsylvania": "Pennsylvania", "commonwealth of kentucky": "Kentucky",
    "hong kong sar": "Hong Kong", "republic of korea": "Korea", "south korea": "Korea",
    "russian federation": "Russia",
}
_JUR_NAMES = sorted({*US_STATES, *OTHER_JURISDICTIONS, *(k for k in ALIASES if "." not in k and len(k) > 3)},
                    key=len, reverse=True)
_JUR_RE = re.compile(r"(?<![A-Za-z])(" + "|".join(re.escape(n) for n in _JUR_NAMES) + r")(?![A-Za-z])",
                     re.IGNORECASE)
# "a Delaware corporation", "New York limited liability company": where a party is organised,
# not which law governs
_INCORPORATION = re.compile(
    r"^\s*(?:general\s+|limited\s+|business\s+|statutory\s+|banking\s+|not-for-profit\s+|nonprofit\s+|public\s+|"
    r"private\s+|state\s+|stock\s+)*(?:corporation|corp\b|company|limited liability|llc|l\.l\.c|partnership|"
    r"trust|bank|entity)", re.IGNORECASE)
_LAW_BEFORE = re.compile(r"(?:laws?|statutes?|courts?|jurisdiction|venue|governed|construed|"
                         r"arbitration|in and for|seated in)\b[^.;]{0,60}$", re.IGNORECASE)
_LAW_AFTER = re.compile(r"^\s*(?:law|laws|courts?|statutes?|jurisdiction)\b", re.IGNORECASE)

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
_MONTH_RE = (r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
             r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")

SMALL = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"])}
TENS = {w: 10 * (i + 2) for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])}
SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
ORDINALS = {w: i + 1 for i, w in enumerate(
    ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"])}
ORDINALS.update({"thirtieth": 30, "twenty-first": 21, "twenty-second": 22, "twenty-third": 23,
                 "twenty-fourth": 24, "twenty-fifth": 25, "twenty-sixth": 26, "twenty-seventh": 27,
                 "twenty-eighth": 28, "twenty-ninth": 29, "thirty-first": 31})
_NUMWORD = r"(?:" + "|".join([*SMALL, *TENS, *SCALES]) + r")"
_NUMWORDS_RE = re.compile(r"(?<![A-Za-z-])" + _NUMWORD + r"(?:(?:\s*-\s*|\s+(?:and\s+)?)" + _NUMWORD + r")*(?![A-Za-z])",
                          re.IGNORECASE)
_DIGITS_RE = re.compile(r"(?<![\w.,/])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s+(million|billion|thousand))?(?![\w/])",
                        re.IGNORECASE)

UNIT_DAYS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1.0, "business day": 1.0, "calendar day": 1.0,
             "working day": 1.0, "week": 7.0, "month": 30.44, "quarter": 91.3, "year": 365.25}
_UNIT_RE = re.compile(r"^\s*(?:\(\s*\d[\d,]*\s*\)\s*)?-?\s*(business day|calendar day|working day|minute|hour|day|"
                      r"week|month|quarter|year)s?\b", re.IGNORECASE)
_CURRENCY_BEFORE = re.compile(r"(US\s?\$|U\.S\.\s?\$|C\$|CA\$|A\$|\$|USD|EUR|GBP|CAD|€|£|¥|RMB)\s*$", re.IGNORECASE)
_CURRENCY_AFTER = re.compile(r"^\s*(?:\(\s*[^)]{0,20}\)\s*)?(dollars|euros?|pounds sterling|pounds|USD|EUR|GBP|CAD|"
                             r"U\.S\. dollars|US dollars|United States dollars)\b", re.IGNORECASE)
_PERCENT_AFTER = re.compile(r"^\s*(?:\(\s*[\d.]+\s*%?\s*\)\s*)?(%|percent\b|per cent\b|per-cent\b)", re.IGNORECASE)
_PAREN_DIGITS = re.compile(r"^\s*\(\s*(?:[$€£]\s*)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%)?\s*\)")

CURRENCY = {"$": "USD", "us$": "USD", "u.s.$": "USD", "usd": "USD", "dollars": "USD", "u.s. dollars": "USD",
            "us dollars": "USD", "united states dollars": "USD", "c$": "CAD", "ca$": "CAD", "cad": "CAD",
            "a$": "AUD", "eur": "EUR", "€": "EUR", "euro": "EUR", "euros": "EUR", "gbp": "GBP", "£": "GBP",
            "pounds": "GBP", "pounds sterling": "GBP", "¥": "JPY", "rmb": "CNY"}


@dataclass(frozen=True)
class Fact:
    """One fact: kind ("jurisdiction", "date", "duration", "amount", "percent", "number"),
    a normalised value to compare, and the words as written (shown to the reviewer)."""

    kind: str
    value: tuple
    text: str
    start: int = 0
    role: str = ""  # jurisdiction: "law" (governing law, courts) or "incorporation" or ""
    count: float = 0.0  # duration: the number of units as written ("sixty (60) days": 60)

    def words(self) -> str:
        return self.text


@dataclass
class FactCheck:
    """How a passage stands to the facts a claim states."""

    matched: list[tuple[Fact, Fact]] = field(default_factory=list)
    conflicts: list[tuple[Fact, list[Fact]]] = field(default_factory=list)
    missing: list[Fact] = field(default_factory=list)

    @property
    def claim_has_facts(self) -> bool:
        return bool(self.matched or self.conflicts or self.missing)

    @property
    def ok(self) -> bool:
        """Every fact the claim states is stated the same way in the passage."""
        return not self.conflicts and not self.missing

    @property
    def reason(self) -> str:
        """One readable sentence: the conflict, else what is missing, else what matched."""
        if self.conflicts:
            c, s = self.conflicts[0]
            return (f"the claim says {_describe(c)}, the passage says "
                    f"{' / '.join(dict.fromkeys(_describe(f) for f in s))}")
        if self.missing:
            return "the passage does not state " + ", ".join(_describe(f) for f in self.missing)
        if self.matched:
            return "the passage states the same " + ", ".join(
                dict.fromkeys(f"{_KIND_WORDS[c.kind]} ({_describe(s) if c.kind == 'jurisdiction' else s.text})"
                              for c, s in self.matched))
        return ""


_KIND_WORDS = {"jurisdiction": "jurisdiction", "date": "date", "duration": "period", "amount": "amount",
               "percent": "percentage", "number": "number"}


def _describe(f: Fact) -> str:
    if f.kind == "jurisdiction":
        return f"the laws of {f.value[0]}" if f.role == "law" else f.value[0]
    return f.text


# --- numbers -----------------------------------------------------------------------------------
def words_to_number(s: str) -> int | None:
    """'sixty' -> 60, 'one hundred twenty-five' -> 125, 'two million' -> 2000000."""
    total, cur, seen = 0, 0, False
    for w in re.split(r"[\s-]+", s.lower()):
        if not w or w == "and":
            continue
        if w in SMALL:
            cur += SMALL[w]
        elif w in TENS:
            cur += TENS[w]
        elif w == "hundred":
            cur = max(cur, 1) * 100
        elif w in SCALES:
            total += max(cur, 1) * SCALES[w]
            cur = 0
        else:
            return None
        seen = True
    return total + cur if seen else None


@dataclass
class _Num:
    value: float
    start: int
    end: int


def _numbers(text: str, taken: list[tuple[int, int]]) -> list[_Num]:
    """Numbers written in digits or words; "sixty (60)" is one number spanning both."""
    out: list[_Num] = []
    for m in _NUMWORDS_RE.finditer(text):
        v = words_to_number(m.group(0))
        if v is None or all(w.lower() in SCALES for w in re.split(r"[\s-]+", m.group(0)) if w):
            continue  # "million" alone: the scale of a number written in digits
        end = m.end()
        p = _PAREN_DIGITS.match(text[end:])
        if p and float(p.group(1).replace(",", "")) == v:
            end += p.end()
        out.append(_Num(float(v), m.start(), end))
    for m in _DIGITS_RE.finditer(text):
        if any(s <= m.start() < e for s, e in taken) or any(n.start <= m.start() < n.end for n in out):
            continue
        v = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        if m.group(3):
            v *= SCALES[m.group(3).lower()]
        out.append(_Num(v, m.start(), m.end()))
    out = [n for n in out if not any(s <= n.start < e for s, e in taken)]
    return sorted(out, key=lambda n: n.start)


def _fmt(v: float) -> str:
    return f"{int(v):,}" if v == int(v) else f"{v:,.2f}"


# --- dates -------------------------------------------------------------------------------------
def _month(s: str) -> int:
    s = s.lower().rstrip(".")
    for i, m in enumerate(MONTHS):
        if m.startswith(s[:3]):
            return i + 1
    raise ValueError(s)


_ORD_WORD = "|".join(sorted(ORDINALS, key=len, reverse=True))
_DATE_RES = [
    # May 8, 2014 / May 8th 2014 / July 11 , 2006
    ("mdy", re.compile(r"\b" + _MONTH_RE + r"\s+(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(\d{4})\b", re.IGNORECASE)),
    # 19th day of May, 2010 / 8 May 2014 / 1st of June 2000
    ("dmy", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+of\s+|of\s+)?" + _MONTH_RE + r"\s*,?\s*(?:of\s+)?(\d{4})\b",
                       re.IGNORECASE)),
    # twenty-first day of June, 1999
    ("wdmy", re.compile(r"\b(" + _ORD_WORD + r")\s+(?:day\s+of\s+|of\s+)?" + _MONTH_RE + r"\s*,?\s*(?:of\s+)?(\d{4})\b",
                        re.IGNORECASE)),
    # 2014-05-08
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    # 5/8/14, 05/08/2014, 5.8.2014 read as US month/day/year
    ("num", re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?![\d/])")),
    # May 2014 (no day)
    ("my", re.compile(r"\b" + _MONTH_RE + r"\s*,?\s+(\d{4})\b", re.IGNORECASE)),
]


def _dates(text: str) -> list[Fact]:
    out: list[Fact] = []
    taken: list[tuple[int, int]] = []
    for kind, rx in _DATE_RES:
        for m in rx.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            try:
                if kind == "mdy":
                    y, mo, d = int(m[3]), _month(m[1]), int(m[2])
                elif kind == "dmy":
                    y, mo, d = int(m[3]), _month(m[2]), int(m[1])
                elif kind == "wdmy":
                    y, mo, d = int(m[3]), _month(m[2]), ORDINALS[m[1].lower()]
                elif kind == "iso":
                    y, mo, d = int(m[1]), int(m[2]), int(m[3])
                elif kind == "num":
                    mo, d, y = int(m[1]), int(m[2]), int(m[3])
                    if y < 100:
                        y += 2000 if y < 50 else 1900
                else:
                    y, mo, d = int(m[2]), _month(m[1]), 0
            except (ValueError, KeyError):
                continue
            if not (1 <= mo <= 12 and 0 <= d <= 31 and 1800 <= y <= 2200):
                continue
            taken.append((m.start(), m.end()))
            out.append(Fact("date", (y, mo, d), m.group(0).strip(), m.start()))
    return sorted(out, key=lambda f: f.start)


# --- jurisdictions -----------------------------------------------------------------------------
def _canon_jur(name: str) -> str:
    low = name.lower()
    if low in ALIASES:
        return ALIASES[low]
    for n in (*US_STATES, *OTHER_JURISDICTIONS):
        if n.lower() == low:
            return n
    return name


def _jurisdictions(text: str) -> list[Fact]:
    out = []
    for m in _JUR_RE.finditer(text):
        name = _canon_jur(m.group(1))
        surface = m.group(1)
        # "Washington" and "Victoria" are also people and cities: count them only as "State of
        # Washington" or in a law context
        before, after = text[max(0, m.start() - 80):m.start()], text[m.end():m.end() + 40]
        if _INCORPORATION.match(after):
            role = "incorporation"
        elif _LAW_BEFORE.search(before) or _LAW_AFTER.match(after):
            role = "law"
        else:
            role = ""
        if name in ("Washington", "Victoria", "Georgia") and role != "law" and not re.search(
                r"(?:state|commonwealth) of\s*$", before, re.IGNORECASE):
            continue
        if m.group(1)[0].islower():
            continue  # "indiana" in a URL, "maine" in a word: names are capitalised
        out.append(Fact("jurisdiction", (name,), surface, m.start(), role))
    return out


# --- the whole set -----------------------------------------------------------------------------
def extract(text: str) -> list[Fact]:
    """All facts in `text`, in order of appearance."""
    facts = _dates(text)
    taken = [(f.start, f.start + len(f.text)) for f in facts]
    facts += _jurisdictions(text)
    consumed = -1
    for n in _numbers(text, taken):
        if n.start < consumed:
            continue  # the "(7%)" or "($1,500,000)" repeating the fact just read
        fact = _number_fact(text, n)
        if fact is None:
            continue
        end = fact.start + len(fact.text)
        rep = _REPEAT.match(text, end)
        if rep:
            inner = [f for f in extract(rep.group(1)) if f.kind in (fact.kind, "number")]
            if inner and all(_numeric(f) == _numeric(fact) for f in inner):
                consumed = rep.end()
                fact = Fact(fact.kind, fact.value, text[fact.start:rep.end()].strip(), fact.start, count=fact.count)
        facts.append(fact)
    return sorted(facts, key=lambda f: f.start)


_REPEAT = re.compile(r"\s*\(([^()]{1,60})\)")


def _numeric(f: Fact) -> float:
    return f.value[-1] if f.kind != "duration" else f.count or f.value[0]


def _number_fact(text: str, n: _Num) -> Fact | None:
    """What a number is: a period, a percentage, an amount of money, or a bare number."""
    before, after = text[max(0, n.start - 12):n.start], text[n.end:n.end + 40]
    surface = text[n.start:n.end]
    if (u := _UNIT_RE.match(after)) and n.value > 0:
        days = n.value * UNIT_DAYS[u.group(1).lower()]
        return Fact("duration", (round(days, 4),), text[n.start:n.end + u.end()].strip(), n.start, count=n.value)
    if p := _PERCENT_AFTER.match(after):
        return Fact("percent", (n.value,), text[n.start:n.end + p.end()].strip(), n.start)
    if c := _CURRENCY_BEFORE.search(before):
        cur = CURRENCY.get(c.group(1).lower().replace(" ", ""), c.group(1).upper())
        s0 = n.start - len(c.group(0))
        return Fact("amount", (cur, n.value), text[s0:n.end].strip(), s0)
    if c := _CURRENCY_AFTER.match(after):
        cur = CURRENCY.get(c.group(1).lower(), c.group(1).upper())
        return Fact("amount", (cur, n.value), text[n.start:n.end + c.end()].strip(), n.start)
    if re.search(r"(?:section|article|clause|exhibit|schedule|paragraph|§)\s*$", before, re.IGNORECASE):
        return None  # a reference, not a stated number
    if not surface[0].isdigit() and n.value < 2 and not _PAREN_DIGITS.match(text[n.start + len(surface.split()[0]):]):
        return None  # "one of the parties", "zero" as a word: not a stated number
    return Fact("number", (n.value,), surface.strip(), n.start)


def _same(kind: str, a: tuple, b: tuple) -> bool:
    if kind == "duration":
        return abs(a[0] - b[0]) <= 0.03 * max(a[0], b[0])
    if kind == "date":
        if a[2] == 0 or b[2] == 0:  # "May 2014" against "May 8, 2014": same month and year
            return a[:2] == b[:2]
        return a == b
    return a == b


def _spanned_numbers(facts: list[Fact]) -> set[float]:
    """Every number stated anywhere in a passage, whatever its kind (a duration's count, a date's day)."""
    out: set[float] = set()
    for f in facts:
        if f.kind in ("number", "percent"):
            out.add(f.value[0])
        elif f.kind == "amount":
            out.add(f.value[1])
    return out


def compare(claim: str, span: str) -> FactCheck:
    """Compare the facts `claim` states with those `span` states.

    A claim fact is matched when the span states the same fact (any written form); in conflict
    when the span states facts of the same kind and none is the same (for jurisdictions, the
    governing-law ones when the claim speaks of governing law); missing otherwise."""
    cf, sf = extract(claim), extract(span)
    check = FactCheck()
    by_kind: dict[str, list[Fact]] = {}
    for f in sf:
        by_kind.setdefault(f.kind, []).append(f)
    span_numbers = _spanned_numbers(sf)
    for c in cf:
        if c.kind == "jurisdiction" and c.role == "incorporation":
            continue
        pool = by_kind.get(c.kind, [])
        if c.kind == "jurisdiction":
            law = [f for f in pool if f.role == "law"]
            pool = law if (c.role == "law" or _claim_is_about_law(claim)) and law else \
                [f for f in pool if f.role != "incorporation"]
        same = [f for f in pool if _same(c.kind, c.value, f.value)]
        if same:
            check.matched.append((c, same[0]))
        elif c.kind == "duration" and not pool and (nums := by_kind.get("number")):
            # "a sixty (60) written notice": the passage counts without naming the unit
            same_n = [f for f in nums if f.value[0] == c.count]
            if same_n:
                check.matched.append((c, same_n[0]))
            else:
                check.conflicts.append((c, nums))
        elif c.kind == "number" and c.value[0] in span_numbers:
            check.matched.append((c, next(f for f in sf if c.value[0] in _spanned_numbers([f]))))
        elif pool and c.kind != "number":
            check.conflicts.append((c, pool))
        else:
            check.missing.append(c)
    return check


def _claim_is_about_law(claim: str) -> bool:
    return bool(re.search(r"\b(?:law|laws|governed|governing|jurisdiction|courts?)\b", claim, re.IGNORECASE))

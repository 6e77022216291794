"""OCR of pages without usable text (issue 42): Tesseract reads a page image PyMuPDF renders, and
its TSV output gives each word's box and confidence, which become the page's words exactly as a
text layer's would (open_pdf builds text, offsets and boxes from them), so quotes, SHA-256,
offsets and boxes work on a scan as on a born-digital page.

Why the `tesseract` command and TSV rather than PyMuPDF's `get_textpage_ocr`: the latter runs
the same Tesseract but returns no confidence, and a reviewer must be able to see how sure the
machine was. The same run writes hOCR too, for each line's baseline and heights: a word's box then
spans its line's ascender-to-descender band at that word (LineBand), as a text layer's word box
spans its font's height, instead of hugging the word's ink ("or" half as tall as "Notice"). Tesseract is Debian-packaged (`tesseract-ocr`, `tesseract-ocr-<lang>`), needs no
model download, and reads a 300-dpi page in a few seconds on one core. Pages are rendered here,
one at a time, and read by up to Settings.ocr_processes Tesseract processes at once (each held to
one thread: OMP_THREAD_LIMIT=1, pages in parallel rather than threads fighting over a page).
Where Tesseract or every asked-for language pack is missing, nothing fails: the page is named as
a page without text, as before, and the warning says why."""

from __future__ import annotations

import contextlib
import csv
import io
import logging
import resource
import shutil
import signal
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.config import Settings, child_env
from workbench.pdf.extract import RawWord
from workbench.pdf.mupdf import mupdf

if TYPE_CHECKING:
    import pymupdf

log = logging.getLogger(__name__)

# One page: a Tesseract that has used this much CPU time on it is stuck, not slow. CPU time, not
# wall-clock: on a loaded machine (or one paused) a page waits its turn without being failed. The
# wall-clock limit only catches a process that never gets the CPU at all.
PAGE_CPU_S = 300
PAGE_WALL_S = 1800


@dataclass(frozen=True, slots=True)
class PageOcr:
    """What OCR read on one page beyond its words (which join the document's words): who read
    it, and each word's confidence (0..1) in the page's word order."""

    page: int  # 1-based
    engine: str  # "tesseract 5.3.0"
    languages: str  # "eng", "eng+deu"
    confidences: tuple[float, ...]

    @property
    def mean_confidence(self) -> float:
        return sum(self.confidences) / len(self.confidences) if self.confidences else 0.0


@dataclass(frozen=True, slots=True)
class Engine:
    """An installed Tesseract: its command, version line and installed language packs."""

    cmd: str
    version: str
    languages: frozenset[str]

    @property
    def name(self) -> str:
        return f"tesseract {self.version}"


@lru_cache(maxsize=8)
def find_engine(cmd: str) -> Engine | None:
    """The Tesseract `cmd` names, or None when it is not installed or does not answer."""
    path = shutil.which(cmd)
    if path is None:
        return None
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        langs = subprocess.run([path, "--list-langs"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if version.returncode != 0 or langs.returncode != 0:
        return None
    first = (version.stdout or version.stderr).strip().splitlines()
    number = first[0].split()[-1] if first and first[0].split() else "?"
    installed = frozenset(ln.strip() for ln in langs.stdout.splitlines()[1:] if ln.strip())
    return Engine(path, number, installed)


@dataclass(frozen=True, slots=True)
class Plan:
    """Whether OCR can run with these settings: the engine and languages to use, or why not."""

    engine: Engine | None
    languages: str
    warning: str | None  # said once per document that needs OCR

    @property
    def ready(self) -> bool:
        return self.engine is not None and bool(self.languages)


def plan(settings: Settings) -> Plan:
    """The engine and the asked-for language packs that are installed; a warning when some or all
    are missing (then the pages are read with the rest, or named as pages without text)."""
    if settings.ocr == "off":
        return Plan(None, "", "OCR is off (WORKBENCH_OCR=off)")
    engine = find_engine(settings.tesseract_cmd)
    asked = [lang for lang in settings.ocr_languages.split("+") if lang.strip()]
    if engine is None:
        return Plan(None, "", f"OCR is unavailable: Tesseract ({settings.tesseract_cmd}) is not installed "
                              "(Debian: tesseract-ocr; `make run` installs it where it can)")
    have = [lang for lang in asked if lang in engine.languages]
    missing = [lang for lang in asked if lang not in engine.languages]
    if not have:
        return Plan(None, "", f"OCR is unavailable: Tesseract has no language pack for {'+'.join(asked) or '(none)'} "
                              f"(Debian: tesseract-ocr-{asked[0] if asked else 'eng'})")
    warn = (f"OCR read without the language pack(s) {', '.join(missing)} (not installed: Debian "
            f"{', '.join('tesseract-ocr-' + m for m in missing)})") if missing else None
    return Plan(engine, "+".join(have), warn)


def read_pages(doc: pymupdf.Document, numbers: Iterable[int], settings: Settings, how: Plan,
               on_page: Callable[[int, int], None] | None = None
               ) -> dict[int, tuple[list[list[list[RawWord]]], PageOcr] | None]:
    """OCR the 1-based pages `numbers` of an open document: per page its blocks → lines → words
    (boxes in the same unrotated page space as the text layer's words) and its PageOcr, or None
    where Tesseract failed on it. `on_page(done, total)` after each page, in the caller's thread."""
    assert how.engine is not None
    todo = list(numbers)
    out: dict[int, tuple[list[list[list[RawWord]]], PageOcr] | None] = {}
    if not todo:
        return out
    workers = max(1, settings.ocr_processes)
    pending: deque[tuple[int, float, Future]] = deque()
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="workbench-ocr") as pool:
        def collect_one() -> None:
            number, scale, fut = pending.popleft()
            try:
                out[number] = _page_result(doc[number - 1], number, fut.result(), scale, settings, how)
            except Exception as exc:  # noqa: BLE001 - one unreadable page leaves the rest read
                log.warning("OCR of page %d failed: %s", number, exc)
                out[number] = None
            if on_page is not None:
                on_page(len(out), len(todo))

        for number in todo:
            image, scale = _render(doc[number - 1], settings)  # PyMuPDF stays in this thread
            pending.append((number, scale, pool.submit(_tesseract, how, image)))
            while len(pending) > workers:  # at most one rendered page waiting per process
                collect_one()
        while pending:
            collect_one()
    return out


def _render(page: pymupdf.Page, settings: Settings) -> tuple[bytes, float]:
    """The page (as displayed: rotation applied) as an 8-bit grayscale PNM at ocr_dpi, or less
    where that would exceed render_max_pixels; and the points per pixel."""
    dpi = settings.ocr_dpi
    w, h = page.rect.width * dpi / 72, page.rect.height * dpi / 72
    if w * h > settings.render_max_pixels:
        dpi = int(dpi * (settings.render_max_pixels / (w * h)) ** 0.5)
    pix = page.get_pixmap(dpi=dpi, colorspace=mupdf().csGRAY, alpha=False)
    return pix.tobytes("pnm"), page.rect.width / pix.width


def _tesseract(how: Plan, image: bytes) -> tuple[str, str]:
    """Tesseract's TSV and hOCR for one page image (one recognition, both written to a private
    temporary folder); raises on failure."""
    assert how.engine is not None
    with tempfile.TemporaryDirectory(prefix="workbench-ocr-") as tmp:
        base = Path(tmp) / "page"
        proc = subprocess.Popen([how.engine.cmd, "stdin", str(base), "-l", how.languages, "--psm", "3", "tsv", "hocr"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=child_env(OMP_THREAD_LIMIT="1"))
        with contextlib.suppress(OSError):  # the kernel stops it at PAGE_CPU_S seconds of CPU (SIGXCPU)
            resource.prlimit(proc.pid, resource.RLIMIT_CPU, (PAGE_CPU_S, PAGE_CPU_S + 5))
        try:
            _out, err = proc.communicate(image, timeout=PAGE_WALL_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise RuntimeError(f"Tesseract did not finish the page in {PAGE_WALL_S} s") from None
        if proc.returncode != 0:
            if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
                raise RuntimeError(f"Tesseract used {PAGE_CPU_S} s of CPU on the page without finishing")
            raise RuntimeError(err.decode(errors="replace").strip()[:300] or f"exit {proc.returncode}")
        return (base.with_suffix(".tsv").read_text("utf-8", errors="replace"),
                base.with_suffix(".hocr").read_text("utf-8", errors="replace"))


def _page_result(page: pymupdf.Page, number: int, read: tuple[str, str], scale: float, settings: Settings,
                 how: Plan) -> tuple[list[list[list[RawWord]]], PageOcr]:
    assert how.engine is not None
    tsv, hocr = read
    blocks, confs = parse_tsv(tsv, scale, page.derotation_matrix, settings.ocr_low_confidence,
                              bands=parse_hocr_bands(hocr))
    return blocks, PageOcr(number, how.engine.name, how.languages, tuple(confs))


Box = tuple[int, int, int, int]  # pixels: left, top, right, bottom


@dataclass(frozen=True, slots=True)
class LineBand:
    """A text line's baseline and heights as Tesseract's hOCR gives them (pixels, y down): the
    baseline runs through (left, bottom + offset) with `slope`; the line's letters reach
    `height` from descender to ascender, `descent` of it below the baseline. The band never
    leaves the line's box (top..bottom), which holds all of the line's ink."""

    left: int
    top: int
    bottom: int
    slope: float
    offset: float
    height: float
    descent: float

    def over(self, x0: float, x1: float) -> tuple[float, float]:
        """The band's top and bottom over x0..x1 (its bounding box there, on a skewed line)."""
        b0 = self.bottom + self.offset + self.slope * (x0 - self.left)
        b1 = self.bottom + self.offset + self.slope * (x1 - self.left)
        return (max(self.top, min(b0, b1) - (self.height - self.descent)),
                min(self.bottom, max(b0, b1) + self.descent))


_LINE_CLASSES = frozenset({"ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"})


class _BandReader(HTMLParser):
    """Each hOCR line's title ("bbox l t r b; baseline s o; x_size h; x_descenders d; …")."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bands: dict[Box, LineBand] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if not _LINE_CLASSES.intersection((a.get("class") or "").split()):
            return
        props: dict[str, list[str]] = {}
        for part in (a.get("title") or "").split(";"):
            bits = part.split()
            if len(bits) > 1:
                props[bits[0]] = bits[1:]
        try:
            box = tuple(int(v) for v in props["bbox"])
            slope, offset = (float(v) for v in props["baseline"])
            height, descent = float(props["x_size"][0]), float(props["x_descenders"][0])
        except (KeyError, ValueError):
            return  # a line without a baseline keeps its words' own boxes
        if len(box) == 4 and 0 <= descent < height:
            self.bands[box] = LineBand(box[0], box[1], box[3], slope, offset, height, descent)  # type: ignore[arg-type]


def parse_hocr_bands(hocr: str) -> dict[Box, LineBand]:
    """Tesseract's hOCR → each line's LineBand, by the line's box (the same box as the TSV's
    line row). Read as data with the standard library's HTML tokenizer: nothing is executed."""
    reader = _BandReader()
    reader.feed(hocr)
    reader.close()
    return reader.bands


def parse_tsv(tsv: str, scale: float, derotate, low: float, bands: dict[Box, LineBand] | None = None
              ) -> tuple[list[list[list[RawWord]]], list[float]]:
    """Tesseract's TSV → blocks (its paragraphs) → lines → words, in its reading order, boxes
    scaled from pixels to points and taken back to the unrotated page space; and each kept
    word's confidence (0..1), in the same order. Punctuation-only specks below `low` confidence
    (dirt, staples, a margin's shadow) are dropped. Where `bands` holds the word's line (by its
    TSV line box), the word's box reaches from the line's ascenders to its descenders at that
    word (never less than the word's own ink), like a text layer's word box."""
    Rect = mupdf().Rect
    blocks: dict[tuple[int, int, int], dict[int, list[tuple[RawWord, float]]]] = {}
    line_band: dict[tuple[int, int, int, int], LineBand] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        level = row.get("level")
        if level not in ("4", "5"):
            continue
        text = (row.get("text") or "").strip()
        try:
            conf = float(row["conf"]) / 100.0
            left, top, width, height = (int(row[k]) for k in ("left", "top", "width", "height"))
            where = tuple(int(row[k]) for k in ("page_num", "block_num", "par_num", "line_num"))
        except (KeyError, TypeError, ValueError):
            continue
        if level == "4":
            band = (bands or {}).get((left, top, left + width, top + height))
            if band is not None:
                line_band[where] = band  # type: ignore[index]
            continue
        if not text or conf < 0 or (conf < low and not any(c.isalnum() for c in text)):
            continue
        y0, y1 = float(top), float(top + height)
        band = line_band.get(where)  # type: ignore[arg-type]
        if band is not None:
            b0, b1 = band.over(left, left + width)
            y0, y1 = min(y0, b0), max(y1, b1)
        key = (int(row["page_num"]), int(row["block_num"]), int(row["par_num"]))
        blocks.setdefault(key, {}).setdefault(int(row["line_num"]), []).append(
            ((float(left), y0, float(left + width), y1, text, 0, 0, 0), min(conf, 1.0)))
    out: list[list[list[RawWord]]] = []
    confs: list[float] = []
    for bi, lines in enumerate(blocks.values()):
        block: list[list[RawWord]] = []
        for li, words in enumerate(lines.values()):
            boxes = _widened([w[:4] for w, _c in words])
            block.append([(*_to_page(b, scale, derotate, Rect), w[4], bi, li, wi)
                          for wi, ((w, _c), b) in enumerate(zip(words, boxes, strict=True))])
            confs.extend(c for _w, c in words)
        out.append(block)
    return out, confs


NARROW = 0.35  # a word's box is at least this share of its height wide: a lower-case letter's advance


def _widened(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """A line's word boxes (pixels, in reading order), each at least NARROW × its height wide:
    for a one-letter word ("a", "I") Tesseract's LSTM may give a box 1–2 pt wide at the letter's
    right edge, which a highlight barely shows; a text layer's box spans the glyph's advance. The
    box grows leftward (where the letter's ink lies) as far as the word before it, then rightward
    as far as the word after it; it never covers a neighbour."""
    out = list(boxes)
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        need = NARROW * (y1 - y0) - (x1 - x0)
        if need <= 0:
            continue
        floor = out[i - 1][2] if i else float("-inf")
        ceil = boxes[i + 1][0] if i + 1 < len(boxes) else float("inf")
        left = max(floor, x0 - need) if floor < x0 else x0
        right = min(ceil, x1 + need - (x0 - left)) if ceil > x1 else x1
        out[i] = (left, y0, max(x1, right), y1)
    return out


def _to_page(box: tuple[float, float, float, float], scale: float, derotate, rect) -> tuple[float, float, float, float]:
    """A box in pixels → page points, taken back to the unrotated page space."""
    r = rect(box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale) * derotate
    return r.x0, r.y0, r.x1, r.y1

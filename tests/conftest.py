"""Fixtures every test area shares: the shared corpus, small PDFs made with PyMuPDF, an
isolated data directory, and the rule for browser tests (skip without Chromium, except CI)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("WORKBENCH_CORPUS", ROOT.parent / "shared" / "corpus"))
CHROMIUM = Path("/usr/bin/chromium")
IN_CI = os.environ.get("CI", "").lower() == "true"
# Tests ask for what they need; no background embedding of every ingested PDF (tests that
# exercise it turn it on). Set in os.environ so apps the browser tests start inherit it.
os.environ.setdefault("WORKBENCH_INDEX_ON_INGEST", "false")


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        if IN_CI:
            pytest.fail(f"shared corpus missing at {CORPUS}")
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not CHROMIUM.exists():
        if IN_CI:
            pytest.fail("CI=true but /usr/bin/chromium is missing: browser tests must run in CI")
        pytest.skip("Debian chromium is not installed (make test installs it when it can): browser test skipped")
    return str(CHROMIUM)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh workspace; settings read it from the environment."""
    d = tmp_path / "data"
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(d))
    monkeypatch.delenv("WORKBENCH_DATABASE_URL", raising=False)
    from workbench.config import get_settings

    get_settings.cache_clear()
    yield d
    get_settings.cache_clear()


@pytest.fixture
def make_pdf(tmp_path: Path) -> Callable[..., Path]:
    """make_pdf(["page one text", "page two text"], name="x.pdf", fontsize=11) -> path.
    Text is laid out with insert_textbox so long paragraphs wrap across lines."""
    import pymupdf

    def _make(pages: list[str], name: str = "doc.pdf", fontsize: float = 11, metadata: dict | None = None) -> Path:
        doc = pymupdf.open()
        for text in pages:
            page = doc.new_page(width=612, height=792)
            page.insert_textbox(pymupdf.Rect(72, 72, 540, 720), text, fontsize=fontsize, fontname="helv")
        if metadata:
            doc.set_metadata(metadata)
        path = tmp_path / name
        doc.save(path)
        doc.close()
        return path

    return _make


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may touch the network: only loopback and Unix sockets connect."""
    import ipaddress
    import socket

    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address, *args, **kwargs):
        if isinstance(address, tuple) and address:
            host = str(address[0])
            try:
                ok = ipaddress.ip_address(host).is_loopback
            except ValueError:
                ok = host == "localhost"
            if not ok:
                raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", guarded)


# --- OCR (issue 42): Tesseract reads each scanned page once per test session -------------------------
SCANNED = "pdfs/scanned/grumman-service-kit-1974_scanned.pdf"  # 2 typewritten pages, no text layer
SCANNED_DE = "pdfs/scanned/rohrbuch-1967-form_scanned-de.pdf"  # 8 pages of a German form, pages 3-8 rotated


def need_tesseract(*languages: str) -> None:
    """Skip (fail under CI=true) unless Tesseract and these language packs are installed."""
    from workbench.pdf.ocr import find_engine

    engine = find_engine("tesseract")
    missing = [lang for lang in languages if engine is None or lang not in engine.languages]
    if engine is None or missing:
        what = "tesseract-ocr is not installed" if engine is None else f"no Tesseract pack for {', '.join(missing)}"
        if IN_CI:
            pytest.fail(f"CI=true but {what}: OCR tests must run in CI (make test installs it)")
        pytest.skip(f"{what} (make test installs it when it can): OCR test skipped")


class CountingOcr:
    """Counts Tesseract runs (one per page read) while patched into workbench.pdf.ocr."""

    def __init__(self):
        from workbench.pdf import ocr

        self.module, self.real, self.pages = ocr, ocr._tesseract, 0

    def __call__(self, how, image):
        self.pages += 1
        return self.real(how, image)

    def __enter__(self):
        self.module._tesseract = self
        return self

    def __exit__(self, *exc):
        self.module._tesseract = self.real


class OcrWorkspace:
    """A workspace in which SCANNED was ingested (and read by OCR) once for the whole session."""

    def __init__(self, data_dir: Path, pdf: Path):
        from workbench.config import Settings
        from workbench.service import Workbench

        self.data_dir, self.pdf = data_dir, pdf
        self.settings = Settings(data_dir=data_dir, ocr_languages="eng", index_on_ingest=False)
        self.progress: list[tuple[int, int]] = []
        with CountingOcr() as counted:
            self.wb = Workbench(self.settings)
            self.doc = self.wb.ingest(pdf, on_ocr=lambda done, total: self.progress.append((done, total)))
        self.ocr_runs = counted.pages

    def fresh(self):
        """Another Workbench on the same data folder: nothing in memory, only what is on disk."""
        from workbench.service import Workbench

        return Workbench(self.settings)


@pytest.fixture(scope="session")
def ocr_workspace(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> OcrWorkspace:
    need_tesseract("eng")
    return OcrWorkspace(tmp_path_factory.mktemp("ocr-data"), corpus / SCANNED)


@pytest.fixture(scope="session")
def ocr_reference(ocr_workspace: OcrWorkspace) -> dict[int, list[tuple]]:
    """An independent reading of the scan: PyMuPDF's own OCR text page (get_textpage_ocr), words
    per page, to read back what lies under the boxes the workbench returns."""
    import pymupdf

    out = {}
    with pymupdf.open(ocr_workspace.pdf) as doc:
        for page in doc:
            tp = page.get_textpage_ocr(dpi=300, full=True, language="eng")
            out[page.number + 1] = page.get_text("words", textpage=tp, sort=True)
    return out


def words_read_under(reference: dict[int, list[tuple]], rects: list) -> str:
    """The reference words whose centre lies inside a rect (±1 pt), as check_cli.py reads back."""
    out = []
    for page in sorted({int(r[0]) for r in rects}):
        boxes = [r[1:5] for r in rects if int(r[0]) == page]
        for w in reference[page]:
            cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
            if any(x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1 for x0, y0, x1, y1 in boxes):
                out.append(w[4])
    return " ".join(out)

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

"""The data folder is the operator's alone (issue 37, item 8): it holds every PDF, the password
hashes, the integrity key and the caches, so another account on the machine must not read them.
The folder and its subfolders are created 0700, the SQLite database and the key 0600, whatever
the umask; a folder or database left too open by an older version is tightened, with a warning."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from workbench.config import get_settings

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask():
    """The usual umask (022): files come out world-readable unless created otherwise."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _workspace_with_a_document_and_an_account(make_pdf) -> None:
    from workbench.service import Workbench

    wb = Workbench(get_settings())
    doc = wb.ingest(make_pdf(["The tenant shall pay rent on the first day of each month."]))
    wb.parsed(doc.id)
    wb.add_user("ada", "admin", "correct horse battery staple")
    assert wb.store.signer.key  # the integrity key file is created on first use


def test_another_account_can_read_nothing_in_a_new_data_folder(make_pdf, data_dir, loose_umask):
    _workspace_with_a_document_and_an_account(make_pdf)
    assert mode(data_dir) == 0o700
    for sub in ("parsed", "index"):
        if (data_dir / sub).exists():
            assert mode(data_dir / sub) == 0o700, sub
    db = data_dir / "workbench.sqlite3"
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"), data_dir / "integrity.key"):
        if path.exists():
            assert mode(path) == 0o600, path.name
    assert (data_dir / "parsed").is_dir() and db.is_file()


def test_a_data_folder_left_open_is_tightened_with_a_warning(make_pdf, data_dir, loose_umask, caplog):
    _workspace_with_a_document_and_an_account(make_pdf)
    db = data_dir / "workbench.sqlite3"
    for path, m in ((data_dir, 0o755), (data_dir / "parsed", 0o755), (db, 0o644)):
        path.chmod(m)  # as an older version left them
    from workbench.service import Workbench

    with caplog.at_level(logging.WARNING):
        Workbench(get_settings()).documents()
    assert (mode(data_dir), mode(data_dir / "parsed"), mode(db)) == (0o700, 0o700, 0o600)
    assert "readable by other accounts" in caplog.text and str(data_dir) in caplog.text


def test_a_database_file_named_outside_the_data_folder_is_private_too(data_dir, tmp_path, loose_umask, monkeypatch):
    db = tmp_path / "elsewhere" / "team.sqlite3"
    monkeypatch.setenv("WORKBENCH_DATABASE_URL", f"sqlite:///{db}")
    get_settings.cache_clear()
    from workbench.service import Workbench

    Workbench(get_settings()).documents()
    assert mode(db) == 0o600 and mode(db.parent) == 0o700


def test_an_integrity_key_left_readable_is_tightened(data_dir, loose_umask, caplog):
    from workbench.store.signing import KEY_FILE, Signer

    assert Signer(get_settings()).key
    key = data_dir / KEY_FILE
    assert mode(key) == 0o600
    key.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="workbench.datadir"):
        assert Signer(get_settings()).key
    assert mode(key) == 0o600 and "made private" in caplog.text

"""The data folder is its owner's alone (issue 37): it holds every PDF, the password hashes, the
integrity key and the caches. Folders are created 0700 and the files that matter (the SQLite
database, the key) 0600, whatever the process umask; a folder or file left open by an older
version, or by hand, is tightened with a warning. Where it cannot be (not the owner, a drive
that ignores modes) the warning says so and the workbench goes on: the operator decides."""

from __future__ import annotations

import logging
import os
import secrets
import stat
import threading
from pathlib import Path

log = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) 0700, or tighten it when group or others have access."""
    path = Path(path)
    if not path.is_dir():
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        _chmod_if_open(path, DIR_MODE, created=True)  # mkdir's mode is filtered by the umask
    else:
        _chmod_if_open(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty 0600 if missing, or tighten it when group or others have access."""
    path = Path(path)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        _chmod_if_open(path, FILE_MODE, created=True)
    except FileExistsError:
        _chmod_if_open(path, FILE_MODE)
    return path


def secret_key_file(path: Path, what: str) -> bytes:
    """The random key kept in `path` (the record key, the queue key), made on first use: private,
    created with O_EXCL so processes starting together agree on one key, and waited for while a
    concurrent creator has not written it yet. An existing file left open is tightened."""
    path = Path(path)
    if path.exists():
        private_file(path)  # a key left readable by others is made private, with a warning
    else:
        private_dir(path.parent)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))
    for _ in range(50):
        key = path.read_text().strip()
        if key:
            return key.encode()
        threading.Event().wait(0.02)
    raise RuntimeError(f"the {what} file {path} is empty")


def tighten(folder: Path) -> None:
    """Tighten the data folder and the folders directly in it (parsed/, index/, ...)."""
    private_dir(folder)
    for child in Path(folder).iterdir():
        if child.is_dir() and not child.is_symlink():
            _chmod_if_open(child, DIR_MODE)


def _chmod_if_open(path: Path, mode: int, *, created: bool = False) -> None:
    if os.name != "posix":
        return
    try:
        current = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return
    if not current & 0o077:
        return
    try:
        path.chmod(mode)
    except OSError as exc:
        log.warning("%s is readable by other accounts (mode %o) and could not be made private (%s): "
                    "only its owner should be able to read or write the data folder", path, current,
                    type(exc).__name__)
        return
    if not created:
        log.warning("%s was readable by other accounts (mode %o); made private (%o): it holds the workbench's "
                    "documents, password hashes and keys", path, current, mode)

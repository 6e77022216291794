"""HMAC signatures for what the store keeps as the record: each run's JSON (verdicts, quotes,
answer) and a per-run hash chain over review events. The key lives outside the database (a file
in the data directory, or WORKBENCH_INTEGRITY_KEY), so someone who can write the database but not
read the key cannot re-sign an edited record; a mismatch flags the run on load and stops exports."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
from pathlib import Path

from workbench.config import Settings
from workbench.datadir import private_dir, private_file

KEY_FILE = "integrity.key"


class Signer:
    def __init__(self, settings: Settings):
        self.settings = settings
        self._key: bytes | None = None
        self._lock = threading.Lock()

    @property
    def key(self) -> bytes:
        if self._key is None:
            with self._lock:
                if self._key is None:
                    self._key = self._load_key()
        return self._key

    def _load_key(self) -> bytes:
        if self.settings.integrity_key:
            return self.settings.integrity_key.encode()
        path = Path(self.settings.data_dir) / KEY_FILE
        if path.exists():
            private_file(path)  # a key left readable by others is made private, with a warning
        else:
            private_dir(path.parent)
            try:  # O_EXCL: processes starting together agree on one key
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass
            else:
                with os.fdopen(fd, "w") as f:
                    f.write(secrets.token_hex(32))
        for _ in range(50):  # a concurrent creator may not have written it yet
            key = path.read_text().strip()
            if key:
                return key.encode()
            threading.Event().wait(0.02)
        raise RuntimeError(f"the integrity key file {path} is empty")

    def sign(self, *parts: str | None) -> str:
        msg = "\x1f".join("" if p is None else p for p in parts).encode()
        return hmac.new(self.key, msg, hashlib.sha256).hexdigest()

    def check(self, signature: str | None, *parts: str | None) -> bool:
        return signature is not None and hmac.compare_digest(signature, self.sign(*parts))

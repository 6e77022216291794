"""HMAC signatures for what the store keeps as the record: each run's JSON (verdicts, quotes,
answer) and a per-run hash chain over review events. The key lives outside the database (a file
in the data directory, or WORKBENCH_INTEGRITY_KEY), so someone who can write the database but not
read the key cannot re-sign an edited record; a mismatch flags the run on load and stops exports."""

from __future__ import annotations

import hashlib
import hmac
import threading
from pathlib import Path

from workbench.config import Settings
from workbench.datadir import secret_key_file

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
        return secret_key_file(Path(self.settings.data_dir) / KEY_FILE, "integrity key")

    def sign(self, *parts: str | None) -> str:
        msg = "\x1f".join("" if p is None else p for p in parts).encode()
        return hmac.new(self.key, msg, hashlib.sha256).hexdigest()

    def check(self, signature: str | None, *parts: str | None) -> bool:
        return signature is not None and hmac.compare_digest(signature.encode(), self.sign(*parts).encode())

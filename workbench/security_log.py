"""The security log: failed and throttled sign-ins, account and role changes, refused actions,
refused jobs, record problems. Rows of the store's `security_events` table, read by admins only
(Workbench.security_events, `workbench security-log --as ADMIN`).

Two ways in, for any part of the workbench:
- `security_log(kind, detail, who=None, client=None)`, or
- a record on the Python logger "workbench.security" (`logging.getLogger("workbench.security")
  .warning("...")`; its message becomes the detail, kind "log").
Both reach the store of the workspace this process opened last (`capture`, called by every
Workbench): the app, a CLI command and a worker each open one. Never put a secret in a detail."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    from workbench.store import Store

LOGGER = logging.getLogger("workbench.security")
_STORED = "security_stored"  # a record already written to a store: the handler skips it


class SecurityEvent(BaseModel):
    id: int
    at: datetime
    kind: str
    who: str | None = None
    client: str | None = None
    detail: str


def _text(detail: str | dict | None) -> str:
    if isinstance(detail, dict):
        return json.dumps(detail, ensure_ascii=False, sort_keys=True, default=str)
    return str(detail or "")


def record(store: Store, kind: str, detail: str | dict | None = None, who: str | None = None,
           client: str | None = None) -> None:
    """Write one event to `store` (and echo it on the logger). A failure to write is logged, never
    raised: the log must not turn a refusal into a different error."""
    text = _text(detail)
    try:
        store.add_security_event(kind, text, who=who, client=client)
    except Exception:  # noqa: BLE001 - the action's own outcome stands
        LOGGER.exception("could not write the security event %s", kind, extra={_STORED: True})
    LOGGER.info("%s who=%s client=%s %s", kind, who, client, text, extra={_STORED: True})


def security_log(kind: str, detail: str | dict | None = None, who: str | None = None,
                 client: str | None = None) -> None:
    """Log a security event from anywhere in this process (to the captured workspace's store)."""
    LOGGER.warning("%s who=%s client=%s %s", kind, who, client, _text(detail),
                   extra={"security_kind": kind, "security_who": who, "security_client": client,
                          "security_detail": _text(detail)})


class _StoreHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.INFO)
        self.store: Callable[[], Store] | None = None

    def emit(self, rec: logging.LogRecord) -> None:
        if getattr(rec, _STORED, False) or self.store is None:
            return
        with contextlib.suppress(Exception):  # logging must never break the caller
            self.store().add_security_event(getattr(rec, "security_kind", "log"),
                                            getattr(rec, "security_detail", None) or rec.getMessage(),
                                            who=getattr(rec, "security_who", None),
                                            client=getattr(rec, "security_client", None))


_handler = _StoreHandler()


def capture(store: Callable[[], Store]) -> None:
    """Send what the "workbench.security" logger receives to this store from now on."""
    _handler.store = store
    if _handler not in LOGGER.handlers:
        LOGGER.addHandler(_handler)
    if LOGGER.level == logging.NOTSET or LOGGER.level > logging.INFO:
        LOGGER.setLevel(logging.INFO)

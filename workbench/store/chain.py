"""The review record as proven by its hash chain, and the chain heads kept outside the database.

Each review event carries an HMAC (store/signing.py) over its fields and the chain hash of the
run's event before it. Someone who may INSERT into the events table but does not hold the key can
add rows, but never one that links into the chain: `walk` follows the chain from its start and sets
every other row aside (reported, and never deciding a status). A row copied with its chain hash
repeats a link already taken, so it is set aside too.

What a chain cannot show is its own end: the table's owner can switch its triggers off and delete
the last events, or all of them, and what is left still links. So every append also writes the
run's chain head (the last chain hash, signed) to a file outside the database, under a file lock;
a head that the database's chain does not reach means events were deleted or the database was
rolled back. docs/security/record.md says who holds what, and what an owner of both can still do.

Events recorded before migration 0004 have no chain hash. The first time a store is opened with
this module, the record is taken as it stands (`adopt`): those events are listed in their run's
head with a MAC each, so they keep counting and a later unchained row does not.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from workbench.store.signing import Signer

HEADS_DIR = "record-heads"
ADOPTED = "ADOPTED"  # marker: this folder has taken the database's record as it stood once

Row = Mapping  # a review_events row (all columns)


class Head(BaseModel):
    """The end of a run's review chain as the workbench last wrote it."""

    run_id: str
    chain: str | None = None  # chain hash of the last event; None: no chained event yet
    events: int = 0  # chained events up to `chain`
    pending: str | None = None  # the chain hash of an append not known to be committed yet
    legacy: dict[str, str] = Field(default_factory=dict)  # event id → MAC, events from before 0004
    sig: str = ""

    def signed_parts(self) -> tuple[str, ...]:
        legacy = json.dumps(self.legacy, sort_keys=True)
        return ("head", self.run_id, self.chain or "", str(self.events), self.pending or "", legacy)


@dataclass
class Walk:
    """A run's events as the chain proves them, and what was found wrong."""

    accepted: list[Row] = field(default_factory=list)  # in id order: legacy events, then the chain
    end: str | None = None  # the last chain hash reached
    chained: int = 0
    set_aside: list[str] = field(default_factory=list)  # rows that are not part of the record
    erased: list[str] = field(default_factory=list)  # the record's end or its old events are missing

    @property
    def problems(self) -> list[str]:
        return self.set_aside + self.erased


def _describe(r: Row) -> str:
    return f"review event {r['id']} ({r['label']} of {r['requirement_id']} by {r['reviewer']})"


def walk(rows: Iterable[Row], head: Head | None, link: Callable[[str | None, Row], str],
         legacy_ok: Callable[[Row, str | None], bool], *, where: str, adopting: bool = False) -> Walk:
    """Follow a run's rows (in id order) along the chain. `link(prev, row)` is the chain hash the
    row must carry; `legacy_ok(row, mac)` checks an unchained row against its head's MAC.
    `adopting`: no head yet, unchained rows before the first chained one are the old record."""
    w = Walk()
    seen: set[str] = set()
    legacy = head.legacy if head else {}
    found_legacy: set[str] = set()
    for r in rows:
        h = r["chain_hash"]
        if h is None:
            if adopting and w.end is None:
                w.accepted.append(r)
            elif legacy_ok(r, legacy.get(str(r["id"]))) and str(r["id"]) not in found_legacy:
                w.accepted.append(r)
                found_legacy.add(str(r["id"]))
            else:
                w.set_aside.append(f"{_describe(r)} carries no chain hash: it is not part of the signed "
                                   "review record (inserted without the record key) and was set aside")
            continue
        if h in seen:
            w.set_aside.append(f"{_describe(r)} repeats an event already in the review record (copied with its "
                               "chain hash) and was set aside")
        elif h == link(w.end, r):
            w.accepted.append(r)
            w.end, w.chained = h, w.chained + 1
            seen.add(h)
        else:
            w.set_aside.append(f"{_describe(r)} does not follow the review record's hash chain (forged, altered, "
                               "or an event before it was removed) and was set aside")
    if adopting:
        return w
    gone = sorted(set(legacy) - found_legacy, key=int)
    if gone:
        w.erased.append(f"review events {', '.join(gone)}, recorded before the hash chain, are missing or altered")
    if head is None:
        if w.chained:
            w.erased.append(f"no signed chain head for this run at {where}: the review record cannot be shown "
                            "complete (the head folder is not the one the events were recorded with, or was "
                            "emptied)")
    elif head.events < 0:  # read() could not vouch for the file
        w.erased.append(f"the review record's chain head at {where} is {head.chain.strip('()')}: the record "
                        "cannot be shown complete")
    elif w.end != head.chain and (head.pending is None or w.end != head.pending):
        n = head.events + (head.pending is not None)
        w.erased.append(f"the review record in the database ends after {w.chained} chained event(s), but its signed "
                        f"chain head at {where} records {head.events}{'-' + str(n) if n != head.events else ''}: "
                        "events were deleted, or the database was rolled back")
    return w


class ChainHeads:
    """Signed chain heads, one JSON file per run, in a folder outside the database."""

    def __init__(self, folder: Path, signer: Signer):
        self.folder = Path(folder)
        self.signer = signer

    def _name(self, run_id: str) -> str:
        if re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}", run_id):
            return run_id
        return "sha256-" + hashlib.sha256(run_id.encode()).hexdigest()

    def path(self, run_id: str) -> Path:
        return self.folder / f"{self._name(run_id)}.json"

    def _ensure(self) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)

    @contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """An exclusive lock between processes (and threads) of this machine, or of any that
        share the folder on a file system with working flock."""
        self._ensure()
        fd = os.open(self.folder / f".{self._name(name)}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def read(self, run_id: str) -> Head | None:
        """The run's head; None when there is none. A head whose signature does not check is
        returned with its chain emptied, so it disagrees with any record."""
        try:
            raw = self.path(run_id).read_text()
        except FileNotFoundError:
            return None
        try:
            head = Head.model_validate_json(raw)
        except ValueError:
            return Head(run_id=run_id, chain="(unreadable head file)", events=-1)
        if head.run_id != run_id or not self.signer.check(head.sig, *head.signed_parts()):
            return Head(run_id=run_id, chain="(head file not signed with the record key)", events=-1)
        return head

    def write(self, head: Head) -> None:
        """Replace the run's head atomically (write, fsync, rename)."""
        self._ensure()
        head = head.model_copy(update={"sig": self.signer.sign(*head.signed_parts())})
        path = self.path(head.run_id)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(head.model_dump_json())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        dfd = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    @property
    def adopted(self) -> bool:
        return (self.folder / ADOPTED).exists()

    def mark_adopted(self) -> None:
        self._ensure()
        (self.folder / ADOPTED).write_text("the review record in the database was taken as it stood\n")

"""The render gate: at most `concurrency` page renders at once in the app's process, a bounded
queue behind them, and a per-client share of both. Rendering is CPU work in threads that share
the process with every reviewer's session; unbounded, 50 concurrent renders stalled the app for
seconds. What does not fit is refused at once (503 when the queue is full, 429 when one client
holds its share), never left to pile up."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class GateBusy(Exception):
    """No room: `status` 503 (everyone's queue is full) or 429 (this client's share is used)."""

    def __init__(self, reason: str, status: int):
        super().__init__(reason)
        self.status = status


class RenderGate:
    def __init__(self, concurrency: int, queue: int, per_client: int):
        self.concurrency, self.queue, self.per_client = concurrency, queue, per_client
        self._lock = threading.Lock()  # the app has one event loop; a test client may bring several
        self._running = 0
        self._waiting: deque[asyncio.Future] = deque()
        self._held: Counter[str] = Counter()

    @asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[None]:
        """Hold a render slot for `client` (waiting in line for one); GateBusy when there is no room."""
        fut: asyncio.Future | None = None
        with self._lock:
            if self._held[client] >= self.per_client:
                raise GateBusy("too many page requests from you at once: try again shortly", 429)
            if self._running < self.concurrency and not self._waiting:
                self._running += 1
            elif len(self._waiting) >= self.queue:
                raise GateBusy("the server is busy rendering pages: try again shortly", 503)
            else:
                fut = asyncio.get_running_loop().create_future()
                self._waiting.append(fut)
            self._held[client] += 1
        try:
            if fut is not None:
                try:
                    await fut
                except asyncio.CancelledError:
                    with self._lock:
                        queued = fut in self._waiting
                        if queued:
                            self._waiting.remove(fut)
                    if not queued and not fut.cancelled():
                        self._release()  # the slot was handed over just as this request went away
                    raise
            try:
                yield
            finally:
                self._release()
        finally:
            with self._lock:
                self._held[client] -= 1
                if self._held[client] <= 0:
                    del self._held[client]

    def _release(self) -> None:
        """Pass the slot to the next in line, or free it."""
        with self._lock:
            while self._waiting:
                nxt = self._waiting.popleft()
                if not nxt.done():
                    nxt.get_loop().call_soon_threadsafe(self._hand_over, nxt)
                    return
            self._running -= 1

    def _hand_over(self, fut: asyncio.Future) -> None:
        if fut.done():  # its request went away meanwhile: pass the slot on
            self._release()
        else:
            fut.set_result(None)

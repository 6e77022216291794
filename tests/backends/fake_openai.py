"""A scripted OpenAI-compatible server on 127.0.0.1 for tests that drive the REAL `openai`
client. Each test queues replies (or sets a responder that builds one from the request);
the server records every request body and the peak number of requests in flight."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP reply. `body` dict → JSON; str → sent as is (to script garbage)."""

    status: int = 200
    body: dict[str, Any] | str = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (slow server, concurrency tests)
    trickle: float = 0.0  # > 0: send the body one byte every `trickle` seconds (a server that never times out a read)


def body_error(status: int, body: dict[str, Any] | str) -> Reply:
    """An error reply with a server's own body shape (not OpenAI's)."""
    return Reply(status=status, body=body)


def completion(content: str | dict | list, *, finish_reason: str = "stop", prompt_tokens: int = 11,
               completion_tokens: int = 7, model: str = "fake-model") -> Reply:
    """A chat.completions reply whose message content is `content` (dicts/lists JSON-encoded)."""
    text = content if isinstance(content, str) else json.dumps(content)
    return Reply(body={
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error(status: int, message: str, *, headers: dict[str, str] | None = None, code: str | None = None) -> Reply:
    """An OpenAI-style error body with the given HTTP status."""
    return Reply(status=status, headers=headers or {},
                 body={"error": {"message": message, "type": "fake_error", "param": None, "code": code}})


class FakeOpenAI:
    """`with FakeOpenAI() as srv:` → srv.base_url for the client; srv.script(...) queues replies.
    When the queue is empty, `responder(request_body)` answers; without one, a 500 says so."""

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None):
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.routes: dict[str, Reply] = {}  # GET path -> reply (e.g. "/v1/models", "/props"); else 404
        self.in_flight = 0
        self.max_in_flight = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- scripting -------------------------------------------------------------------
    def script(self, *replies: Reply) -> FakeOpenAI:
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def pending(self) -> int:
        return len(self._queue)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(body)
        return error(500, "fake server: no scripted reply left")

    # --- lifecycle ---------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        port = self._server.server_address[1]  # bound to loopback only
        return f"http://127.0.0.1:{port}/v1"

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                reply = fake.routes.get(self.path.split("?")[0]) or error(404, f"no route {self.path}")
                data = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body)).encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                with fake._lock:
                    fake.requests.append(body)
                    fake.headers.append(dict(self.headers))
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    reply = fake._next_reply(body)
                    if reply.delay:
                        time.sleep(reply.delay)
                    payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                    data = payload.encode("utf-8")
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if reply.trickle:
                        for i in range(len(data)):
                            self.wfile.write(data[i:i + 1])
                            self.wfile.flush()
                            time.sleep(reply.trickle)
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- reading what the client sent ---------------------------------------------------
    def prompts(self) -> list[str]:
        """All message contents of every request, joined per request (for prompt assertions)."""
        return ["\n".join(str(m.get("content", "")) for m in r.get("messages", [])) for r in self.requests]


# --- helpers the openai backend tests share ------------------------------------------------
def backend_settings(srv: FakeOpenAI, **overrides: Any):
    """Settings pointing the backend at the fake server: short timeout, one retry."""
    from workbench.config import Settings

    values: dict[str, Any] = dict(openai_base_url=srv.base_url, openai_api_key="sk-test", model="fake-model",
                                  llm_timeout=5.0, llm_max_retries=1, llm_max_concurrency=4)
    values.update(overrides)
    return Settings(**values)


def evidence(requirement_id: str, quote: str, *, document_id: str = "doc-1", anchored: bool = True):
    """An Evidence item as the pipeline hands it to verify/compose (anchored unless told)."""
    from workbench.models import Evidence, Span, sha256_text

    span = Span(document_id=document_id, page=1, pages=[1], start=0, end=len(quote), text=quote,
                text_sha256=sha256_text(quote)) if anchored else None
    return Evidence(requirement_id=requirement_id, document_id=document_id, exact_quote=quote,
                    chunk_id="c1", span=span)


def verdict(verified: bool, reason: str | None = None, rationale: str = "scripted", score: float = 0.9) -> Reply:
    return completion({"verified": verified, "rejection_reason": reason,
                       "verification_rationale": rationale, "score": score})

"""A real Redis (127.0.0.1:6379) for queue tests, with a queue name of the test's own so tests
running side by side never see each other's jobs; workers as real `workbench worker` processes."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import IN_CI, ROOT

REDIS_URL = os.environ.get("WORKBENCH_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")


@pytest.fixture
def queue_env(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Environment for the CLI and workers: this test's data dir, Redis URL and queue name."""
    try:
        from redis import Redis

        conn = Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        conn.ping()
    except Exception as exc:  # noqa: BLE001
        if IN_CI:
            pytest.fail(f"Redis is not reachable at {REDIS_URL}: {exc}")
        pytest.skip(f"Redis is not reachable at {REDIS_URL} ({exc}): queue test skipped")
    name = f"wbtest-{uuid.uuid4().hex[:10]}"
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(data_dir), "WORKBENCH_QUEUE_URL": REDIS_URL,
           "WORKBENCH_QUEUE_NAME": name, "WORKBENCH_EMBED_THREADS": "1", "PYTHONPATH": str(ROOT)}
    for k in ("WORKBENCH_QUEUE_URL", "WORKBENCH_QUEUE_NAME"):
        monkeypatch.setenv(k, env[k])
    from workbench.config import get_settings

    get_settings.cache_clear()
    yield env
    get_settings.cache_clear()
    ids = [i.decode() for i in conn.zrange(f"{name}:jobs", 0, -1)]
    keys = list(conn.scan_iter(f"{name}:*")) + list(conn.scan_iter(f"rq:*{name}*"))
    keys += [k for i in ids for k in conn.scan_iter(f"rq:*{i}*")]
    if keys:
        conn.delete(*keys)


def cli(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def start_worker(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "workbench", "worker", *args], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

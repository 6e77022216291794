"""Issue 37: the Redis password never shows in what the queue says. The attacker here is anyone
who reads a terminal, a log or a bug report: a queue that cannot be reached is named by host,
port and database, never with the password of its URL."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from workbench import cli
from workbench.config import get_settings

SECRET = "RedisPassw0rd"

URLS = [
    f"redis://:{SECRET}@127.0.0.1:1/0",  # nothing listens: connection refused
    f"redis://wb-worker:{SECRET}@127.0.0.1:6379/13",  # an ACL user Redis does not know (or no Redis)
    f"rediss://:{SECRET}@127.0.0.1:notaport/0",  # a malformed port
    f"redis://127.0.0.1:1/0?password={SECRET}",  # the password as a query parameter
]


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("command", [["jobs"], ["worker", "--burst"]])
def test_a_queue_that_cannot_be_reached_is_named_without_its_password(
        url: str, command: list[str], data_dir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture, caplog: pytest.LogCaptureFixture):
    monkeypatch.setenv("WORKBENCH_QUEUE_URL", url)
    get_settings.cache_clear()
    caplog.set_level(logging.DEBUG)
    assert cli.main(command) == 2
    out, err = capsys.readouterr()
    assert "cannot reach the job queue" in err and "127.0.0.1" in err
    assert SECRET not in out + err + caplog.text

"""redact_url / redact: a URL is shown without its password, and a library's message is scrubbed
of the passwords of the URLs it may quote (workbench/redact.py)."""

from __future__ import annotations

import pytest

from workbench.redact import redact, redact_url


@pytest.mark.parametrize(("url", "shown"), [
    ("redis://:RedisPassw0rd@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
    ("rediss://wb-worker:RedisPassw0rd@redis.internal:6380/2", "rediss://wb-worker:***@redis.internal:6380/2"),
    ("postgresql+psycopg://wb_app:p%40ss%3Aw0rd@db:5432/wb", "postgresql+psycopg://wb_app:***@db:5432/wb"),
    ("postgresql://wb_app@db/wb?password=s3cret&sslmode=require", "postgresql://wb_app@db/wb?password=***&sslmode=require"),
    ("https://user:tok@llm.example/v1", "https://user:***@llm.example/v1"),
    ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),  # nothing to hide: unchanged
    ("sqlite:////home/ann/.evidence-workbench/workbench.sqlite3", "sqlite:////home/ann/.evidence-workbench/workbench.sqlite3"),
    ("postgres://wb_app:s3cret@[::1/test", "postgres://…"),  # unparseable: the scheme alone
    (None, ""),
])
def test_a_url_is_shown_with_its_secrets_masked(url, shown):
    assert redact_url(url) == shown


def test_a_message_is_scrubbed_of_the_url_and_of_the_password_alone():
    url = "redis://:p%40ssw0rd@127.0.0.1:1/0"
    msg = f"could not use {url}; the server said: bad password 'p@ssw0rd' (p%40ssw0rd)"
    scrubbed = redact(msg, url)
    assert "p@ssw0rd" not in scrubbed and "p%40ssw0rd" not in scrubbed
    assert "redis://:***@127.0.0.1:1/0" in scrubbed


def test_a_password_in_a_url_too_broken_to_parse_is_still_scrubbed():
    url = "postgres://wb_app:s3cret-pw@[::1/test"
    assert "s3cret-pw" not in redact(f"Invalid URL {url!r}: s3cret-pw", url)

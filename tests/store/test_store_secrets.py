"""Issue 37: the database password never shows in what the store says. A database URL that
cannot be used or reached is named with its password masked, whatever went wrong: an unknown
driver, a malformed port, a server that refuses, the password given as a query parameter."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from workbench import cli
from workbench.config import get_settings

SECRET = "PgPassw0rd"

URLS = [
    f"postgresql://wb_app:{SECRET}@127.0.0.1:1/test",  # nothing listens
    f"postgresql+psycopg://wb_app:{SECRET}@127.0.0.1:notaport/test",  # a malformed port
    f"mysql://wb_app:{SECRET}@127.0.0.1/test",  # a driver we do not ship
    f"postgresql://wb_app@127.0.0.1:1/test?password={SECRET}",  # the password as a query parameter
    f"postgres://wb_app:{SECRET}@[::1/test",  # not a URL at all
]


@pytest.mark.parametrize("url", URLS)
def test_a_database_that_cannot_be_opened_is_named_without_its_password(
        url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture, caplog: pytest.LogCaptureFixture):
    monkeypatch.setenv("WORKBENCH_DATABASE_URL", url)
    get_settings.cache_clear()
    caplog.set_level(logging.DEBUG)
    assert cli.main(["runs"]) == 2
    out, err = capsys.readouterr()
    assert "WORKBENCH_DATABASE_URL" in err and "Traceback" not in err
    assert SECRET not in out + err + caplog.text

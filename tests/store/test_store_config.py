from __future__ import annotations

from pathlib import Path

import pytest

from workbench.config import Settings
from workbench.errors import ConfigError, WorkbenchError
from workbench.store import Store
from workbench.store.engine import normalise_url


@pytest.mark.parametrize("url", ["notaurl", "mysql://someone@127.0.0.1/db"])
def test_an_unusable_database_url_is_a_config_error_that_says_what_to_set(url, tmp_path: Path):
    with pytest.raises(ConfigError, match="WORKBENCH_DATABASE_URL"):
        Store(Settings(data_dir=tmp_path), url=url).list_runs()


def test_an_unreachable_postgresql_server_is_reported_not_raised_as_a_traceback(tmp_path: Path):
    store = Store(Settings(data_dir=tmp_path), url="postgresql://postgres@127.0.0.1:1/test")
    with pytest.raises(WorkbenchError, match="cannot open the store"):
        store.list_runs()


def test_postgres_urls_without_a_driver_use_psycopg_3():
    assert normalise_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("sqlite:///x.db") == "sqlite:///x.db"


def test_the_default_store_is_a_sqlite_file_in_the_data_directory(data_dir: Path):
    from workbench.config import get_settings

    store = Store(get_settings())
    try:
        assert store.list_documents() == []
        assert (data_dir / "workbench.sqlite3").is_file()
        assert get_settings().db_url == store.url
    finally:
        store.dispose()

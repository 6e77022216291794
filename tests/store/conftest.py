from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.dbs import db_url, pg_schema_url  # noqa: F401 - fixtures
from workbench.config import Settings
from workbench.store import Store


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Iterator[Store]:  # noqa: F811 - the imported fixture
    s = Store(Settings(data_dir=tmp_path / "data"), url=db_url)
    yield s
    s.dispose()

"""Every test of the data layer runs on both backends: ``db_path`` (and ``db``, opened on
it) is a SQLite file, then a PostgreSQL database (``support.data``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.data import BACKENDS, each_backend


@pytest.fixture(params=BACKENDS)
def db_path(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return each_backend(request, tmp_path)

"""Opening a real SQLite database in tests: always closed afterwards (a leaked aiosqlite
connection thread keeps pytest from exiting)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
import pytest

from data import Database
from data.batching import SaveQueue
from data.sqlite import SqliteBackend


@asynccontextmanager
async def opened(path: str | Path, *, group_commit: bool = True) -> AsyncIterator[Database]:
    """Open the database and always close it."""
    db = await Database.open(str(path), group_commit=group_commit)
    try:
        yield db
    finally:
        await db.close()


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "bot.db")


@pytest.fixture
async def db(db_path: str) -> AsyncIterator[Database]:
    async with opened(db_path) as database:
        yield database


def connection_of(db: Database) -> aiosqlite.Connection:
    """The SQLite connection under ``db``, for tests that watch what runs on it."""
    backend = db._backend
    assert isinstance(backend, SqliteBackend)
    return backend.connection


def save_queue_of(db: Database) -> SaveQueue:
    """The saves of ``db`` waiting for their batch (group commit)."""
    return db._games.saves

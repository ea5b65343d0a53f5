"""``Database.ping``, the health check's question (runtime/monitor.py, ``/healthz``): a
database that answers, on either backend; a SQLite file moved away under the bot does not,
and answers again once it is back."""

from __future__ import annotations

import os

import pytest

from data import Database, DatabaseVanishedError
from support.data import opened


async def test_a_database_that_answers_is_pinged(db: Database) -> None:
    await db.ping()
    await db.ping()


async def test_a_sqlite_file_moved_away_does_not_answer_until_it_is_back(
        sqlite_path: str) -> None:
    async with opened(sqlite_path) as db:
        await db.ping()
        os.rename(sqlite_path, sqlite_path + ".away")
        try:
            with pytest.raises(DatabaseVanishedError, match="deleted or replaced"):
                await db.ping()
        finally:
            os.rename(sqlite_path + ".away", sqlite_path)
        await db.ping()

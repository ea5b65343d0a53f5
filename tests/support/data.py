"""Opening a real database in tests, on either backend: always closed afterwards (a leaked
aiosqlite connection thread keeps pytest from exiting).

``db_path`` is where a test's database is: a SQLite file path; in tests/data (its
conftest.py) each backend in turn, the file then the URL of an empty database on the
throwaway PostgreSQL server of ``support.postgres`` (the test is skipped, saying why, when
PostgreSQL is not installed). ``db`` is it opened. Tests of
what only one backend has (a SQLite file deleted under the bot, the aiosqlite connection)
take ``sqlite_path`` instead. ``query`` and ``count_rows`` look into either from outside.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from data import Database
from data.batching import SaveQueue
from data.database import is_url
from data.sqlite import SqliteBackend
from support import postgres

BACKENDS = ["sqlite", "postgresql"]


@asynccontextmanager
async def opened(path: str | Path, *, group_commit: bool = True,
                 read_pool: int | None = None) -> AsyncIterator[Database]:
    """Open the database and always close it (``read_pool=0``: PostgreSQL's reads take
    their turn in the line, as SQLite's do)."""
    db = await Database.open(str(path), group_commit=group_commit, read_pool=read_pool)
    try:
        yield db
    finally:
        await db.close()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[postgres.PgServer]:
    """The throwaway PostgreSQL server of this test process (started on first use)."""
    _, why = postgres.find_binaries()
    if why:
        pytest.skip(why)
    try:
        server = postgres.start_server()
    except PermissionError as error:  # running as root without the right to change user
        pytest.skip(f"cannot start PostgreSQL as an unprivileged user: {error}")
    try:
        yield server
    finally:
        postgres.stop_server(server)


@pytest.fixture(scope="session")
def pg_shared_url(pg_server: postgres.PgServer) -> str:
    """The migrated database this test process's tests take turns on (emptied by each)."""
    return postgres.new_database(pg_server)


@pytest.fixture
def pg_url(pg_shared_url: str) -> str:
    """An empty, migrated database on the test server: the shared one, its tables emptied
    (milliseconds, where creating a database takes a quarter second). A
    test that changes the schema (a trigger...) takes ``pg_private_url`` instead."""
    postgres.empty_tables(pg_shared_url)
    return pg_shared_url


@pytest.fixture
def pg_private_url(pg_server: postgres.PgServer) -> Iterator[str]:
    """A database of the test's own, copied from the migrated template, dropped after."""
    url = postgres.new_database(pg_server)
    try:
        yield url
    finally:
        postgres.drop_database(pg_server, url)


@pytest.fixture
def sqlite_path(tmp_path: Path) -> str:
    return str(tmp_path / "bot.db")


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    """The test's database: a SQLite file (tests/data/conftest.py makes it each backend in
    turn for the data layer's tests)."""
    return str(tmp_path / "bot.db")


def each_backend(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """For a ``db_path`` fixture with ``params=BACKENDS``: a SQLite file, then the URL of
    an empty, migrated PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "bot.db")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
async def db(db_path: str) -> AsyncIterator[Database]:
    async with opened(db_path) as database:
        yield database


def query(target: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` (``?`` placeholders) run from outside the bot's connection (a write
    is committed)."""
    if is_url(target):
        from data.postgres import numbered

        async def fetch() -> list[tuple[Any, ...]]:
            import asyncpg

            conn = await asyncpg.connect(target)
            try:
                return [tuple(row) for row in await conn.fetch(numbered(sql), *args)]
            finally:
                await conn.close()

        return postgres.run_async(fetch)
    conn = sqlite3.connect(target)
    try:
        rows = [tuple(row) for row in conn.execute(sql, args)]
        conn.commit()
        return rows
    finally:
        conn.close()


def count_rows(target: str, table: str) -> int:
    return int(query(target, f"SELECT COUNT(*) FROM {table}")[0][0])


def connection_of(db: Database) -> aiosqlite.Connection:
    """The SQLite connection under ``db``, for tests that watch what runs on it."""
    backend = db._backend
    assert isinstance(backend, SqliteBackend)
    return backend.connection


def save_queue_of(db: Database) -> SaveQueue:
    """The saves of ``db`` waiting for their batch (group commit)."""
    return db._games.saves


REJECTED = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)
"""What each driver raises when the schema refuses a row (a CHECK, a NOT NULL...)."""

FAILED = (sqlite3.Error, asyncpg.PostgresError)
"""What each driver raises when a statement fails inside the database."""


class _CountingConnection:
    """An asyncpg connection that reports each ``execute``/``executemany`` (asyncpg's
    connection has slots: its methods cannot be replaced on the object itself)."""

    def __init__(self, conn: Any, seen: Callable[[str, int], None]) -> None:
        self._conn = conn
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    async def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._seen(sql, 1)
        return await self._conn.execute(sql, *args, **kwargs)

    async def executemany(self, sql: str, rows: Any, **kwargs: Any) -> Any:
        rows = list(rows)
        self._seen(sql, len(rows))
        return await self._conn.executemany(sql, rows, **kwargs)


class Statements:
    """Counts what runs on the database's connection, on either backend: transactions begun
    and committed, and how many saved games each transaction's UPSERT wrote (its rows).
    ``seen = await Statements.watch(db, monkeypatch)``.

    PostgreSQL: its connection's ``execute`` and ``executemany`` are watched. SQLite runs a
    save's whole transaction in one go on the event loop's thread (data/sqlite.py,
    ``write_rows``), and other writes on aiosqlite's, so what runs is watched where SQLite
    runs it: its trace callback sees every statement as it is executed (one UPSERT a row),
    counted per transaction."""

    def __init__(self) -> None:
        self.begins = 0
        self.commits = 0
        self.upserts: list[int] = []
        self._begin, self._upsert = "BEGIN IMMEDIATE", ""
        self._rows = 0

    @classmethod
    async def watch(cls, db: Database, monkeypatch: pytest.MonkeyPatch) -> Statements:
        from data import queries
        from data.postgres import PostgresBackend, numbered

        self = cls()
        backend = db._backend
        if isinstance(backend, PostgresBackend):
            self._begin, self._upsert = "BEGIN", numbered(queries.UPSERT_GAME)
            monkeypatch.setattr(backend, "_conn",
                                _CountingConnection(backend.connection, self._seen))
            return self
        # the statement as traced: its values written in, from VALUES on
        self._upsert = queries.UPSERT_GAME.partition("VALUES")[0].strip()
        await connection_of(db).set_trace_callback(self._traced)
        return self

    def _traced(self, sql: str) -> None:
        """A statement SQLite runs (on whichever thread runs it)."""
        if sql.strip().startswith(self._upsert):
            self._rows += 1
        elif sql in ("COMMIT", "ROLLBACK"):
            if self._rows:
                self.upserts.append(self._rows)
            self._rows = 0
            self.commits += sql == "COMMIT"
        elif sql == self._begin:
            self.begins += 1

    def _seen(self, sql: str, rows: int) -> None:
        if sql == self._begin:
            self.begins += 1
        elif sql == "COMMIT":
            self.commits += 1
        elif sql == self._upsert:
            self.upserts.append(rows)

"""The PostgreSQL backend: one asyncpg connection to a server shared by every bot process.

Chosen by ``Database.open`` when its target is a ``postgresql://`` URL (``DATABASE_URL``).
It gives the query families the same calls as the SQLite backend (``data.backend.Backend``)
and keeps the same guarantees: every call takes its turn on one connection in one
first-come, first-served line (``Turns``), so the calls of this process run in the order they
were made and saves share transactions (group commit, data/batching.py); every write is one
transaction, rolled back whole on any error and turned into one sentence
(data/pgfaults.py). Between processes PostgreSQL itself does the agreeing: row locks make
``INSERT ... ON CONFLICT DO UPDATE`` add to a leaderboard row atomically, the primary key of
``game_results`` records a result once, and advisory locks serialise what must run once
(migrations, log pruning, ``fleet_lock``).

A lost connection (server restarted, backend killed, network cut) fails the call that was
running on it (a write: ``DatabaseWriteError``, nothing of it kept, so the move is undone as
with SQLite); the next call connects again first. Reads, which change nothing, are tried once
more on a new connection before they give up (``DatabaseUnreachableError``).

Dialect differences, each for a reason: statements are written with SQLite's ``?``
placeholders (data/queries.py) and numbered ``$1, $2 ...`` here (asyncpg knows only those);
the schema version lives in a ``schema_version`` table, since ``PRAGMA user_version`` is
SQLite's own; the write check at open writes a bot table (``CREATE TABLE`` needs a right on
the schema that a user given only the bot's tables lacks).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from typing import Any

import asyncpg

from data import pgfaults
from data.backend import Params, Statements
from data.batching import Line, PendingSave, SaveQueue
from data.errors import (
    DatabaseError,
    DatabaseOpenError,
    DatabaseUnreachableError,
    DatabaseVersionError,
)
from data.migrate import Migration, load_migrations, split_statements
from data.models import RowLike
from settings import database_url_problem

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0
COMMAND_TIMEOUT_S = 30.0
RECONNECT_PAUSE_S = 1.0  # after a failed reconnect, calls fail at once for this long
MIGRATE_LOCK = "migrate"

VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
HAS_VERSION_TABLE = "SELECT to_regclass('schema_version') IS NOT NULL"
GET_VERSION = "SELECT COALESCE(MAX(version), 0) AS version FROM schema_version"
SET_VERSION = "DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES ({v})"
WRITE_CHECK = "UPDATE schema_version SET version = version"

_numbered: dict[str, str] = {}


def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered ``$1, $2 ...`` (not inside quotes)."""
    done = _numbered.get(sql)
    if done is not None:
        return done
    out: list[str] = []
    n = 0
    quote = ""
    for char in sql:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "?":
            n += 1
            out.append(f"${n}")
            continue
        out.append(char)
    done = "".join(out)
    _numbered[sql] = done
    return done


def _count(status: str) -> int:
    """Rows changed, from asyncpg's command status ("INSERT 0 1", "DELETE 3", "UPDATE 0")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


async def connect(url: str) -> asyncpg.Connection:
    """A new connection (asyncpg's errors as they are: callers turn them into sentences)."""
    conn: asyncpg.Connection = await asyncpg.connect(
        url, timeout=CONNECT_TIMEOUT_S, command_timeout=COMMAND_TIMEOUT_S)
    return conn


class PostgresTransaction:
    """One open transaction on the connection (``data.backend.Transaction``)."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        return _count(await self._conn.execute(numbered(sql), *params))

    async def execute_many(self, sql: str, rows: Sequence[Params]) -> None:
        await self._conn.executemany(numbered(sql), [tuple(row) for row in rows])

    async def fetch_one(self, sql: str, params: Params = ()) -> RowLike | None:
        row: RowLike | None = await self._conn.fetchrow(numbered(sql), *params)
        return row

    async def lock(self, name: str) -> None:
        """Hold the fleet-wide lock ``name`` until the transaction ends: another process's
        transaction taking it waits for this one to commit or roll back."""
        await self._conn.execute("SELECT pg_advisory_xact_lock($1)", pgfaults.lock_key(name))


class PostgresBackend:
    """The database on a PostgreSQL server (``data.backend.Backend``). ``await open(url)``."""

    def __init__(self, conn: asyncpg.Connection, url: str) -> None:
        self._conn = conn
        self._url = url
        self._where = pgfaults.safe_url(url)
        self._line = Line()
        self._down_until = 0.0  # monotonic time before which no reconnect is tried
        self._read_only_for_tests = False
        self._closed = False

    @property
    def path(self) -> str:
        return self._where

    @property
    def idle(self) -> bool:
        return self._line.turns.free

    @property
    def connection(self) -> asyncpg.Connection:
        """The asyncpg connection in use: for tests, which watch it or cut it."""
        return self._conn

    # --- life cycle -----------------------------------------------------------------------

    @classmethod
    async def open(cls, url: str) -> PostgresBackend:
        """Connect, migrate and check that the database may be written.

        Raises ``DatabaseOpenError`` (or a subclass) whose message is one sentence: a
        malformed URL, a server that cannot be reached, refused credentials, no such
        database, a read-only database or user, a full disk.
        """
        problem = database_url_problem(url)
        if problem is not None:
            raise DatabaseOpenError(problem)
        where = pgfaults.safe_url(url)
        conn: asyncpg.Connection | None = None
        try:
            conn = await connect(url)
            version = await migrate_postgres(conn, where)
            await _check_writable(conn)
        except DatabaseError:
            if conn is not None:
                await _close_quietly(conn)
            raise
        except pgfaults.DB_ERRORS as error:
            if conn is not None:
                await _close_quietly(conn)
            logger.debug("Opening database %s failed", where, exc_info=True)
            raise pgfaults.open_error(where, error) from None
        logger.info("Opened database %s (schema version %d)", where, version)
        return cls(conn, url)

    async def close(self) -> None:
        """Close the connection once every call made before this one is done. A call made
        after this one raises ``ValueError`` (as on a closed aiosqlite connection)."""
        async with self._turn():
            self._closed = True
            await _close_quietly(self._conn)
        logger.info("Closed database %s", self._where)

    async def _connected(self) -> asyncpg.Connection:
        """The connection, opened again first if it was lost (the caller holds the turn)."""
        if self._closed:
            raise ValueError(f"The database {self._where} was closed.")
        if not self._conn.is_closed():
            return self._conn
        if time.monotonic() < self._down_until:
            raise ConnectionError("the server was unreachable a moment ago")
        try:
            conn = await connect(self._url)
        except pgfaults.DB_ERRORS:
            self._down_until = time.monotonic() + RECONNECT_PAUSE_S
            raise
        if self._read_only_for_tests:
            await conn.execute("SET default_transaction_read_only = on")
        self._conn = conn
        logger.warning("Connected again to the database %s", self._where)
        return conn

    def _forget(self, error: BaseException) -> None:
        """After an error that leaves the connection unusable, drop it (the next call
        connects again)."""
        if pgfaults.connection_lost(error) and not self._conn.is_closed():
            self._conn.terminate()
        if pgfaults.connection_lost(error):
            logger.warning("Lost the connection to the database %s: %s", self._where, error)

    # --- the line -------------------------------------------------------------------------

    def queue_saves(
        self,
        write_together: Callable[[list[PendingSave]], Awaitable[None]],
        write_alone: Callable[[PendingSave], Awaitable[None]],
    ) -> SaveQueue:
        return self._line.queue_saves(write_together, write_alone, self._where)

    def _turn(self) -> AbstractAsyncContextManager[None]:
        """Take a turn on the connection (``batching.Line.turn``)."""
        return self._line.turn()

    # --- reads ----------------------------------------------------------------------------

    async def _read(self, run: Callable[[asyncpg.Connection], Awaitable[Any]]) -> Any:
        """Run a read, once more on a new connection if the connection was lost."""
        async with self._turn():
            for attempt in (1, 2):
                try:
                    return await run(await self._connected())
                except pgfaults.DB_ERRORS as error:
                    if not pgfaults.connection_lost(error):
                        raise
                    self._forget(error)
                    if attempt == 2:
                        raise DatabaseUnreachableError(
                            pgfaults.unreachable_message(self._where, error)) from error
        raise AssertionError("unreachable")

    async def fetch_one(self, sql: str, params: Params = ()) -> RowLike | None:
        row: RowLike | None = await self._read(
            lambda conn: conn.fetchrow(numbered(sql), *params))
        return row

    async def fetch_all(self, sql: str, params: Params = ()) -> list[RowLike]:
        rows = await self._read(lambda conn: conn.fetch(numbered(sql), *params))
        return list(rows)

    async def ping(self) -> None:
        """``SELECT 1`` answered, on a new connection if the last one was lost."""
        await self.fetch_one("SELECT 1")

    # --- writes ---------------------------------------------------------------------------

    @asynccontextmanager
    async def write(self, what: str) -> AsyncIterator[PostgresTransaction]:
        """Take a turn and run one transaction (``data.backend.Backend.write``)."""
        async with self._turn(), self.write_in_turn(what) as tx:
            yield tx

    async def write_rows(self, what: str, statements: Statements, *,
                         in_turn: bool = False) -> None:
        """The statements in one transaction (``data.backend.Backend.write_rows``)."""
        writing = self.write_in_turn(what) if in_turn else self.write(what)
        async with writing as tx:
            for sql, rows in statements:
                if len(rows) == 1:
                    await tx.execute(sql, rows[0])
                elif rows:
                    await tx.execute_many(sql, rows)

    @asynccontextmanager
    async def write_in_turn(self, what: str) -> AsyncIterator[PostgresTransaction]:
        """``write`` for a caller that already holds the turn (the queue of saves)."""
        try:
            conn = await self._begin()
            async with _transaction(conn) as tx:
                yield tx
        except pgfaults.DB_ERRORS as error:
            self._forget(error)
            logger.debug("Write to %s failed: %s", self._where, what, exc_info=True)
            raise pgfaults.write_error(self._where, what, error) from error

    async def _begin(self) -> asyncpg.Connection:
        """BEGIN a transaction, on a new connection if the one in hand turns out to be lost
        (cut while idle, noticed only now): nothing of the write was sent yet, so starting
        it again elsewhere is safe. A connection lost after BEGIN fails the write."""
        for attempt in (1, 2):
            conn = await self._connected()
            try:
                await conn.execute("BEGIN")
            except pgfaults.DB_ERRORS as error:
                if attempt == 2 or not pgfaults.connection_lost(error):
                    raise
                self._forget(error)
            else:
                return conn
        raise AssertionError("unreachable")


    async def set_read_only_for_tests(self, read_only: bool) -> None:
        """For tests: make every later write fail inside PostgreSQL (a read-only
        transaction), or work again. Not for production use."""
        async with self._turn():
            self._read_only_for_tests = read_only
            await (await self._connected()).execute(
                f"SET default_transaction_read_only = {'on' if read_only else 'off'}")

    # --- work for the whole fleet ---------------------------------------------------------

    @asynccontextmanager
    async def fleet_lock(self, name: str) -> AsyncIterator[None]:
        """Hold the advisory lock ``name`` across every process on this database.

        On a connection of its own (waiting for the lock must not hold up this process's
        line), released when the block ends, and by the server if this process dies.
        """
        key = pgfaults.lock_key(name)
        try:
            conn = await connect(self._url)
        except pgfaults.DB_ERRORS as error:
            raise DatabaseUnreachableError(
                pgfaults.unreachable_message(self._where, error)) from error
        try:
            await conn.execute("SELECT pg_advisory_lock($1)", key)
            yield
        finally:
            # Closing the session releases its advisory locks (also when unlocking fails).
            with suppress(*pgfaults.DB_ERRORS):
                await conn.execute("SELECT pg_advisory_unlock($1)", key)
            await _close_quietly(conn)


@asynccontextmanager
async def _transaction(conn: asyncpg.Connection) -> AsyncIterator[PostgresTransaction]:
    """... COMMIT of a transaction begun on ``conn``, rolled back on any exception."""
    try:
        yield PostgresTransaction(conn)
        await conn.execute("COMMIT")
    except BaseException:
        if not conn.is_closed() and conn.is_in_transaction():
            with suppress(*pgfaults.DB_ERRORS):
                await conn.execute("ROLLBACK")
        raise


async def migrate_postgres(conn: asyncpg.Connection, where: str,
                           migrations: list[Migration] | None = None) -> int:
    """Bring the database up to the newest migration; the resulting schema version.

    The same migration files as SQLite. Each runs in one transaction with its version bump
    (PostgreSQL's DDL is transactional), and the whole run holds an advisory lock, so two
    processes starting at once on a new database migrate it once.
    """
    if migrations is None:
        migrations = load_migrations()
    latest = len(migrations)
    key = pgfaults.lock_key(MIGRATE_LOCK)
    await conn.execute("SELECT pg_advisory_lock($1)", key)
    try:
        # (only when missing: a user given just the bot's tables may not create any)
        if not await conn.fetchval(HAS_VERSION_TABLE):
            await conn.execute(VERSION_TABLE)
        current = int(await conn.fetchval(GET_VERSION))
        if current > latest:
            raise DatabaseVersionError(
                f"The database {where} has schema version {current} but this bot only knows "
                f"up to version {latest}; run a newer version of the bot or restore a backup "
                "made for this one.")
        for migration in migrations[current:]:
            logger.info("Applying database migration %s to %s", migration.name, where)
            async with conn.transaction():
                for statement in split_statements(migration.sql):
                    await conn.execute(statement)
                await conn.execute(SET_VERSION.format(v=int(migration.version)))
        return int(await conn.fetchval(GET_VERSION))
    finally:
        if not conn.is_closed():
            await conn.execute("SELECT pg_advisory_unlock($1)", key)


async def _check_writable(conn: asyncpg.Connection) -> None:
    """One real write, rolled back: a read-only server or user is refused at start-up, not
    at the first save (an up-to-date schema migrates nothing, so writes nothing)."""
    transaction = conn.transaction()
    await transaction.start()
    try:
        await conn.execute(WRITE_CHECK)
    finally:
        await transaction.rollback()


async def _close_quietly(conn: asyncpg.Connection) -> None:
    try:
        await asyncio.wait_for(conn.close(), timeout=5)
    except Exception:
        logger.debug("Closing the database connection raised", exc_info=True)
        conn.terminate()

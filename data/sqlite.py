"""The SQLite backend: one aiosqlite connection, its file's health and its write path.

Opening (creating the folders, PRAGMAs, WAL, a real write check, migrating), closing, the
first-come, first-served line every call takes its turn in, the transactions, and the
faults: a corrupt, locked, read-only, full, vanished or replaced file becomes one sentence
(data/faults.py) instead of a traceback. No query of the bot's own is here: the families
(data/games.py, ...) send theirs through the calls of ``data.backend.Backend``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from data import faults, queries
from data.backend import Params, Statements
from data.batching import Line, PendingSave, SaveQueue
from data.errors import (
    DatabaseError,
    DatabaseOpenError,
    DatabaseUnwritableError,
    DatabaseVanishedError,
)
from data.migrate import migrate
from data.models import RowLike

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000


class SqliteTransaction:
    """One open transaction on the connection (``data.backend.Transaction``)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self._conn.execute(sql, tuple(params))
        return max(cursor.rowcount, 0)

    async def execute_many(self, sql: str, rows: Sequence[Params]) -> None:
        await self._conn.executemany(sql, rows)

    async def fetch_one(self, sql: str, params: Params = ()) -> RowLike | None:
        async with self._conn.execute(sql, tuple(params)) as cursor:
            row: RowLike | None = await cursor.fetchone()
        return row

    async def lock(self, name: str) -> None:
        """Nothing to take: BEGIN IMMEDIATE already holds the file's one write lock, so no
        other writer (in this process or another) runs until this transaction ends."""


class SqliteBackend:
    """The database in one SQLite file (``data.backend.Backend``). ``await open(path)``.

    One connection in autocommit mode. Every call takes its turn on it in one first-come,
    first-served line (``Turns``, used like a lock), so the explicit transactions of one
    coroutine never interleave with statements of another and calls run in the order they
    were made; the queue of saves (``queue_saves``) holds its places in the same line.
    """

    def __init__(self, conn: aiosqlite.Connection, path: str,
                 file_id: faults.FileId | None = None) -> None:
        self._conn = conn
        self._path = path
        self._line = Line()
        # The file opened, to notice it being deleted or replaced (None: nothing to watch).
        self._file_id = file_id
        self._stat_path = os.path.abspath(path) if file_id is not None else path
        self._vanish_logged = False
        self._fleet_locks: dict[str, asyncio.Lock] = {}

    @property
    def path(self) -> str:
        return self._path

    @property
    def idle(self) -> bool:
        return self._line.turns.free

    @property
    def connection(self) -> aiosqlite.Connection:
        """The aiosqlite connection itself: for tests and the benchmark, which watch what
        runs on it. The bot goes through the calls below."""
        return self._conn

    # --- life cycle -----------------------------------------------------------------------

    @classmethod
    async def open(cls, path: str) -> SqliteBackend:
        """Open (creating the file and its directories if needed) and migrate the database.

        Raises ``DatabaseOpenError`` (or its subclass ``DatabaseVersionError``) whose message
        is one sentence for the operator; no chained traceback is attached.
        """
        if path != ":memory:":
            try:
                await asyncio.to_thread(_make_parent_dirs, path)
            except OSError as error:
                logger.debug("Creating the folder of %s failed", path, exc_info=True)
                raise faults.folder_error(path, error) from None
        conn: aiosqlite.Connection | None = None
        try:
            # (the migrations are read by ``migrate``: it raises MigrationError, naming them)
            conn = await aiosqlite.connect(path, isolation_level=None)
            conn.row_factory = sqlite3.Row
            await _configure(conn, path)
            await check_writable(conn, path)
            version = await migrate(conn, path)
            file_id = faults.file_id(path)
        except DatabaseError:
            if conn is not None:
                await conn.close()
            raise
        except (OSError, sqlite3.Error) as error:
            if conn is not None:
                await _close_quietly(conn)
            logger.debug("Opening database %s failed", path, exc_info=True)
            raise faults.open_error(path, error) from None
        logger.info("Opened database %s (schema version %d)", path, version)
        return cls(conn, path, file_id)

    async def close(self) -> None:
        """Close the connection once every call made before this one is done: saves waiting
        for their batch are written first and their callers answered. A call made after
        this one fails as on any closed connection (aiosqlite's ``ValueError``)."""
        async with self._turn():
            if self._file_moved():
                await self._empty_stale_wal()
            await self._conn.close()
        logger.info("Closed database %s", self._path)

    async def _empty_stale_wal(self) -> None:
        """The file was deleted or replaced: SQLite then leaves this connection's -wal file
        beside the path at close, and the next open replays it onto whatever file is there
        now (a restored backup gets the old file's last writes, or is corrupted). Emptying
        the WAL into the old file first leaves nothing to replay."""
        try:
            await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            logger.warning(
                "Could not empty the write-ahead log of the replaced database %s; if %s-wal "
                "exists, remove it before starting the bot again",
                self._path,
                self._path,
                exc_info=True,
            )

    # --- the line -------------------------------------------------------------------------

    def queue_saves(
        self,
        write_together: Callable[[list[PendingSave]], Awaitable[None]],
        write_alone: Callable[[PendingSave], Awaitable[None]],
    ) -> SaveQueue:
        return self._line.queue_saves(write_together, write_alone, self._path)

    def _turn(self) -> AbstractAsyncContextManager[None]:
        """Take a turn on the connection (``batching.Line.turn``)."""
        return self._line.turn()

    # --- reads ----------------------------------------------------------------------------

    async def fetch_one(self, sql: str, params: Params = ()) -> RowLike | None:
        async with self._turn(), self._conn.execute(sql, tuple(params)) as cursor:
            row: RowLike | None = await cursor.fetchone()
        return row

    async def fetch_all(self, sql: str, params: Params = ()) -> list[RowLike]:
        async with self._turn(), self._conn.execute(sql, tuple(params)) as cursor:
            rows = await cursor.fetchall()
        return list(rows)

    # --- writes ---------------------------------------------------------------------------

    @asynccontextmanager
    async def write(self, what: str) -> AsyncIterator[SqliteTransaction]:
        """Take a turn, check the file is still there, and run one transaction.

        Any SQLite error rolls everything back and becomes a ``DatabaseWriteError`` (one
        sentence; the SQLite error is kept as ``__cause__`` for the log). ``what`` completes
        "Could not ...".
        """
        async with self._turn(), self.write_in_turn(what) as tx:
            yield tx

    @asynccontextmanager
    async def write_in_turn(self, what: str) -> AsyncIterator[SqliteTransaction]:
        """``write`` for a caller that already holds the turn (the queue of saves)."""
        self._check_file()
        try:
            async with self._transaction() as tx:
                yield tx
        except sqlite3.Error as error:
            logger.debug("Write to %s failed: %s", self._path, what, exc_info=True)
            raise faults.write_error(self._path, what, error) from error

    async def write_rows(self, what: str, statements: Statements, *,
                         in_turn: bool = False) -> None:
        """The statements in one transaction, run in one call on the connection's thread
        (``data.backend.Backend.write_rows``): BEGIN IMMEDIATE, the statements and COMMIT
        (or ROLLBACK) there, not one trip to the thread and back per statement."""
        if not in_turn:
            async with self._turn():
                await self.write_rows(what, statements, in_turn=True)
            return
        self._check_file()
        try:
            await on_thread(self._conn, lambda db: _run_rows(db, statements))
        except sqlite3.Error as error:
            logger.debug("Write to %s failed: %s", self._path, what, exc_info=True)
            raise faults.write_error(self._path, what, error) from error

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[SqliteTransaction]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception. Caller holds the turn."""
        await self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield SqliteTransaction(self._conn)
            await self._conn.execute("COMMIT")
        except BaseException:
            # a failed COMMIT too: the transaction must not stay open for the next write
            if self._conn.in_transaction:
                await self._conn.execute("ROLLBACK")
            raise

    async def set_read_only_for_tests(self, read_only: bool) -> None:
        """For tests of the write path: make every later write fail (or work again).

        Uses SQLite's ``PRAGMA query_only``, so writes really fail inside SQLite and surface
        as they would on a read-only disk: ``DatabaseWriteError``, nothing written. Not for
        production use.
        """
        async with self._turn():
            await self._conn.execute(f"PRAGMA query_only = {'ON' if read_only else 'OFF'}")

    @asynccontextmanager
    async def fleet_lock(self, name: str) -> AsyncIterator[None]:
        """The lock ``name`` within this process: a SQLite file serves one bot process, so
        an asyncio lock is the whole fleet's (``data.backend.Backend.fleet_lock``)."""
        lock = self._fleet_locks.setdefault(name, asyncio.Lock())
        async with lock:
            yield

    # --- the file under the bot -----------------------------------------------------------

    def _file_moved(self) -> bool:
        """True if the file opened is no longer at its path (deleted, renamed or replaced)."""
        if self._file_id is None:
            return False
        try:
            st = os.stat(self._stat_path)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self._file_id

    def _check_file(self) -> None:
        """Raise DatabaseVanishedError if the opened file is no longer at its path.

        Writes to a deleted file would succeed and be lost (SQLite keeps writing the unlinked
        inode), and writes after a replacement would land in the -wal file found by name and
        later be replayed onto the other file. One ``stat`` per write; logged at ERROR once
        until the file is back.
        """
        if not self._file_moved():
            self._vanish_logged = False
            return
        message = faults.vanished_message(self._path)
        if not self._vanish_logged:
            self._vanish_logged = True
            logger.error("%s", message)
        raise DatabaseVanishedError(message)


def on_thread(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], Any]
              ) -> Awaitable[Any]:
    """``fn(db)`` with the connection's sqlite3 connection, on aiosqlite's own thread, as one
    call in its line (after every call queued before it, before any queued after it).
    aiosqlite has no public call for it: ``_execute`` is the one each of its own calls goes
    through and ``_conn`` its sqlite3 connection (aiosqlite is pinned in requirements.txt;
    tests/data/test_group_commit.py fails if either changes)."""
    run: Callable[[Callable[[], Any]], Awaitable[Any]] = conn._execute
    return run(lambda: fn(conn._conn))


def _run_rows(db: sqlite3.Connection, statements: Statements) -> None:
    """One transaction of ``statements`` (on the connection's thread)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        for sql, rows in statements:
            if len(rows) == 1:
                db.execute(sql, tuple(rows[0]))
            elif rows:
                db.executemany(sql, rows)
        db.execute("COMMIT")
    except BaseException:
        # a failed COMMIT too: the transaction must not stay open for the next write
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


async def _configure(conn: aiosqlite.Connection, path: str) -> None:
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    await conn.execute("PRAGMA foreign_keys = ON")
    async with conn.execute("PRAGMA quick_check") as cursor:
        rows = await cursor.fetchall()
    if [tuple(row) for row in rows] != [("ok",)]:
        logger.debug("quick_check of %s: %s", path, [tuple(row) for row in rows])
        raise DatabaseOpenError(faults.corrupt_message(path))
    async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
        row = await cursor.fetchone()
    mode = str(row[0]).lower() if row is not None else "?"
    if mode != "wal" and path != ":memory:":
        logger.warning(
            "Database %s could not switch to WAL journal mode (mode is %s)", path, mode
        )
    await conn.execute("PRAGMA synchronous = NORMAL")


async def check_writable(conn: aiosqlite.Connection, path: str) -> None:
    """Make one real write and roll it back: SQLite opens a file it may not write read-only
    without saying so, and the first save would fail long after start-up."""
    try:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            await conn.execute(queries.WRITE_CHECK)
        finally:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
    except sqlite3.Error as error:
        if faults.error_name(error).startswith(faults.READONLY):
            logger.debug("Write check of %s failed", path, exc_info=True)
            raise DatabaseUnwritableError(faults.unwritable_message(path, error)) from None
        raise


def _make_parent_dirs(path: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)


async def _close_quietly(conn: aiosqlite.Connection) -> None:
    try:
        await conn.close()
    except Exception:
        logger.debug("Closing the failed database connection raised", exc_info=True)

"""The SQLite backend: one connection, its file's health and its write path.

Opening (creating the folders, PRAGMAs, WAL, a real write check, migrating), closing, the
first-come, first-served line every call takes its turn in, the transactions, and the
faults: a corrupt, locked, read-only, full, vanished or replaced file becomes one sentence
(data/faults.py) instead of a traceback. No query of the bot's own is here: the families
(data/games.py, ...) send theirs through the calls of ``data.backend.Backend``.

Where the work runs. aiosqlite opens and closes the connection and runs the reads and the
``write`` transactions on its own thread; a save (``write_rows``, the statements known
beforehand) runs inline, on the event loop's thread. With WAL and ``synchronous = NORMAL``
a save's transaction is an append to the -wal file without an fsync, 0.1-0.3 ms of CPU,
while the trip to aiosqlite's thread cost far more than the work: the worker waits for the
GIL at every sqlite3 call, and a busy event loop's thread hands it over only every switch
interval (5 ms), so under load a save took tens to hundreds of ms of wall time for under
1 ms of work, the saves queued behind it, and every click's answer waited for its save
(issue 17: the largest part of an acknowledgement). Inline, that part of an acknowledgement
(the move applied to the save committed) fell to a p50 of 0.4 ms. Reads and the other
writes are off a click's path, and some are long (a log export, pruning old logs): they
stay on aiosqlite's thread, where SQLite's work runs without the GIL. Inline only while
that is cheap: in a file SQLite could not switch to WAL (some network and container
volumes) a save's commit makes three fsyncs, milliseconds and at worst tens of them
(bench/README.md, bench_save_latency.py --no-wal), so there every save runs on aiosqlite's
thread, and start-up logs it once. (A database in memory syncs nothing: saves run inline.)

What keeps that sound:

- one user of the connection at a time: the connection is ours (``_Connector`` makes the
  sqlite3 connection for aiosqlite, ``check_same_thread=False``, and keeps it), and an
  inline write runs only while it holds the line's turn, when aiosqlite's thread has
  nothing of ours left to run. A task cancelled while its call ran on that thread leaves
  the call running there, so until a later call on the thread has come back
  (``_thread_calls``), saves go to the thread too;
- the loop never waits for another process: the inline write runs with ``busy_timeout =
  0``. If another program holds the write lock (an admin's sqlite3 shell, a backup), its
  BEGIN fails at once with SQLITE_BUSY, nothing is written, and the save runs on
  aiosqlite's thread instead, as a ``write`` transaction, waiting up to
  ``BUSY_TIMEOUT_MS`` there (and the saves called meanwhile queue and are written together
  after it: data/batching.py);
- no checkpoint inside a commit: SQLite's own (``wal_autocheckpoint``) would copy the log
  into the file and fsync it inside the COMMIT that crosses 1,000 pages, 4-14 ms measured
  here, so the connection turns it off and data/wal.py runs them in a worker thread on a
  connection of its own, keeping the log bounded;
- faults map as before: an inline write raises the same ``sqlite3`` errors, turned into the
  same sentences (data/faults.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import aiosqlite

from data import faults, queries, wal
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
"""How long a call on aiosqlite's thread waits for another program's lock (never inline)."""
WAL_RETRY_FIRST = 0.01
WAL_RETRY_MOST = 0.2
"""Seconds between two tries to switch a database to WAL that another program holds."""
ITER_CHUNK_SIZE = 64  # rows aiosqlite fetches at a time when a cursor is iterated


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

    def __init__(self, conn: aiosqlite.Connection, db: sqlite3.Connection, path: str,
                 file_id: faults.FileId | None = None, *, inline: bool = True) -> None:
        self._conn = conn
        self._db = db  # the same sqlite3 connection, for the inline writes
        self._path = path
        # Saves may run inline: a commit syncs nothing (WAL mode, or a database in memory).
        self._inline = inline
        self._line = Line()
        self._closed = False
        # A call on aiosqlite's thread may still run there (its caller was cancelled).
        self._thread_behind = False
        self._checkpoints: wal.Checkpoints | None = None
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
        runs on it (between calls: a call made on it while the backend writes inline would
        be a second user of the connection). The bot goes through the calls below."""
        return self._conn

    @property
    def checkpoints(self) -> wal.Checkpoints | None:
        """The checkpoints of the write-ahead log (None without WAL): for tests."""
        return self._checkpoints

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
        connector = _Connector(path)
        conn: aiosqlite.Connection | None = None
        try:
            # (the migrations are read by ``migrate``: it raises MigrationError, naming them)
            conn = aiosqlite.Connection(connector, ITER_CHUNK_SIZE)
            await conn  # (aiosqlite's thread starts and calls the connector)
            conn.row_factory = sqlite3.Row
            mode = await _configure(conn, path)
            await check_writable(conn, path)
            version = await migrate(conn, path)
            backend = cls(conn, connector.made(), path, faults.file_id(path),
                          inline=mode in ("wal", "memory"))
            if mode == "wal":
                await backend._checkpoint_off_the_loop()
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
        return backend

    async def _checkpoint_off_the_loop(self) -> None:
        """Turn SQLite's own checkpoints off (they run inside a COMMIT, on the loop's thread
        for a save) and run them on a connection of their own instead (data/wal.py)."""
        self._checkpoints = await wal.Checkpoints.open(self._path, self._turn,
                                                        self._file_moved)
        try:
            await self._conn.execute("PRAGMA wal_autocheckpoint = 0")
        except BaseException:
            await self._checkpoints.close()
            raise

    async def close(self) -> None:
        """Close the connection once every call made before this one is done: saves waiting
        for their batch are written first and their callers answered. A call made after
        this one fails as on any closed connection (aiosqlite's ``ValueError``)."""
        if self._checkpoints is not None:
            self._checkpoints.closing()  # (before the turn: none may queue behind this)
        async with self._turn():
            if self._checkpoints is not None:
                await self._checkpoints.close()
            if self._file_moved():
                await self._empty_stale_wal()
            self._closed = True
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
        async with (self._turn(), self._thread_calls(),
                    self._conn.execute(sql, tuple(params)) as cursor):
            row: RowLike | None = await cursor.fetchone()
        return row

    async def fetch_all(self, sql: str, params: Params = ()) -> list[RowLike]:
        async with (self._turn(), self._thread_calls(),
                    self._conn.execute(sql, tuple(params)) as cursor):
            rows = await cursor.fetchall()
        return list(rows)

    async def ping(self) -> None:
        """The file still at its path, and a query answered on it (``Backend.ping``)."""
        self._check_file()
        await self.fetch_one("SELECT 1")

    @asynccontextmanager
    async def _thread_calls(self) -> AsyncIterator[None]:
        """Around calls on aiosqlite's thread (the turn held): whether one may still run
        there when the block ends. Cancelled (or interrupted) while a call ran, its caller
        leaves it running on the thread, and the turn passes on: an inline write then would
        be a second user of the connection, so writes go to the thread (behind it: the
        thread runs its calls in order) until a call there has come back."""
        try:
            yield
        except BaseException as error:
            if isinstance(error, sqlite3.Error):
                self._thread_behind = False  # the call came back, with an error
            elif not isinstance(error, Exception):
                self._thread_behind = True  # cancelled: a call may still run there
            # (any other error was raised here, no call running: the flag stands)
            raise
        self._thread_behind = False

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
        self._wrote()

    async def write_rows(self, what: str, statements: Statements, *,
                         in_turn: bool = False) -> None:
        """The statements in one transaction (``data.backend.Backend.write_rows``), inline
        on the event loop's thread: BEGIN IMMEDIATE, the statements and COMMIT (or
        ROLLBACK) in one go, without waiting for any lock. When the file is not in WAL mode
        (a commit syncs it), another program holds the write lock, or a cancelled call may
        still run on aiosqlite's thread, the same transaction runs there instead, waiting
        for the lock up to ``BUSY_TIMEOUT_MS``."""
        if not in_turn:
            async with self._turn():
                await self.write_rows(what, statements, in_turn=True)
            return
        self._check_file()
        try:
            if not self._inline or self._thread_behind \
                    or not self._write_inline(statements):
                await self._write_on_thread(statements)
        except sqlite3.Error as error:
            logger.debug("Write to %s failed: %s", self._path, what, exc_info=True)
            raise faults.write_error(self._path, what, error) from error
        self._wrote()

    def _write_inline(self, statements: Statements) -> bool:
        """The transaction here, on the event loop's thread (the turn held, aiosqlite's
        thread idle), with no busy wait: False, nothing written, if another connection holds
        the file's write lock (SQLITE_BUSY at once instead of after ``BUSY_TIMEOUT_MS``)."""
        if self._closed:
            raise ValueError("no active connection")  # as aiosqlite's calls say
        db = self._db
        db.execute("PRAGMA busy_timeout = 0")
        try:
            _run_rows(db, statements)
        except sqlite3.OperationalError as error:
            if not faults.error_name(error).startswith(faults.BUSY):
                raise
            logger.debug("%s is locked by another connection; the write waits for it on "
                         "aiosqlite's thread", self._path, exc_info=True)
            return False
        finally:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return True

    async def _write_on_thread(self, statements: Statements) -> None:
        """The transaction on aiosqlite's thread (the turn held), waiting for locks."""
        async with self._transaction() as tx:
            for sql, rows in statements:
                if len(rows) == 1:
                    await tx.execute(sql, rows[0])
                elif rows:
                    await tx.execute_many(sql, rows)

    def _wrote(self) -> None:
        """A transaction was committed: its checkpoint may be due (data/wal.py)."""
        if self._checkpoints is not None:
            self._checkpoints.wrote()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[SqliteTransaction]:
        """BEGIN IMMEDIATE ... COMMIT on aiosqlite's thread, rolled back on any exception.
        Caller holds the turn."""
        async with self._thread_calls():
            try:
                await self._conn.execute("BEGIN IMMEDIATE")
                yield SqliteTransaction(self._conn)
                await self._conn.execute("COMMIT")
            except BaseException:
                # A failed COMMIT too: the transaction must not stay open for the next write.
                # Asked of the thread, after what this transaction sent there: a caller
                # cancelled while its BEGIN waited for another program's lock leaves the
                # BEGIN to run later, and sqlite3's rollback() rolls back only if then in a
                # transaction.
                await self._conn.rollback()
                raise

    async def set_read_only_for_tests(self, read_only: bool) -> None:
        """For tests of the write path: make every later write fail (or work again).

        Uses SQLite's ``PRAGMA query_only``, so writes really fail inside SQLite and surface
        as they would on a read-only disk: ``DatabaseWriteError``, nothing written. Not for
        production use.
        """
        async with self._turn(), self._thread_calls():
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


class _Connector:
    """Makes the sqlite3 connection for aiosqlite (called on aiosqlite's thread when it
    connects) and keeps it: the backend writes on it inline too, from the event loop's
    thread (hence ``check_same_thread=False``), one user at a time (the line)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.db: sqlite3.Connection | None = None

    def __call__(self) -> sqlite3.Connection:
        self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,
                                  isolation_level=None, check_same_thread=False)
        return self.db

    def made(self) -> sqlite3.Connection:
        if self.db is None:
            raise sqlite3.InterfaceError("aiosqlite connected without the connector")
        return self.db


def _run_rows(db: sqlite3.Connection, statements: Statements) -> None:
    """One transaction of ``statements`` on ``db``, in one go."""
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


async def _configure(conn: aiosqlite.Connection, path: str) -> str:
    """The connection's settings; the journal mode it is in (``wal``, unless SQLite could
    not switch the file to WAL; ``memory`` for a database in memory)."""
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    await conn.execute("PRAGMA foreign_keys = ON")
    async with conn.execute("PRAGMA quick_check") as cursor:
        rows = await cursor.fetchall()
    if [tuple(row) for row in rows] != [("ok",)]:
        logger.debug("quick_check of %s: %s", path, [tuple(row) for row in rows])
        raise DatabaseOpenError(faults.corrupt_message(path))
    mode = await _switch_to_wal(conn, path)
    if mode not in ("wal", "memory"):
        logger.warning(
            "Database %s could not switch to WAL journal mode (mode is %s): every save "
            "syncs the file, so saves run on the database's thread, not the event loop's",
            path, mode,
        )
    await conn.execute("PRAGMA synchronous = NORMAL")
    return mode


async def _switch_to_wal(conn: aiosqlite.Connection, path: str) -> str:
    """``PRAGMA journal_mode = WAL``, asked again while another program's write holds the
    file (up to ``BUSY_TIMEOUT_MS``); the journal mode it leaves. SQLite answers a change of
    journal mode that meets another connection's write with SQLITE_BUSY at once, without
    waiting ``busy_timeout``: two shard processes opening a new database at the same
    moment, one switching it while the other's switch held it, saw "locked by another
    program" and one exited (tests/data/test_fleet.py, about 1 start in 150 on a loaded
    machine). A file that cannot be in WAL answers with its mode at once, as before."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BUSY_TIMEOUT_MS / 1000
    delay = WAL_RETRY_FIRST
    while True:
        try:
            async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
                row = await cursor.fetchone()
            return str(row[0]).lower() if row is not None else "?"
        except sqlite3.OperationalError as error:
            if not faults.error_name(error).startswith(faults.BUSY) \
                    or loop.time() + delay > deadline:
                raise
        logger.debug("Switching %s to WAL met another program's write; trying again", path)
        await asyncio.sleep(delay)
        delay = min(delay * 2, WAL_RETRY_MOST)


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

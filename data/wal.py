"""Checkpoints of the SQLite file's write-ahead log, off the event loop's thread.

In WAL mode a commit appends the transaction's pages to the -wal file; a checkpoint copies
them back into the database file and syncs it, and once all of the log is copied the next
write starts it over from the beginning. SQLite runs a checkpoint by itself inside the COMMIT
that takes the log past 1,000 pages (``wal_autocheckpoint``): 4-14 ms measured here (the
pages copied, then an fsync), which would stop the event loop for as long, since the bot's
saves commit on the loop's thread (data/sqlite.py). So the bot's connection runs with
``wal_autocheckpoint = 0`` and ``Checkpoints`` runs them instead: PASSIVE, after every
``CHECKPOINT_WRITES`` transactions, on a sqlite3 connection of its own in a worker thread
(``asyncio.to_thread``). SQLite copies and syncs without the GIL, and a passive checkpoint
takes no lock a writer waits for, so the bot's writes go on meanwhile.

The log only starts over when a write begins after a checkpoint copied all of it. A passive
checkpoint copies the log as it was when it began, so a write committed while it runs keeps
the log from starting over, and under steady writes that can go on for ever (the log then
grows by every write). So when a checkpoint finds more than ``WAL_MAX_FRAMES`` frames in the
log (it has not started over for that long), another one runs at once holding the
connection's turn (``data.batching.Line``): none of the bot's writes run during it (saves
wait, and are then written together), so it copies the rest (the earlier checkpoints copied
most: a few ms, mostly the sync) and the next write starts the log over. The -wal file so
stays under about ``WAL_MAX_FRAMES`` pages plus what is written between two checkpoints.
(Another program reading an old snapshot keeps any checkpoint, SQLite's own too, from
copying past it; the log starts over once it is done.)
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

logger = logging.getLogger(__name__)

CHECKPOINT_WRITES = 100
"""A checkpoint runs after this many transactions (a save writes about 3 pages of 4 KB)."""
WAL_MAX_FRAMES = 4000
"""A log grown past this many frames is checkpointed while the bot's writes wait, so that it
starts over (16 MB of 4 KB pages)."""


class Checkpoints:
    """The checkpoints of one database file, on a connection of their own. ``wrote()`` after
    each transaction committed on the bot's connection; ``await close()`` before closing it.

    ``turn`` takes a turn on the bot's connection (its line); ``moved`` says the file was
    deleted or replaced under the bot, and then nothing is checkpointed any more (the log
    beside the path may belong to another file)."""

    def __init__(self, db: sqlite3.Connection, path: str,
                 turn: Callable[[], AbstractAsyncContextManager[None]],
                 moved: Callable[[], bool]) -> None:
        self._db: sqlite3.Connection | None = db
        self._path = path
        self._turn = turn
        self._moved = moved
        self._lock = threading.Lock()  # one user of ``_db`` at a time, closing included
        self._writes = 0
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.runs = 0
        """Checkpoints run, and of those ``held`` with the bot's writes waiting (tests)."""
        self.held = 0

    @classmethod
    async def open(cls, path: str, turn: Callable[[], AbstractAsyncContextManager[None]],
                   moved: Callable[[], bool]) -> Checkpoints:
        db = await asyncio.to_thread(_connect, path)
        return cls(db, path, turn, moved)

    @property
    def running(self) -> bool:
        """A checkpoint is running (or about to)."""
        return self._task is not None

    def wrote(self) -> None:
        """A transaction was committed on the bot's connection: start a checkpoint when
        ``CHECKPOINT_WRITES`` of them were (unless one is still running: then the next
        write starts it)."""
        self._writes += 1
        if self._writes < CHECKPOINT_WRITES or self._task is not None or self._closing:
            return
        self._writes = 0
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            log = await self._checkpoint()
            if log > WAL_MAX_FRAMES and not self._closing:
                # writes went on during every checkpoint: once with the bot's writes waiting
                async with self._turn():
                    await self._checkpoint()
                    self.held += 1
        except sqlite3.Error:
            logger.warning("Could not checkpoint the write-ahead log of %s", self._path,
                           exc_info=True)
        finally:
            self._task = None

    async def _checkpoint(self) -> int:
        """One passive checkpoint, in a worker thread: the frames in the log when it began
        (counted since the log last started over)."""
        if self._moved():
            return 0
        log = await asyncio.to_thread(self._checkpoint_here)
        self.runs += 1
        return log

    def _checkpoint_here(self) -> int:
        with self._lock:
            if self._db is None:
                return 0
            row = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(row[1])

    def closing(self) -> None:
        """No new checkpoint from now on (the bot's connection is about to close)."""
        self._closing = True

    async def close(self) -> None:
        """Wait for a checkpoint still running, and close the connection. Call ``closing()``
        before taking the turn to close: a checkpoint waiting for a turn behind ``close``
        would wait for ever."""
        self._closing = True
        if self._task is not None:
            await asyncio.wait({self._task})  # (its own failure or cancellation is its own)
        await asyncio.to_thread(self._close_here)

    def _close_here(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _connect(path: str) -> sqlite3.Connection:
    """A connection that only checkpoints, used from one worker thread at a time."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA wal_autocheckpoint = 0")  # it never writes; said for clarity
    except BaseException:
        db.close()
        raise
    return db

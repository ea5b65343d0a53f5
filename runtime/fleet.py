"""The bot as one process of a fleet: which servers are this process's (Discord's shards),
the lock the processes agree through, and the pacing of IDENTIFY across them.

Discord routes a server's events to shard ``(guild_id >> 22) % shard_count``; a process
runs some shards (``SHARD_IDS``) and serves only their servers (:class:`Shards`).

Where processes must agree (one IDENTIFY per bucket at a time; the card emojis uploaded
once), they take a :data:`FleetLock`: a function from a key to an async context manager,
held by one process of the fleet at a time. On PostgreSQL that is an advisory lock
(``data.Database.fleet_lock``); on a SQLite file it is a lock file beside the database
(:class:`FileLocks`), which holds between processes on one machine, the only place where
several processes can share a SQLite file.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

log = logging.getLogger(__name__)

FleetLock = Callable[[str], AbstractAsyncContextManager[None]]
"""``async with lock("identify:0"):`` holds the key for the whole fleet. The context
manager may be left from another task than the one that entered it (the identify pacer
releases its key five seconds after the IDENTIFY, in a task of its own)."""

IDENTIFY_WINDOW = 5.0
"""Discord allows ``max_concurrency`` IDENTIFYs per 5 s: one per bucket
(``shard_id % max_concurrency``); one too early is answered Invalid Session (op 9)."""

READY_WAIT = 15.0
"""Seconds a bucket's key waits for its shard's READY before the window starts anyway (an
IDENTIFY refused or lost gets no READY)."""

POLL = 0.05
"""Seconds between two tries of a lock file that another process holds."""


@dataclass(frozen=True, slots=True)
class Shards:
    """The shards of this process: ``ids`` of ``count`` (all of them when ``ids`` is None)."""

    count: int
    ids: tuple[int, ...] | None = None

    @property
    def mine(self) -> tuple[int, ...]:
        return self.ids if self.ids is not None else tuple(range(self.count))

    def of(self, guild_id: int) -> int:
        """The shard that Discord sends ``guild_id``'s events to."""
        return (guild_id >> 22) % self.count

    def owns(self, guild_id: int) -> bool:
        """Whether ``guild_id`` is served by this process."""
        return self.ids is None or self.of(guild_id) in self.ids

    @property
    def leads(self) -> bool:
        """Whether this process runs shard 0: the one that does what the fleet does once
        (command sync, log pruning). Discord sends DMs to shard 0 as well."""
        return 0 in self.mine

    def describe(self) -> str:
        mine = self.mine
        if len(mine) > 2 and mine == tuple(range(mine[0], mine[-1] + 1)):
            return f"{mine[0]}-{mine[-1]} of {self.count}"
        return f"{','.join(map(str, mine))} of {self.count}"


class ProcessLocks:
    """A :data:`FleetLock` for a fleet of one process (an in-memory database)."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}

    @contextlib.asynccontextmanager
    async def __call__(self, key: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            yield


class FileLocks:
    """A :data:`FleetLock` for processes sharing one SQLite file: ``flock`` on a file per
    key beside it (``bot.db.lock-identify-0``). The kernel releases it when its process
    dies, so a process killed holding a key does not block the others."""

    def __init__(self, database_path: str) -> None:
        self.base = database_path

    def path_of(self, key: str) -> str:
        return f"{self.base}.lock-{re.sub(r'[^A-Za-z0-9_]+', '-', key)}"

    @contextlib.asynccontextmanager
    async def __call__(self, key: str) -> AsyncIterator[None]:
        fd = os.open(self.path_of(key), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(POLL)
            yield
        finally:
            os.close(fd)  # closing the only descriptor releases the lock


def local_locks(database_path: str) -> FleetLock:
    """The fleet lock of a SQLite database: lock files beside a file, in-process locks for
    an in-memory database."""
    if database_path == ":memory:" or database_path.startswith("file::memory:"):
        return ProcessLocks()
    return FileLocks(database_path)


class IdentifyPacer:
    """One IDENTIFY per bucket (``shard_id % max_concurrency``) per ``window`` seconds in
    the whole fleet: before identifying, a shard takes its bucket's key, and keeps it until
    ``window`` seconds after its READY (the next shard of the bucket, in this process or
    another, waits for it). Counted from READY, not from the IDENTIFY's sending: Discord
    counts from when an IDENTIFY reaches it, which READY comes after; counted from the
    sending, a slow arrival let the next shard's IDENTIFY come too soon (the loopback,
    busy, refused one 4.85 s after the other with the key held 5.5 s from the sending).
    discord.py calls ``turn`` from ``before_identify_hook``; the bot calls ``identified``
    on each shard's READY (``on_shard_connect``)."""

    def __init__(self, lock: FleetLock, max_concurrency: int,
                 window: float = IDENTIFY_WINDOW, ready_wait: float = READY_WAIT) -> None:
        self.lock = lock
        self.max_concurrency = max(1, max_concurrency)
        self.window = window
        self.ready_wait = ready_wait
        self._ready: dict[int, asyncio.Event] = {}
        self._releases: set[asyncio.Task[None]] = set()

    def bucket(self, shard_id: int) -> int:
        return shard_id % self.max_concurrency

    async def turn(self, shard_id: int) -> None:
        """Return when ``shard_id`` may IDENTIFY now; its bucket stays taken until
        ``window`` seconds after its READY."""
        held = self.lock(f"identify:{self.bucket(shard_id)}")
        await held.__aenter__()
        log.debug("Shard %d identifies (bucket %d)", shard_id, self.bucket(shard_id))
        ready = self._ready[shard_id] = asyncio.Event()
        task = asyncio.create_task(self._release(held, ready), name=f"identify-{shard_id}")
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)

    def identified(self, shard_id: int) -> None:
        """``shard_id`` got its READY: its bucket's window starts now."""
        ready = self._ready.pop(shard_id, None)
        if ready is not None:
            ready.set()

    async def _release(self, held: AbstractAsyncContextManager[None],
                       ready: asyncio.Event) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ready.wait(), self.ready_wait)
            await asyncio.sleep(self.window)
        finally:
            await held.__aexit__(None, None, None)

    async def close(self) -> None:
        for task in list(self._releases):
            task.cancel()
        await asyncio.gather(*self._releases, return_exceptions=True)

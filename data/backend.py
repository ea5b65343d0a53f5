"""The seam between the query families and the database engine: what a backend gives them.

The families (data/games.py, log.py, results.py, settings.py) run the portable SQL of
data/queries.py through these calls only, and never see the driver, its connection, its
errors or its file. Two backends give these calls: data/sqlite.py (a SQLite file, the
default) and data/postgres.py (a PostgreSQL server shared by several processes: ``$n``
placeholders, its own fault sentences in data/pgfaults.py), chosen by ``Database.open``.

Every call takes its turn on the one connection, first come, first served, so the statements
of one write never interleave with another call's and calls run in the order they were made
(the line and the group commit of saves are in data/batching.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from data.batching import PendingSave, SaveQueue
from data.models import RowLike

Params = Sequence[Any]
"""The values of a statement's ``?`` placeholders, in order."""
Statements = Sequence[tuple[str, Sequence[Params]]]
"""The statements of one write, in order, each run once per row of values (none: skipped)."""


class Transaction(Protocol):
    """One open transaction; its caller holds the connection's turn."""

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; how many rows it changed (0 when none or unknown)."""
        ...

    async def execute_many(self, sql: str, rows: Sequence[Params]) -> None:
        """Run one statement once per row of values."""
        ...

    async def fetch_one(self, sql: str, params: Params = ()) -> RowLike | None:
        """The first row of a query run inside the transaction, or None."""
        ...

    async def lock(self, name: str) -> None:
        """Hold the fleet-wide lock ``name`` until the transaction ends, so the same work
        done by another process at the same moment waits for this one (PostgreSQL:
        ``pg_advisory_xact_lock``; SQLite: nothing more to do, the transaction already holds
        the file's one write lock)."""
        ...


class Backend(Protocol):
    """One open database: reads, writes in one transaction each, and the file's health."""

    @property
    def path(self) -> str:
        """Where the database is (a file path, or a URL without its password), for messages
        and the log."""
        ...

    @property
    def idle(self) -> bool:
        """Nobody holds the connection's turn (so a save written now waits for nobody)."""
        ...

    async def fetch_one(self, sql: str, params: Params = ()) -> RowLike | None:
        """Take a turn and run a query: its first row, or None."""
        ...

    async def fetch_all(self, sql: str, params: Params = ()) -> list[RowLike]:
        """Take a turn and run a query: all its rows."""
        ...

    async def ping(self) -> None:
        """Take a turn and ask the database something trivial: raises if it does not
        answer (a SQLite file deleted or replaced; a PostgreSQL server out of reach)."""
        ...

    def write(self, what: str) -> AbstractAsyncContextManager[Transaction]:
        """Take a turn and run one transaction, committed when the block ends.

        Any error rolls everything back; a driver error becomes a ``DatabaseWriteError``
        whose one sentence starts "Could not {what} ...". A write to a file deleted or
        replaced under the bot raises ``DatabaseVanishedError`` before anything is run.
        """
        ...

    def write_in_turn(self, what: str) -> AbstractAsyncContextManager[Transaction]:
        """``write`` for a caller that already holds the turn (the queue of saves)."""
        ...

    async def write_rows(self, what: str, statements: Statements, *,
                         in_turn: bool = False) -> None:
        """Run ``statements`` in one transaction, all or nothing, as a ``write`` block that
        runs them would (its errors too); ``in_turn``: the caller already holds the turn
        (the queue of saves). A write whose statements are known beforehand (a save): SQLite
        runs the whole transaction in one go on the event loop's thread (no trip to its
        connection's thread, whose wait for the GIL cost more than the write: data/sqlite.py)
        unless another program holds the file locked."""
        ...

    def queue_saves(
        self,
        write_together: Callable[[list[PendingSave]], Awaitable[None]],
        write_alone: Callable[[PendingSave], Awaitable[None]],
    ) -> SaveQueue:
        """The queue of saves that share this connection's line (group commit). Every other
        call taking its turn closes the queue's open group, so no save overtakes it."""
        ...

    def fleet_lock(self, name: str) -> AbstractAsyncContextManager[None]:
        """Hold the lock ``name`` for the block, across every process sharing the database
        (PostgreSQL: a session advisory lock on a connection of its own, released by the
        server if the process dies; SQLite, one process: an in-process asyncio lock)."""
        ...

    async def close(self) -> None:
        """Close once every call made before this one is done (queued saves included)."""
        ...

    async def set_read_only_for_tests(self, read_only: bool) -> None:
        """Make every later write fail inside the engine (or work again); tests only."""
        ...

"""Group commit for ``Database.save_game``: the connection's first-come, first-served line
(``Turns``) and the queue of saves that share one transaction (``SaveQueue``).

No SQL here: the games (data/games.py) give the queue the two ways they write saves, all
in one transaction or one alone, and the queue decides when, and which to try again alone
when a shared transaction fails (data/games.py's docstring tells the whole story). The
backend (data/sqlite.py) owns the line and makes the queue (``queue_saves``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from data.models import LogEntry, SavedGame

logger = logging.getLogger(__name__)

SAVE_BATCH_MAX = 64  # at most this many saves share one transaction


class Turns:
    """A first-come, first-served lock whose place in line is taken without awaiting.

    ``reserve()`` returns a future resolved when that place's turn comes (at once when the
    line is empty); the holder of a turn calls ``release()`` exactly once, which hands the
    turn to the next place still wanted. A place is given up by cancelling its future. Unlike
    ``asyncio.Lock`` a place belongs to no task, so a group of saves keeps the place its first
    save took whichever task ends up writing it.
    """

    def __init__(self) -> None:
        self._held = False
        self._waiting: deque[asyncio.Future[None]] = deque()  # empty unless held

    @property
    def free(self) -> bool:
        """Nobody holds a turn (so nobody waits either)."""
        return not self._held

    def reserve(self) -> asyncio.Future[None]:
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._held:
            self._waiting.append(turn)
        else:
            self._held = True
            turn.set_result(None)
        return turn

    async def wait(self, turn: asyncio.Future[None]) -> None:
        """Wait for ``turn``. Cancelled while waiting, the place is given up, and a turn that
        came just then is handed on."""
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()
            raise

    def release(self) -> None:
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():  # else cancelled: that place was given up
                turn.set_result(None)
                return
        self._held = False


@dataclass(eq=False, slots=True)
class PendingSave:
    """One ``save_game`` call waiting for its batch; ``future`` is its answer."""

    game: SavedGame
    log: tuple[LogEntry, ...]
    future: asyncio.Future[None]


@dataclass(eq=False, slots=True)
class SaveGroup:
    """Saves queued one after another, written together when ``turn`` comes."""

    turn: asyncio.Future[None]
    items: list[PendingSave]


def settle(future: asyncio.Future[None], error: BaseException | None = None) -> None:
    """Answer a save's caller, unless the caller is gone (its future was cancelled)."""
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


class SaveQueue:
    """The saves waiting for the connection, in groups that each hold one place in
    ``turns``. ``write_together`` writes several saves in one transaction and
    ``write_alone`` one save in its own (both called with the turn held; ``path`` names the
    database in the log)."""

    def __init__(
        self,
        turns: Turns,
        write_together: Callable[[list[PendingSave]], Awaitable[None]],
        write_alone: Callable[[PendingSave], Awaitable[None]],
        path: str,
    ) -> None:
        self._turns = turns
        self._write_together = write_together
        self._write_alone = write_alone
        self._path = path
        # The saves still open to more saves, if the last call in line is a group of saves.
        self.open_group: SaveGroup | None = None
        self.runners: set[asyncio.Task[None]] = set()

    def close_group(self) -> None:
        """Another call took its place in line: later saves queue behind it."""
        self.open_group = None

    def enqueue(self, item: PendingSave) -> None:
        """Add the save to the open group, or open a new one (with its place in line)."""
        group = self.open_group
        if group is None:
            group = SaveGroup(self._turns.reserve(), [])
            self.open_group = group
            runner = asyncio.get_running_loop().create_task(self._run_group(group))
            self.runners.add(runner)
            runner.add_done_callback(self.runners.discard)
        group.items.append(item)
        if len(group.items) >= SAVE_BATCH_MAX:
            self.open_group = None

    async def _run_group(self, group: SaveGroup) -> None:
        """Wait for the group's turn, write its saves, and answer every one of them."""
        try:
            await self._turns.wait(group.turn)
            if self.open_group is group:
                self.open_group = None  # later saves form the next group
            try:
                await self._write_saves([i for i in group.items if not i.future.done()])
            finally:
                self._turns.release()
        finally:
            if self.open_group is group:
                self.open_group = None
            for item in group.items:
                if not item.future.done():  # only when this task itself was cancelled
                    item.future.cancel()

    async def _write_saves(self, items: list[PendingSave]) -> None:
        """Write the saves (the turn is held) and settle each one's future: all in one
        transaction, or each alone when that fails (or when there is only one)."""
        if len(items) > 1:
            try:
                await self._write_together(items)
            except Exception:
                logger.debug("A batch of %d saves to %s failed; saving each alone",
                             len(items), self._path, exc_info=True)
            else:
                for item in items:
                    settle(item.future)
                return
        for item in items:
            try:
                await self._write_alone(item)
            except Exception as error:
                settle(item.future, error)
            else:
                settle(item.future)


class Line:
    """One connection's line, as both backends keep it: its turns and its queues of saves."""

    def __init__(self) -> None:
        self.turns = Turns()
        self.queues: list[SaveQueue] = []

    def queue_saves(self, write_together: Callable[[list[PendingSave]], Awaitable[None]],
                    write_alone: Callable[[PendingSave], Awaitable[None]],
                    where: str) -> SaveQueue:
        queue = SaveQueue(self.turns, write_together, write_alone, where)
        self.queues.append(queue)
        return queue

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Take a turn on the connection (the lock of every call but a batched save).

        Waits for every call queued before this one, saves waiting for a batch included,
        and closes the open group of saves: saves called later are queued behind this.
        """
        for queue in self.queues:
            queue.close_group()
        turn = self.turns.reserve()
        await self.turns.wait(turn)
        try:
            yield
        finally:
            self.turns.release()

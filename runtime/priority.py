"""Clicks first: work nobody waits for gives way while a click waits for its answer.

A click is acknowledged only once its handler has run, and the handler runs when the event
loop comes to it: after every step already waiting (the loop runs them first come, first
served). Most of what the bot does is not waited for by anyone: the table's edit (gathered
half a second anyway), the other players' panels, the pictures. At a thousand busy tables
that work fills the loop and every click waits behind it (issue 17; ``git log -p
bench/README.md`` has its figures).

So a click counts as waiting from the moment the gateway delivers it
(:meth:`Priority.arrived`, called from the bot's ``dispatch`` of the interaction) until its
answer goes out (:meth:`Priority.answered`, ``_reply``), and work that nobody waits for calls
:meth:`Priority.give_way` before each piece (a table's composition, a panel's edit): while
clicks wait it waits for a moment without any, at most ``MAX_WAIT`` seconds, so it always
goes on. A piece already under way is not interrupted; clicks only stop new pieces from
starting ahead of them. A click never answered (dropped, or its handler failed before
answering) is forgotten after ``FORGET_AFTER`` seconds, when Discord has given up on it
anyway.

Only clicks on components are counted (the panel's and the table's buttons and menus: the
moves): slash commands and autocomplete go first come, first served as before.
"""

from __future__ import annotations

import asyncio
import logging
import time

log = logging.getLogger(__name__)

MAX_WAIT = 0.1
"""Seconds a piece of background work waits at most for a moment without waiting clicks."""
FORGET_AFTER = 3.0
"""Seconds after which a click still counted as waiting is forgotten (Discord's limit)."""


class Priority:
    """The clicks waiting for their answer, and the work that gives way to them."""

    def __init__(self) -> None:
        self._waiting: dict[int, float] = {}
        """Interaction id → when it arrived (monotonic seconds)."""
        self._clear: asyncio.Future[None] | None = None
        """Resolved when no click waits any more (made by the first piece that waits)."""
        self.gave_way = 0
        """Pieces of work that waited (for tests and the benchmark's curiosity)."""

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def arrived(self, interaction_id: int) -> None:
        """A click came in: it waits for its answer from now on."""
        self._waiting[interaction_id] = time.monotonic()

    def answered(self, interaction_id: int) -> None:
        """The click's answer is going out (or it will have none): it waits no more."""
        if self._waiting.pop(interaction_id, None) is not None and not self._waiting:
            self._release()

    async def give_way(self) -> None:
        """Return at once if no click waits; else once none does, or after ``MAX_WAIT``."""
        if not self._waiting:
            return
        self._forget_old()
        if not self._waiting:
            return
        loop = asyncio.get_running_loop()
        clear = self._clear
        if clear is None or clear.done() or clear.get_loop() is not loop:
            clear = self._clear = loop.create_future()
        self.gave_way += 1
        await asyncio.wait((clear,), timeout=MAX_WAIT)

    def _forget_old(self) -> None:
        old = time.monotonic() - FORGET_AFTER
        stale = [iid for iid, since in self._waiting.items() if since < old]
        for iid in stale:
            del self._waiting[iid]
        if stale:
            log.debug("%d clicks never answered were forgotten", len(stale))
            if not self._waiting:
                self._release()

    def _release(self) -> None:
        clear, self._clear = self._clear, None
        if clear is not None and not clear.done():
            clear.set_result(None)


PRIORITY = Priority()
"""The process's clicks (one event loop, one bot)."""

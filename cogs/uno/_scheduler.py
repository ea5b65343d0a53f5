"""Every background task of a table, in one place: its turn timer and its computer players.

``cancel(channel_id)`` stops everything of one table; ``close()`` everything of all tables.
The scheduler knows nothing of games: the table service tells it what to run and when.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self) -> None:
        self._tasks: dict[int, dict[str, asyncio.Task[None]]] = {}
        self._closed = False

    def start(self, channel_id: int, name: str, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as the table's ``name`` task, replacing (cancelling) the one before
        (unless that one is the caller itself, which ends on its own)."""
        if self._closed:
            coro.close()
            return
        tasks = self._tasks.setdefault(channel_id, {})
        old = tasks.get(name)
        if old is not None and not old.done() and old is not asyncio.current_task():
            old.cancel()
        task = asyncio.create_task(coro, name=f"uno:{channel_id}:{name}")
        tasks[name] = task
        task.add_done_callback(lambda t: self._done(channel_id, name, t))

    def running(self, channel_id: int, name: str) -> bool:
        task = self._tasks.get(channel_id, {}).get(name)
        return task is not None and not task.done()

    def cancel(self, channel_id: int, name: str | None = None) -> None:
        """Cancel one task of the table, or all of them (never the calling task itself)."""
        tasks = self._tasks.get(channel_id, {})
        for key in [name] if name is not None else list(tasks):
            task = tasks.get(key)
            if task is not None and task is not asyncio.current_task():
                task.cancel()
                tasks.pop(key, None)

    def tables(self) -> list[int]:
        return [cid for cid, tasks in self._tasks.items() if any(not t.done()
                                                                 for t in tasks.values())]

    async def close(self) -> None:
        """Cancel every task and wait for them to end."""
        self._closed = True
        tasks = [t for ts in self._tasks.values() for t in ts.values()
                 if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()

    def _done(self, channel_id: int, name: str, task: asyncio.Task[None]) -> None:
        tasks = self._tasks.get(channel_id)
        if tasks is not None and tasks.get(name) is task:
            del tasks[name]
            if not tasks:
                del self._tasks[channel_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("Task %s of channel %s failed", name, channel_id,
                      exc_info=task.exception())

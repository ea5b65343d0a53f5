"""Every background task of a table, in one place: its turn timer and its computer players.

``cancel(channel_id)`` stops everything of one table; ``close()`` everything of all tables.
The scheduler knows nothing of games: the table service tells it what to run and when.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self) -> None:
        self._tasks: dict[int, dict[str, asyncio.Task[None]]] = {}
        self._later: dict[tuple[int, str], asyncio.TimerHandle] = {}
        """Tasks not started yet (``start_later``): a timer handle each, where a task
        sleeping until then would keep a task, its coroutines, a future and a context per
        table alive (and walked by every full garbage collection)."""
        self._closed = False

    def start_later(self, channel_id: int, name: str, delay: float,
                    factory: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``factory()`` as the table's ``name`` task in ``delay`` seconds, replacing
        (cancelling) the one before, whether started or still waiting."""
        if self._closed:
            return
        self.cancel(channel_id, name)
        self._later[channel_id, name] = asyncio.get_running_loop().call_later(
            max(0.0, delay), self._due, channel_id, name, factory)

    def _due(self, channel_id: int, name: str,
             factory: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._later.pop((channel_id, name), None)
        self.start(channel_id, name, factory())

    def start(self, channel_id: int, name: str, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as the table's ``name`` task, replacing (cancelling) the one before
        (unless that one is the caller itself, which ends on its own)."""
        if self._closed:
            coro.close()
            return
        waiting = self._later.pop((channel_id, name), None)
        if waiting is not None:
            waiting.cancel()
        tasks = self._tasks.setdefault(channel_id, {})
        old = tasks.get(name)
        if old is not None and not old.done() and old is not asyncio.current_task():
            old.cancel()
        task = asyncio.create_task(coro, name=f"uno:{channel_id}:{name}")
        tasks[name] = task
        task.add_done_callback(lambda t: self._done(channel_id, name, t))

    def running(self, channel_id: int, name: str) -> bool:
        """The task runs or waits to start."""
        if (channel_id, name) in self._later:
            return True
        task = self._tasks.get(channel_id, {}).get(name)
        return task is not None and not task.done()

    def cancel(self, channel_id: int, name: str | None = None) -> None:
        """Cancel one task of the table, or all of them (never the calling task itself)."""
        for later in ([(channel_id, name)] if name is not None
                      else [k for k in self._later if k[0] == channel_id]):
            waiting = self._later.pop(later, None)
            if waiting is not None:
                waiting.cancel()
        tasks = self._tasks.get(channel_id, {})
        for key in [name] if name is not None else list(tasks):
            task = tasks.get(key)
            if task is not None and task is not asyncio.current_task():
                task.cancel()
                tasks.pop(key, None)

    def tables(self) -> list[int]:
        running = [cid for cid, tasks in self._tasks.items() if any(not t.done()
                                                                    for t in tasks.values())]
        return running + sorted({cid for cid, _name in self._later} - set(running))

    async def close(self) -> None:
        """Cancel every task and wait for them to end."""
        self._closed = True
        for waiting in self._later.values():
            waiting.cancel()
        self._later.clear()
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

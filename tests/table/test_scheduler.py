"""The scheduler's delayed tasks: a timer handle until they are due, no sleeping task."""

from __future__ import annotations

import asyncio

from cogs.uno.table.scheduler import Scheduler


async def test_a_later_task_waits_as_a_timer_handle_then_runs() -> None:
    scheduler = Scheduler()
    ran: list[str] = []

    async def job(what: str) -> None:
        ran.append(what)

    scheduler.start_later(1, "timer", 0.05, lambda: job("first"))
    assert scheduler.running(1, "timer")
    assert not [t for t in asyncio.all_tasks() if t.get_name().startswith("uno:1:")], \
        "no task while it waits"
    await asyncio.sleep(0.1)
    assert ran == ["first"]
    assert not scheduler.running(1, "timer")
    await scheduler.close()


async def test_a_later_task_is_replaced_and_cancelled() -> None:
    scheduler = Scheduler()
    ran: list[str] = []

    async def job(what: str) -> None:
        ran.append(what)

    scheduler.start_later(1, "timer", 0.05, lambda: job("replaced"))
    scheduler.start_later(1, "timer", 0.06, lambda: job("second"))
    scheduler.start_later(2, "timer", 0.05, lambda: job("cancelled by name"))
    scheduler.start_later(3, "timer", 0.05, lambda: job("cancelled with its table"))
    scheduler.start_later(4, "timer", 0.05, lambda: job("replaced by a task"))
    scheduler.start(4, "timer", job("task"))
    scheduler.cancel(2, "timer")
    scheduler.cancel(3)
    assert not scheduler.running(2, "timer") and not scheduler.running(3, "timer")
    await asyncio.sleep(0.1)
    assert sorted(ran) == ["second", "task"]
    scheduler.start_later(5, "timer", 0.01, lambda: job("closed"))
    await scheduler.close()
    scheduler.start_later(5, "timer", 0.01, lambda: job("after close"))
    await asyncio.sleep(0.05)
    assert sorted(ran) == ["second", "task"]

"""GameCog first (``runtime/priority.py``): work nobody waits for (a panel's edit, a table's
write) gives way while a click waits for its answer, never longer than ``MAX_WAIT``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from runtime import priority
from runtime.priority import Priority
from support.panels import followed_panel


async def test_nothing_waits_when_no_click_does() -> None:
    clicks = Priority()
    loop = asyncio.get_running_loop()
    started = loop.time()
    await clicks.give_way()
    assert loop.time() - started < 0.01 and clicks.gave_way == 0


async def test_work_goes_on_once_the_waiting_clicks_are_answered() -> None:
    clicks = Priority()
    clicks.arrived(1)
    clicks.arrived(2)
    work = asyncio.create_task(clicks.give_way())
    await asyncio.sleep(0.01)
    clicks.answered(1)
    await asyncio.sleep(0.01)
    assert not work.done(), "one click still waits"
    clicks.answered(2)
    await asyncio.wait_for(work, 0.05)
    assert clicks.gave_way == 1 and clicks.waiting == 0


async def test_work_never_waits_longer_than_max_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(priority, "MAX_WAIT", 0.05)
    clicks = Priority()
    clicks.arrived(1)  # never answered
    loop = asyncio.get_running_loop()
    started = loop.time()
    await clicks.give_way()
    assert 0.04 <= loop.time() - started < 0.5
    assert clicks.waiting == 1


async def test_a_click_never_answered_is_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(priority.time, "monotonic", lambda: now[0])
    clicks = Priority()
    clicks.arrived(1)
    now[0] += priority.FORGET_AFTER + 0.1
    clicks.arrived(2)
    clicks.answered(2)
    assert clicks.waiting == 1
    await clicks.give_way()  # forgets the old one: no wait at all
    assert clicks.waiting == 0 and clicks.gave_way == 0


async def test_a_panel_edit_waits_for_the_click_in_front_of_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The next player's panel is edited after the click that moved the game is answered
    (the mover waits for that answer; nobody waits for the edit to the moment)."""
    clicks = Priority()
    monkeypatch.setattr("cogs.uno._panels.PRIORITY", clicks)
    panels, session, edits = followed_panel(monkeypatch)
    clicks.arrived(1001)  # the mover's click, not answered yet
    session.serial = 2
    panels.changed(session)
    await asyncio.sleep(0.02)
    assert edits == [], "the edit gave way"
    clicks.answered(1001)
    panel = panels.live(7, "2")
    assert panel is not None and panel.task is not None
    await asyncio.wait_for(panel.task, 0.5)
    assert edits == ["move 2"] and clicks.gave_way == 1


async def test_a_panel_is_built_when_its_edit_goes_not_in_the_click_that_moved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The click that changed the game builds no other player's panel (its answer waits
    for nothing else): the panel is built from the game as saved when its edit's turn
    comes (under the game's lock, so never from a change under way), once for all the
    changes before it."""
    builds: list[int] = []

    def build(session: Any, pid: str, locale: str, closing: bool) -> tuple[str, None]:
        builds.append(session.serial)
        return f"move {session.serial}", None

    panels, session, edits = followed_panel(monkeypatch, build=build)
    builds.clear()
    async with session.lock:  # a change under way
        for serial in (2, 3):
            session.serial = serial
            panels.changed(session)
        assert builds == [], "nothing built in the change itself"
        await asyncio.sleep(0.02)
        assert builds == [], "nor while a change holds the game"
        session.serial = 4  # saved once the lock is released
    panel = panels.live(7, "2")
    assert panel is not None and panel.task is not None
    await asyncio.wait_for(panel.task, 0.5)
    assert builds == [4] and edits == ["move 4"]

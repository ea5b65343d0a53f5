"""Live hand panels (``cogs/uno/_panels.py``) follow every saved change, including one
saved while the panel was being opened."""

from __future__ import annotations

import asyncio

import pytest

from cogs.uno._panels import Panels
from support.panels import click, recorded_panels


async def test_a_panel_opened_while_the_game_moved_shows_the_move(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """My hand is built under the game's lock and sent after it is released; a computer
    player's move saved in that gap found no panel to edit. Once registered, the panel is
    edited to the game as saved (it once said "waiting for your turn" on the player's
    turn until their next click: a browser test caught it)."""
    panels, session, edits = recorded_panels(monkeypatch)
    built = panels.stamp()  # the answer built at serial 1, under the lock
    session.serial = 2      # the lock released, the computer player moves, it is saved
    panels.changed(session)
    assert panels.live(7, "2") is None, "no panel yet: nothing to edit"
    panels.shown(session, "2", "en-US", click(), 99, ("key", 1), built)
    panel = panels.live(7, "2")
    assert panel is not None and panel.task is not None
    await asyncio.wait_for(panel.task, 0.5)
    assert edits == ["move 2"]


async def test_a_panel_opened_on_the_game_as_it_is_is_not_edited(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing changed between building the answer and showing it: no edit follows."""
    panels, session, edits = recorded_panels(monkeypatch)
    panels.shown(session, "2", "en-US", click(), 99, ("key", 1), panels.stamp())
    panel = panels.live(7, "2")
    assert panel is not None and panel.task is None
    await asyncio.sleep(0.02)
    assert edits == []


async def settled(panels: Panels, edits: list[str]) -> list[str]:
    """The edits once the panel of player 2 in channel 7 has none left to send."""
    panel = panels.live(7, "2")
    if panel is not None and panel.task is not None:
        await asyncio.wait_for(panel.task, 0.5)
    return edits


async def test_a_panel_opened_during_a_change_that_is_undone_shows_the_game_as_saved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer goes out while a computer player's move holds the game, applied but not
    saved; its save fails and it is undone (nothing is announced). The panel is not edited
    to the undone move, and when the move is made again and saved, it is edited to it."""
    panels, session, edits = recorded_panels(monkeypatch)
    built = panels.stamp()
    async with session.lock:
        session.serial = 2  # the move, in memory only
        panels.shown(session, "2", "en-US", click(), 99, ("key", 1), built)
        session.serial = 1  # undone
    assert await settled(panels, edits) == []
    session.serial = 2  # made again, saved, announced
    panels.changed(session)
    assert await settled(panels, edits) == ["move 2"]


async def test_a_panel_opened_during_a_change_that_is_saved_is_edited_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    panels, session, edits = recorded_panels(monkeypatch)
    built = panels.stamp()
    async with session.lock:
        session.serial = 2
        panels.shown(session, "2", "en-US", click(), 99, ("key", 1), built)
    panels.changed(session)  # saved: announced once the lock is released
    assert await settled(panels, edits) == ["move 2"]


@pytest.mark.parametrize("moved", [False, True])
async def test_a_panel_opened_while_a_reader_holds_the_game(
        monkeypatch: pytest.MonkeyPatch, moved: bool) -> None:
    """A reader (another hand shown, a computer player planning) holds the lock: no change
    will be announced after it, so the panel checks the game as saved itself."""
    panels, session, edits = recorded_panels(monkeypatch)
    built = panels.stamp()
    if moved:  # a move saved and announced before the panel was registered
        session.serial = 2
        panels.changed(session)
    async with session.lock:
        panels.shown(session, "2", "en-US", click(), 99, ("key", 1), built)
    assert await settled(panels, edits) == (["move 2"] if moved else [])


async def test_an_answer_in_an_older_message_does_not_make_it_the_panel_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29, bug 4: a click through the old panel was taken while it was the panel,
    and a newer panel (My hand again) was shown before its answer went out. The old
    message does not become the panel again (the newer one would have said the hand moved
    below, both would, after a second click in the newer one): it says the hand moved, and
    what the answer showed goes to the live panel."""
    panels, session, edits = recorded_panels(monkeypatch)
    late = panels.stamp()  # the answer to the click in the old panel, built first
    panels.shown(session, "2", "en-US", click(), 100, ("key", 1), panels.stamp())
    panels.shown(session, "2", "en-US", click(), 99, ("key", 1), late, ("old answer", None))
    live = panels.live(7, "2")
    assert live is not None and live.message_id == 100
    await asyncio.sleep(0.05)
    assert edits == ["Your hand moved to a newer message below."], "built before the live one's"
    newer = panels.stamp()
    panels.shown(session, "2", "en-US", click(), 98, ("key", 1), newer, ("newer answer", None))
    await settled(panels, edits)
    await asyncio.sleep(0.05)
    assert sorted(edits) == sorted(["Your hand moved to a newer message below."] * 2
                                   + ["newer answer"])
    assert panels.live(7, "2") is live and live.written == newer

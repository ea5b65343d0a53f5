"""Live hand panels (``cogs/uno/_panels.py``) follow every saved change, including one
saved while the panel was being opened."""

from __future__ import annotations

import asyncio

import pytest

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
    panels.shown(session, "2", "en-US", click(object()), 99, ("key", 1), built)
    panel = panels.live(7, "2")
    assert panel is not None and panel.task is not None
    await asyncio.wait_for(panel.task, 0.5)
    assert edits == ["move 2"]


async def test_a_panel_opened_on_the_game_as_it_is_is_not_edited(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing changed between building the answer and showing it: no edit follows."""
    panels, session, edits = recorded_panels(monkeypatch)
    panels.shown(session, "2", "en-US", click(object()), 99, ("key", 1), panels.stamp())
    panel = panels.live(7, "2")
    assert panel is not None and panel.task is None
    await asyncio.sleep(0.02)
    assert edits == []

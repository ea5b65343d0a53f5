"""Live hand panels (``cogs/uno/_panels.py``) on their own, for tests of what they keep
and when they edit: a game stand-in, one player's panel shown, and its edits recorded
instead of sent (the requests themselves are tested through the loopback elsewhere)."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from cogs.uno._panels import Panels, Reach

Build = Callable[[Any, str, str, bool], tuple[str, None]]


def click(created: datetime.datetime | None = None) -> Any:
    """What a panel reads of an interaction (the rest of one is irrelevant here)."""
    return SimpleNamespace(created_at=created or discord.utils.utcnow(), message=None)


def recorded_panels(monkeypatch: pytest.MonkeyPatch, build: Build | None = None
                    ) -> tuple[Panels, Any, list[str]]:
    """Panels whose views are ``("key", serial)`` and whose content is "move N" (or
    ``build``'s), a game of channel 7 at serial 1 with no panel shown yet, and the list
    each edit's content is appended to."""
    edits: list[str] = []

    async def edit(reach: Reach, text: str, view: object, picture: object = None) -> None:
        await asyncio.sleep(0)
        edits.append(text)

    monkeypatch.setattr(Reach, "edit", edit)
    panels = Panels(lambda session, p: ("key", session.serial),
                    build or (lambda session, p, locale, closing: (f"move {session.serial}",
                                                                   None)))
    session: Any = SimpleNamespace(channel_id=7, serial=1, lock=asyncio.Lock(),
                                   game=SimpleNamespace(is_over=False))
    return panels, session, edits


def followed_panel(monkeypatch: pytest.MonkeyPatch, pid: str = "2",
                   build: Build | None = None) -> tuple[Panels, Any, list[str]]:
    """``recorded_panels`` with ``pid``'s panel shown at serial 1."""
    panels, session, edits = recorded_panels(monkeypatch, build)
    panels.shown(session, pid, "en-US", click(), 99, ("key", 1), panels.stamp())
    return panels, session, edits

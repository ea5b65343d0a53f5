"""What the bot keeps from one move to the next, per player and per table: as little as
the next move needs. A live hand panel (``cogs/uno/_panels.py``) keeps the newest interaction
that showed it (its token edits the panel), none before it; a V2 table
(``cogs/uno/_table_post.py``) keeps the parts of its quiet form, not a built layout.
Objects kept until the next move outlive the young garbage collections and lengthen the
full ones, which pause the bot."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import gc
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from cogs.uno import _reply
from cogs.uno._panels import Panels
from loopback.server import LoopbackDiscord
from support.panels import click, followed_panel
from support.tables import written_table


def reachable(root: object, limit: int = 5000) -> list[object]:
    """Every object reachable from ``root`` (breadth first, at most ``limit``)."""
    seen: dict[int, object] = {id(root): root}
    todo = [root]
    while todo and len(seen) < limit:
        for ref in gc.get_referents(todo.pop()):
            if id(ref) not in seen and not isinstance(ref, type):
                seen[id(ref)] = ref
                todo.append(ref)
    return list(seen.values())


def test_a_panel_keeps_its_newest_interaction_only() -> None:
    """A panel is edited through the token of the last interaction that showed it
    (``Interaction.edit_original_response``): it keeps that interaction, and lets go of
    the one before once a newer click shows the panel."""
    panels = Panels(lambda session, pid: ("key",), lambda *args: ("", None))
    session: Any = SimpleNamespace(channel_id=7, lock=asyncio.Lock())
    created = discord.utils.utcnow() - datetime.timedelta(seconds=30)
    first = click(created)
    panels.shown(session, "1", "en-US", first, 99, ("key",), 1)

    assert any(obj is first for obj in reachable(panels)), "its token edits the panel"
    panel = panels.live(7, "1")
    assert panel is not None and 29 <= panel.reach.age() <= 40

    # a later click in the same panel: the panel now edits through that one's token
    newer = click(discord.utils.utcnow())
    newer.message = SimpleNamespace(id=99)
    panels.shown(session, "1", "en-US", newer, 99, ("key", 2), 2)
    kept = reachable(panels)
    assert not any(obj is first for obj in kept), "the older interaction is let go"
    assert panels.live(7, "1") is panel and panel.reach.interaction is newer
    assert panel.reach.age() < 5


async def test_a_v2_table_keeps_what_its_quiet_form_is_made_of_not_a_layout() -> None:
    async with LoopbackDiscord() as server:
        channel = server.add_guild("Kept").new_channel("kept")
        post, session, body = await written_table(channel, ["Alice plays R3."])
        assert isinstance(body["view"], discord.ui.LayoutView)
        del body
        kept = reachable(post)
        assert not any(isinstance(obj, discord.ui.Item | discord.ui.LayoutView)
                       for obj in kept), "no layout is kept between moves"

        # closed, the table keeps its text and picture, without its buttons
        closed = await post.closed(501, session)()
        assert closed is not None
        quiet = closed["view"].to_components()
        shown = str(quiet)
        assert "Alice plays R3." in shown and "attachment://table-1.png" in shown
        assert "custom_id" not in shown


async def test_a_panel_keeps_no_finished_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit's task, once done, is let go (a finished task keeps its coroutine and its
    context): the panel keeps nothing of it until its next edit."""
    panels, session, edits = followed_panel(monkeypatch, "1")
    for serial in (2, 3):
        session.serial = serial
        panels.changed(session)
        panel = panels.live(7, "1")
        assert panel is not None and panel.task is not None
        await panel.task
        assert panel.task is None
        assert not any(isinstance(obj, asyncio.Task) for obj in reachable(panels))
    assert edits == ["move 2", "move 3"]


def test_a_messages_writes_are_kept_for_a_while_without_an_object_per_write(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot counts its writes to each message (``_reply``) and keeps that count for
    ``KEEP_WRITES`` seconds after the last write: one entry a message, however many
    writes, and none once its time is over."""
    now = [1000.0]
    monkeypatch.setattr(_reply.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(_reply, "_RECENT", type(_reply._RECENT)())
    first = {m: _reply._writes_of(m) for m in (11, 12, 13)}
    for step in range(300):
        now[0] += 0.01
        assert _reply._writes_of(11 + step % 3) is first[11 + step % 3]
    assert list(_reply._RECENT) == [11, 12, 13]
    now[0] += _reply.KEEP_WRITES - 0.5
    _reply._writes_of(12)  # 11 and 13 were written 9.5 s ago, 12 just now
    assert list(_reply._RECENT) == [11, 13, 12]
    now[0] += 1.0
    _reply._writes_of(12)
    assert list(_reply._RECENT) == [12]


async def test_an_answered_click_lets_go_of_the_message_it_came_from(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """discord.py builds the clicked message (its components and all) for every click; once
    the click is answered the interaction drops it, so a panel that keeps its last
    interaction keeps no message (failing work included)."""
    async def fake_answer(interaction: object, work: object, **_kw: object) -> None:
        await work(None)  # type: ignore[operator]

    async def fails(reply: object) -> None:
        raise RuntimeError("a failing click lets go too")

    monkeypatch.setattr(_reply, "_answer", fake_answer)
    for work in (lambda reply: asyncio.sleep(0), fails):
        clicked = SimpleNamespace(id=5, message=SimpleNamespace(id=99, components=[1, 2]),
                                  guild=None, client=None,
                                  type=discord.InteractionType.component)
        with contextlib.suppress(RuntimeError):
            await _reply.answer(clicked, work)  # type: ignore[arg-type]
        assert clicked.message is None

"""End to end: the tables a restart finds in the channels, and a channel where the bot may
not attach files (R-BOT-RESTART, R-BOT-TABLE, R-BOT-POST).

- A kill -9 in the middle of a turn: after the restart the table posted before it is
  closed (a table without live buttons: a Components V2 message can't be emptied), the bot
  logs no error, Discord refuses nothing, and the game goes on from the new table.
- In a channel without Attach Files the table goes without its picture (its text says
  everything), the host is told so when the game starts, and a restart there still
  announces itself and posts the table.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.users import Member
from support.driver import turn_of
from support.e2e import FAST_ENV, db_of, play_card
from support.games import install, saved_state
from support.tables import abc, end_game, pair

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.bot_env(**FAST_ENV)]

LIVE = {"Draw", "UNO!", "Catch", "Accept +4", "Challenge"}
"""The buttons of a live table (besides My hand)."""


def live(m: Message) -> bool:
    return bool(LIVE & set(m.button_labels()))


def live_tables(ch: Channel) -> list[Message]:
    return [m for m in ch.messages if not m.deleted and live(m)]


def errors_since(log: str, offset: int) -> list[str]:
    return [line for line in log[offset:].splitlines() if re.search(r"\d ERROR ", line)]


async def one_live_table(ch: Channel, table: Message, timeout: float = 10) -> None:  # noqa: ASYNC109
    """Wait until ``table`` is the channel's only message with live table buttons."""
    deadline = time.monotonic() + timeout
    while [m.id for m in live_tables(ch)] != [table.id]:
        assert time.monotonic() < deadline, \
            f"live tables: {live_tables(ch)}, expected only {table!r}"
        await asyncio.sleep(0.05)


async def table_for(ch: Channel, member: Member, after: int = 0) -> Message:
    return await ch.wait_for(lambda m: live(m) and turn_of(m) == member.id, after=after,
                             timeout=10)


async def test_kill_mid_turn_closes_the_table_posted_before(
        loopback: LoopbackTest) -> None:
    db = db_of(loopback)
    ch = loopback.channel
    alice, bob, _carol = abc(ch)
    await install(db, pair(ch))
    await loopback.bot.restart()
    await ch.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    await table_for(ch, alice)
    await alice.click("My hand")
    r = await play_card(alice, "R3")
    assert r.response_type == 7, r.text
    before = await table_for(ch, bob)
    await one_live_table(ch, before)  # the table before it is closed
    saved = saved_state(db, ch)
    assert saved is not None and saved["table_message_id"] == before.id, \
        "the table's id is saved before the old one is closed, not at the next move"

    # kill -9 in the middle of Bob's turn
    await loopback.bot.kill()
    offset = len(loopback.bot.log_text())
    mark = ch.mark()
    await loopback.bot.start()
    await ch.wait_for(lambda m: "goes on" in m.text(), after=mark, timeout=10)
    table = await table_for(ch, bob, after=mark)
    await one_live_table(ch, table)
    old = next(m for m in ch.messages if m.id == before.id)
    assert old.components and "Players" in old.text(), \
        "the closed table is still a table (its text), not an empty message"
    assert not loopback.discord.take_problems(), "Discord refused nothing"
    assert not loopback.discord.take_refused()
    assert errors_since(loopback.bot.log_text(), offset) == []

    # the game goes on from the new table
    mark = ch.mark()
    await bob.click("My hand")
    r = await play_card(bob, "R6")
    assert r.response_type == 7, r.text
    await table_for(ch, alice, after=mark)
    state = saved_state(db, ch)
    assert state is not None and state["game"]["discard"][-2:] == ["R3", "R6"]
    assert errors_since(loopback.bot.log_text(), offset) == []
    r = await end_game(alice)
    assert "ended the game" in r.text, r.text


def pictured(m: Message) -> bool:
    """The message shows (or carries) a picture."""
    return bool(m.attachments or m.files) or any(
        c.get("type") == 12 for c in m.walk_components())


async def test_without_attach_files_the_table_goes_without_its_picture(
        loopback: LoopbackTest) -> None:
    """The host hears once, at /uno new and at Start, that the table will have no picture;
    the table comes without one and works."""
    ch = loopback.channel
    alice, bob, _carol = abc(ch)
    ch.set_bot_permissions(attach_files=False)
    r = await alice.slash("uno new")
    assert r.message is not None and "Join" in r.message.button_labels()
    assert "Attach Files" in r.text, r.text
    await bob.click("Join")
    r = await alice.click("Start")
    assert "The game has started!" in r.text and "Attach Files" in r.text, r.text
    table = await ch.wait_for(live, timeout=10)
    assert not pictured(table), table.components
    assert "Players" in table.text()
    r = await alice.click("My hand")
    assert r.ephemeral and "**Your hand**" in r.text, r.text
    assert not loopback.discord.take_refused(), "the bot tried no upload"
    r = await end_game(alice)
    assert "ended the game" in r.text, r.text


async def test_restart_in_a_channel_without_attach_files(
        loopback: LoopbackTest) -> None:
    """A restart (kill -9) where the bot may not attach files still announces itself and
    posts the table (without its picture); the game goes on."""
    db = db_of(loopback)
    ch = loopback.channel
    alice, bob, _carol = abc(ch)
    ch.set_bot_permissions(attach_files=False)
    await install(db, pair(ch))
    offset = len(loopback.bot.log_text())
    for player, card, other in ((alice, "R3", bob), (bob, "R6", alice)):
        mark = ch.mark()
        await loopback.bot.restart()
        await ch.wait_for(lambda m: "goes on" in m.text(), after=mark, timeout=10)
        table = await table_for(ch, player, after=mark)
        assert not pictured(table), table.components
        await one_live_table(ch, table)
        refused = loopback.discord.take_refused()
        assert refused and {r.detail for r in refused} == {"attach_files"}, refused
        mark = ch.mark()
        await player.click("My hand")
        r = await play_card(player, card)
        assert r.response_type == 7, r.text
        table = await table_for(ch, other, after=mark)
        assert not pictured(table), table.components
        await one_live_table(ch, table)
        assert not loopback.discord.take_refused(), "no upload once a click showed why"
    state = saved_state(db, ch)
    assert state is not None and state["paused"] is None
    assert state["game"]["discard"][-2:] == ["R3", "R6"]
    assert errors_since(loopback.bot.log_text(), offset) == []
    r = await end_game(alice)
    assert "ended the game" in r.text, r.text

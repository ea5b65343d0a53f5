"""End to end through the loopback Discord: games in threads (issue 9, R-BOT-THREADS).

`/uno new thread:True` (or the server default) opens the lobby in a new public thread of the
channel; the game plays there; the bot checks its thread permissions first; a locked or
deleted thread ends its game and tells the channel; a thread archived for inactivity comes
back with the game's next post.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.threads import Thread
from loopback.users import InteractionResult
from support.e2e import saved_game

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(UNO_CPU_DELAY="0.05", UNO_TIME_SCALE="0.05")]


def refused(r: InteractionResult, sentence: str) -> None:
    assert r.ephemeral, f"expected a private answer, got {r!r}"
    assert sentence in r.text, f"expected {sentence!r}, got {r.text!r}"


def opened_thread(t: LoopbackTest, r: InteractionResult) -> Thread:
    """The thread the answer to /uno new points to (a public line in the channel)."""
    assert not r.ephemeral and "opened a game in" in r.text, r
    m = re.search(r"<#(\d+)>", r.text)
    assert m, r.text
    thread = next(th for th in t.channel.threads if th.id == int(m.group(1)))
    assert thread.type == 11 and thread.parent is t.channel  # a public thread of the channel
    return thread


def lobby_in(where: Channel) -> Message:
    return next(m for m in reversed(where.messages) if "Join" in m.button_labels())


def has_buttons(where: Channel, label: str) -> bool:
    return any(label in m.button_labels() for m in where.messages)


async def test_a_game_opens_and_plays_in_its_own_thread(loopback: LoopbackTest) -> None:
    alice, bob, carol = (loopback.member(n) for n in ("alice", "bob", "carol"))
    r = await alice.slash("uno new", thread=True)
    thread = opened_thread(loopback, r)
    assert thread.name == "UNO: Alice's game"
    lobby = lobby_in(thread)
    assert "1. Alice (host)" in lobby.text()
    assert not has_buttons(loopback.channel, "Join"), "the lobby lives in the thread only"

    await bob.at(thread).click("Join", message=lobby)
    await alice.at(thread).click("Start", message=lobby_in(thread))
    table = await thread.wait_for(lambda m: "My hand" in m.button_labels(), timeout=5)
    assert not has_buttons(loopback.channel, "My hand"), "the table lives in the thread only"
    state = saved_game(loopback, thread)
    assert state is not None and state["parent_id"] == loopback.channel.id
    assert state["channel_id"] == thread.id
    hand = await bob.at(thread).click("My hand", message=table)
    assert hand.ephemeral and "Your hand" in hand.text

    # The same channel hosts a second game in another thread, and one in the channel itself.
    second = opened_thread(loopback, await carol.slash("uno new", thread=True))
    assert second is not thread and "1. Carol (host)" in lobby_in(second).text()
    r = await bob.slash("uno new")
    assert r.message is not None and "1. Bob (host)" in r.message.text()
    assert saved_game(loopback, loopback.channel) is not None

    # /uno new inside a thread that already has a game: refused, nothing new opened.
    threads_before = len(loopback.channel.threads)
    refused(await carol.at(thread).slash("uno new", thread=True),
            "A game is already open in this channel")
    assert len(loopback.channel.threads) == threads_before


async def test_missing_thread_permissions_are_named_and_change_nothing(
        loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    loopback.channel.set_bot_permissions(create_public_threads=False)
    r = await alice.slash("uno new", thread=True)
    refused(r, "I can't open a game thread here (missing: Create Public Threads)")
    assert loopback.channel.threads == []
    assert saved_game(loopback, loopback.channel) is None

    loopback.channel.set_bot_permissions(create_public_threads=None,
                                         send_messages_in_threads=False)
    refused(await alice.slash("uno new", thread=True), "missing: Send Messages in Threads")
    assert loopback.channel.threads == []
    # Without the thread, the channel itself still works.
    r = await alice.slash("uno new", thread=False)
    assert r.message is not None and "1. Alice (host)" in r.message.text()


async def test_the_server_default_opens_games_in_threads(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    admin = loopback.member("dana", manage_guild=True)
    refused(await alice.slash("uno settings", threads=True),
            "Only members with Manage Server can change the server's defaults.")
    r = await admin.slash("uno settings", threads=True)
    assert r.ephemeral and "games open in a new thread" in r.text, r.text
    try:
        thread = opened_thread(loopback, await alice.slash("uno new"))
        assert "1. Alice (host)" in lobby_in(thread).text()
        # the option still wins over the default
        r = await admin.slash("uno new", thread=False)
        assert r.message is not None and "1. Dana (host)" in r.message.text()
    finally:
        r = await admin.slash("uno settings", threads=False)
        assert "games open in the channel" in r.text, r.text


async def _started_in_thread(t: LoopbackTest, *, cpu: bool) -> Thread:
    alice, bob = t.member("alice"), t.member("bob")
    thread = opened_thread(t, await alice.slash("uno new", thread=True))
    if cpu:
        await alice.at(thread).click("Add computer player", message=lobby_in(thread))
    else:
        await bob.at(thread).click("Join", message=lobby_in(thread))
    await alice.at(thread).click("Start", message=lobby_in(thread))
    await thread.wait_for(lambda m: "My hand" in m.button_labels(), timeout=5)
    assert saved_game(t, thread) is not None
    return thread


async def test_a_locked_thread_ends_its_game_and_the_channel_is_told(
        loopback: LoopbackTest) -> None:
    thread = await _started_in_thread(loopback, cpu=True)
    thread.lock()
    note = await loopback.channel.wait_for(lambda m: "was locked" in m.text(), timeout=5)
    assert "the game ended; it does not count on the leaderboard" in note.text()
    assert saved_game(loopback, thread) is None
    # A click in the thread from a moderator finds no game any more.
    mod = loopback.member("mod", manage_threads=True)
    refused(await mod.at(thread).slash("uno hand"), "There is no game in this channel")


async def test_a_deleted_thread_ends_its_game_and_the_channel_is_told(
        loopback: LoopbackTest) -> None:
    thread = await _started_in_thread(loopback, cpu=True)
    # once the bot is done writing (the old lobby closed through the paced channel route;
    # a computer player that starts has moved), the deletion reaches it through the
    # gateway (THREAD_DELETE); a write refused meanwhile (404) would find it "gone" first
    requests = loopback.discord.requests
    seen = -1
    while seen != len(requests):
        seen = len(requests)
        await asyncio.sleep(0.3)
    await thread.delete()
    note = await loopback.channel.wait_for(lambda m: "was deleted" in m.text(), timeout=5)
    assert "Alice's game" in note.text()
    assert saved_game(loopback, thread) is None


async def test_an_archived_thread_comes_back_with_the_next_post(loopback: LoopbackTest) -> None:
    """Two people, a 40 s turn timer (2 s at this time scale, so nobody times out three
    times and leaves while the test runs): the timer's move is the game's next post.
    Editing the table in an archived thread is refused (50083), so the table is posted
    anew, which reopens the thread, as on Discord."""
    alice = loopback.member("alice")
    thread = opened_thread(loopback, await alice.slash("uno new", thread=True))
    await alice.at(thread).slash("uno settings", turn_timer=40)
    await loopback.member("bob").at(thread).click("Join", message=lobby_in(thread))
    await alice.at(thread).click("Start", message=lobby_in(thread))
    await thread.wait_for(lambda m: "My hand" in m.button_labels(), timeout=5)
    thread.archive()
    archived_at = len(thread.messages)
    for _ in range(200):  # the timer runs out within 2 s
        if not thread.archived and len(thread.messages) > archived_at:
            break
        await asyncio.sleep(0.05)
    assert not thread.archived, "the game's next post reopens the thread"
    assert any("My hand" in m.button_labels() for m in thread.messages[archived_at:])
    assert saved_game(loopback, thread) is not None
    loopback.discord.refused.clear()  # the refused edit in the archived thread is expected

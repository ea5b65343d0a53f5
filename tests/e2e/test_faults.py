"""End to end: the real bot through the loopback Discord when things go wrong around it.

Missing channel permissions (refused up front, or a game paused mid-way and resumed), a
deleted channel, a database locked by someone else (a write that fails, a write that is
slow), a crash right after a failed save, a shutdown with announcements still queued, a
restart in the middle of a turn, and games saved by the previous release. The bot runs with
UNO_TIME_SCALE=0.3: a 10 s turn lasts 3 s, and so does the restart grace.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cogs.uno.table.session import SESSION_VERSION, Options, Session
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Identity, Message
from loopback.users import Member
from support.dblock import DbLock
from support.driver import turn_of
from support.e2e import FAST_ENV, db_of, play_card
from support.games import install, saved_state, scenario_session
from support.tables import end_game as confirmed_end

SCALE = 0.3
TURN = 10 * SCALE
"""A turn of Options(turn_timer=10), in seconds."""
GRACE = min(30, 10) * SCALE
"""What a player gets at least after a restart (RESTART_GRACE, capped by the turn)."""
NOTHING_CHANGED = "The game couldn't be saved, so nothing changed"
FIXTURES = Path(__file__).resolve().parents[1] / "support"


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, UNO_TIME_SCALE=str(SCALE))]


# ---------------------------------------------------------------------------- helpers
def one_sentence(text: str) -> bool:
    return "\n" not in text and text.endswith(".") and text.count(". ") == 0


def public_text(channel: Channel, after: int = 0) -> str:
    return "\n".join(m.text() for m in channel.messages if m.change_seq > after)


def is_table(m: Message) -> bool:
    return "My hand" in m.button_labels()


async def table_for(channel: Channel, member: Member, after: int = 0,
                    timeout: float = 10) -> Message:  # noqa: ASYNC109
    """The table that tells ``member`` it is their turn (created or edited after ``after``)."""
    return await channel.wait_for(lambda m: is_table(m) and turn_of(m) == member.id,
                                  after=after, timeout=timeout)


def with_time_left(session: Session, seconds: float) -> Session:
    """Saved as if the current player had ``seconds`` of their turn left."""
    session.deadline = time.time() + seconds
    session.deadline_serial = session.serial
    return session


async def restart_with(loopback: LoopbackTest, db: str, *sessions: Session) -> None:
    """Install the sessions as saved games and restart the bot, which resumes them."""
    await install(db, *sessions)
    mark = loopback.channel.mark()
    await loopback.bot.restart()
    await loopback.channel.wait_for(lambda m: "goes on" in m.text(), after=mark, timeout=10)


async def poll(check: Callable[[], Any], timeout: float, what: str,  # noqa: ASYNC109
               step: float = 0.05) -> Any:
    """Wait until ``check()`` is truthy and return it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = check()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        await asyncio.sleep(step)


async def end_game(member: Member) -> None:
    r = await confirmed_end(member)
    assert "ended the game" in r.text, r.text


# ---------------------------------------------------------------------------- 1
async def test_new_and_start_name_missing_permissions(loopback: LoopbackTest) -> None:
    """Handled failure: the bot may not post (or embed) in the channel. /uno new is refused
    privately in one sentence naming Send Messages and nothing is saved; with the
    permission the lobby opens; Start without Embed Links is refused naming it, and the
    lobby stays a lobby."""
    db = db_of(loopback)
    channel = loopback.channel
    alice, bob = loopback.member("alice"), loopback.member("bob")

    channel.set_bot_permissions(send_messages=False)
    r = await alice.slash("uno new")
    assert r.ephemeral and one_sentence(r.text), r.text
    assert "Send Messages" in r.text and "Embed Links" not in r.text, r.text
    assert saved_state(db, channel) is None, "a refused /uno new saves nothing"
    assert not channel.messages

    channel.set_bot_permissions(send_messages=None)
    r = await alice.slash("uno new")
    assert not r.ephemeral and r.message is not None and "Join" in r.message.button_labels()
    state = saved_state(db, channel)
    assert state is not None and state["game"] is None
    await bob.click("Join")

    channel.set_bot_permissions(embed_links=False)
    r = await alice.click("Start")
    assert r.ephemeral and one_sentence(r.text), r.text
    assert "Embed Links" in r.text and "Send Messages" not in r.text, r.text
    state = saved_state(db, channel)
    assert state is not None and state["game"] is None, "a refused Start starts nothing"
    assert [s[0] for s in state["seats"]] == [str(alice.id), str(bob.id)]

    channel.set_bot_permissions(embed_links=None)
    r = await alice.click("Start")
    assert "The game has started!" in r.text, r.text
    await channel.wait_for(is_table, timeout=10)
    state = saved_state(db, channel)
    assert state is not None and state["game"] is not None
    await end_game(alice)


# ---------------------------------------------------------------------------- 2
async def test_lost_send_messages_pauses_until_a_click_resumes(
        loopback: LoopbackTest) -> None:
    """Handled failure: the bot loses Send Messages mid-game while nobody clicks, so its
    next table post (a turn that ran out) gets 403. The game pauses (saved "paused", timers
    stopped: nobody runs out of time over several turn lengths); clicks are answered
    privately with what is missing and change nothing; once the bot may post again a click
    resumes the game, which says so, posts the table, and the turn timer runs again."""
    db = db_of(loopback)
    channel = loopback.channel
    server = loopback.discord
    alice = loopback.member("alice")
    session = scenario_session(
        channel, [alice, "cpu1"], hands={alice: "R3 R4 B7", "cpu1": "R5 G6 G7 B2"},
        discard="R9", draw="B1 B3 B6 B8 G1 G2 G3 G4 Y1 Y2 Y3 Y4",
        turn=alice, options=Options(turn_timer=10))
    # Alice's time runs out a few seconds after the restart: the bot writes by itself.
    await restart_with(loopback, db, with_time_left(session, 1))
    await table_for(channel, alice)

    channel.set_bot_permissions(send_messages=False)
    for i in range(9):  # chat buries the table: its next update is a post, not an edit
        loopback.member("bob").say(f"chat {i}")
    paused = await poll(lambda: (s := saved_state(db, channel)) and s["paused"] and s,
                        GRACE + 10, "the game pauses after the 403")
    assert server.take_refused(code=50013), "the bot tried to post and was refused"
    assert paused["timeouts"].get(str(alice.id), 0) == 1, "alice's time ran out, once"
    await asyncio.sleep(0.5)  # (a computer move already under way is saved)
    paused = saved_state(db, channel)
    assert paused is not None and paused["paused"]

    # Several turn lengths pass: no timer fires, nothing is saved.
    await asyncio.sleep(3 * TURN + 1)
    assert saved_state(db, channel) == paused, "a paused game does not move"

    # GameCog say what is missing and change nothing.
    r = await alice.click("My hand")
    assert r.ephemeral and one_sentence(r.text) and "Send Messages" in r.text, r.text
    assert "**Your hand**" not in r.text
    r = await alice.slash("uno draw")
    assert r.ephemeral and one_sentence(r.text) and "Send Messages" in r.text, r.text
    assert saved_state(db, channel) == paused
    server.take_refused(code=50013)

    # The permission comes back: the next click resumes the game with a fresh timer.
    channel.set_bot_permissions(send_messages=None)
    mark = channel.mark()
    r = await alice.click("My hand")
    assert r.ephemeral and "**Your hand**" in r.text, r.text
    await channel.wait_for(lambda m: "I can post here again: the game goes on" in m.text(),
                           after=mark, timeout=10)
    await channel.wait_for(is_table, after=mark, timeout=10)
    state = saved_state(db, channel)
    assert state is not None and state["paused"] is None
    timed_out = await channel.wait_for(lambda m: "ran out of time" in m.text(), after=mark,
                                       timeout=TURN + 8)
    assert "alice ran out of time" in timed_out.text(), timed_out.text()
    await end_game(alice)


# ---------------------------------------------------------------------------- 2b
async def test_a_click_without_send_messages_pauses_at_once(loopback: LoopbackTest) -> None:
    """The bot lacks Send Messages and the first click says so (its app_permissions): the
    game pauses then, the card not played and the click answered with what is missing,
    not when a table write meets the 403 seconds later (issue 29: the turn timer had fired
    by then). Once the bot may post again, the player has a full turn."""
    db = db_of(loopback)
    channel = loopback.channel
    server = loopback.discord
    alice = loopback.member("alice")
    session = scenario_session(
        channel, [alice, "cpu1"], hands={alice: "R3 R4 B7", "cpu1": "R5 G6 G7 B2"},
        discard="R9", draw="B1 B3 B6 B8 G1 G2 G3 G4 Y1 Y2 Y3 Y4",
        turn=alice, options=Options(turn_timer=10))
    await restart_with(loopback, db, with_time_left(session, 120))
    await table_for(channel, alice)
    before = saved_state(db, channel)
    assert before is not None and before["paused"] is None

    channel.set_bot_permissions(send_messages=False)
    r = await alice.slash("uno play", card="R3")
    assert r.ephemeral and one_sentence(r.text) and "Send Messages" in r.text, r.text
    paused = saved_state(db, channel)
    assert paused is not None and paused["paused"] == "permissions", "paused at once"
    assert paused["game"] == before["game"], "nothing was played"
    await asyncio.sleep(TURN + 1)
    assert saved_state(db, channel) == paused, "no timer, no computer player"
    assert not server.take_refused(code=50013), "the bot did not try to post"

    channel.set_bot_permissions(send_messages=None)
    mark = channel.mark()
    loop = asyncio.get_running_loop()
    resumed = loop.time()
    r = await alice.click("My hand")
    assert r.ephemeral and "**Your hand** (3 cards)" in r.text, r.text
    await channel.wait_for(lambda m: "I can post here again: the game goes on" in m.text(),
                           after=mark, timeout=10)
    timed_out = await channel.wait_for(lambda m: "ran out of time" in m.text(), after=mark,
                                       timeout=TURN + 8)
    assert loop.time() - resumed >= 0.9 * TURN, "a full turn after the pause"
    assert "alice ran out of time" in timed_out.text(), timed_out.text()
    await end_game(alice)


# ---------------------------------------------------------------------------- 3
async def test_deleted_channel_ends_the_game(loopback: LoopbackTest) -> None:
    """Handled failure: the channel is deleted mid-game (404 Unknown Channel at the bot's
    next post). The game ends: its saved game leaves the database, with no traceback."""
    db = db_of(loopback)
    channel = loopback.channel
    alice = loopback.member("alice")
    session = scenario_session(
        channel, [alice, "cpu1"], hands={alice: "R3 R4 B7", "cpu1": "R5 G6 G7 B2"},
        discard="R9", draw="B1 B3 B6 B8 G1 G2 G3 G4 Y1 Y2 Y3 Y4",
        turn=alice, options=Options(turn_timer=10))
    # Alice's time runs out a few seconds after the restart: the bot posts by itself.
    await restart_with(loopback, db, with_time_left(session, 4))
    assert saved_state(db, channel) is not None
    loopback.bot.take_tracebacks()

    await channel.delete()
    await poll(lambda: loopback.discord.take_refused(code=10003), 20,
               "the bot's next post meets Unknown Channel")
    # Soon after, not by way of three timeouts in a row.
    await poll(lambda: saved_state(db, channel) is None, 3, "the saved game of a deleted channel "
               "is deleted after the bot's next post")
    assert f"Channel {channel.id} is gone: its game ends" in loopback.bot.log_text()
    await asyncio.sleep(TURN + 1)  # no timer or computer player of that game runs on
    assert loopback.bot.take_tracebacks() == []
    loopback.discord.take_refused(code=10003)
    assert saved_state(db, channel) is None

    # The bot still serves other channels.
    other = loopback.guild.new_channel()
    carol = other.member("carol")
    r = await carol.slash("uno new")
    assert r.message is not None and "Join" in r.message.button_labels()
    await end_game(carol)


# ---------------------------------------------------------------------------- 4
def _two_humans(loopback: LoopbackTest) -> tuple[Member, Member, Session]:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(
        loopback.channel, [alice, bob], hands={alice: "B3 B4 G5", bob: "R5 G6 G7"},
        discard="R9", draw="G1 G2 G3 G4 B1 B2 B6 B8 Y1 Y2 Y3 Y4",
        turn=alice, options=Options(turn_timer=10))
    return alice, bob, with_time_left(session, 120)


async def test_crash_after_a_failed_save_resumes_at_the_saved_state(
        loopback: LoopbackTest) -> None:
    """Handled failure: the database is locked longer than the bot's busy timeout while a
    player moves, so the save fails. The interaction is deferred, then answered once that
    nothing changed; the channel never hears of the move; after a kill -9 and a restart the
    game is exactly where it was saved before the move."""
    db = db_of(loopback)
    channel = loopback.channel
    server = loopback.discord
    alice, _bob, session = _two_humans(loopback)
    await restart_with(loopback, db, session)
    await table_for(channel, alice)
    before = saved_state(db, channel)
    assert before is not None

    mark = channel.mark()
    lock = DbLock(db)
    try:
        r = await alice.slash("uno draw")
        assert r.response_type == 5, f"the slow move is deferred first: {r!r}"
        answer = await r.wait_done(timeout=15)
        assert answer.ephemeral and NOTHING_CHANGED in answer.text(), answer.text()
        assert r.followups == [], "one answer, no second reply"
        assert server.take_problems() == [], "no late acknowledgement, no double answer"
        await asyncio.sleep(1.5)  # what the outbox would have gathered by now
        assert "draws" not in public_text(channel, mark), "the failed move is not announced"
        assert not [m for m in channel.messages if m.change_seq > mark and is_table(m)]
        await loopback.bot.kill()
    finally:
        lock.release()
    assert saved_state(db, channel) == before

    mark = channel.mark()
    await loopback.bot.start()
    await channel.wait_for(lambda m: "goes on" in m.text(), after=mark, timeout=10)
    after = saved_state(db, channel)
    assert after is not None
    assert after["game"] == before["game"] and after["serial"] == before["serial"], \
        "the game resumes exactly at the state saved before the move"
    assert "draws" not in public_text(channel, mark)
    r = await alice.slash("uno draw")
    assert r.text.startswith("You drew"), r.text
    await end_game(alice)


# ---------------------------------------------------------------------------- 5
async def test_slow_save_is_acknowledged_then_answered_once(
        loopback: LoopbackTest) -> None:
    """Handled failure: a slow database write (locked 2.5 s, within the busy timeout) while
    a player moves. Discord gets its acknowledgement in time (deferred), the player then
    gets their hand once, and the move is saved and announced."""
    db = db_of(loopback)
    channel = loopback.channel
    server = loopback.discord
    alice, bob, session = _two_humans(loopback)
    await restart_with(loopback, db, session)
    await table_for(channel, alice)

    mark = channel.mark()
    loop = asyncio.get_running_loop()
    lock = DbLock(db, "IMMEDIATE")
    started = loop.time()
    release = loop.call_later(2.5, lock.release)
    try:
        r = await alice.slash("uno draw")
        assert r.response_type == 5, f"acknowledged before the slow write ends: {r!r}"
        answer = await r.wait_done(timeout=10)
    finally:
        release.cancel()
        lock.release()
    assert loop.time() - started >= 2.4, "the write waited for the lock"
    text = answer.text()
    assert answer.ephemeral and text.startswith("You drew") and "**Your hand** (4 cards)" in \
        text, text
    assert r.followups == [] and server.take_problems() == [], "answered once, in time"
    state = saved_state(db, channel)
    assert state is not None and len(state["game"]["hands"][str(alice.id)]) == 4
    await channel.wait_for(lambda m: "alice draws a card." in m.text(), after=mark, timeout=10)
    await table_for(channel, bob, mark)
    await end_game(alice)


# ---------------------------------------------------------------------------- 6
async def test_shutdown_flushes_the_winning_announcement(
        loopback: LoopbackTest) -> None:
    """Handled failure: SIGTERM right after the winning move, while its announcement is
    still queued. The bot posts it before it exits: "won the game" reaches the channel."""
    db = db_of(loopback)
    channel = loopback.channel
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(
        channel, [alice, bob], hands={alice: "R3", bob: "G5 G6 G7"},
        discard="R9", draw="G1 G2 G3 G4 B1 B2 B6 B8", turn=alice, scores={alice: 90},
        options=Options(target=100, turn_timer=10))
    await restart_with(loopback, db, with_time_left(session, 120))
    await table_for(channel, alice)
    await alice.click("My hand")
    mark = channel.mark()
    r = await play_card(alice, "R3")
    code = await loopback.bot.stop()
    assert r.response_type == 7, r
    assert code == 0, loopback.bot.log_tail()
    assert "alice won the game" in public_text(channel, mark).replace("*", ""), \
        public_text(channel, mark)
    assert "still had announcements at shutdown" not in loopback.bot.log_text()
    assert saved_state(db, channel) is None, "the finished game is recorded, not saved"
    await loopback.bot.start()
    board = (await bob.slash("uno leaderboard")).text
    assert f"<@{alice.id}>: 1 win in 1 game" in board, board


# ---------------------------------------------------------------------------- 7
async def test_restart_keeps_the_time_left(loopback: LoopbackTest) -> None:
    """Handled failure: an outage (5 s) in the middle of a turn. After the restart the
    player has the time that was left when the bot stopped (8 s of the turn: the outage
    does not count), and never less than the grace (a player with 0.5 s left gets 3 s);
    both do time out eventually."""
    db = db_of(loopback)
    ch_a = loopback.channel
    ch_b = loopback.guild.new_channel()
    alice, bob = ch_a.member("alice"), ch_a.member("bob")
    carol, dan = ch_b.member("carol"), ch_b.member("dan")
    opts = Options(turn_timer=10)
    a = scenario_session(ch_a, [alice, bob], hands={alice: "B3 B4 G5", bob: "R5 G6 G7"},
                         discard="R9", draw="G1 G2 G3 G4 B1 B2 B6 B8", turn=alice,
                         options=opts)
    b = scenario_session(ch_b, [carol, dan], hands={carol: "B3 B4 G5", dan: "R5 G6 G7"},
                         discard="R9", draw="G1 G2 G3 G4 B1 B2 B6 B8", turn=carol,
                         options=Options(turn_timer=10))
    await loopback.bot.kill()
    await install(db, with_time_left(a, 8), with_time_left(b, 0.5))
    saved = saved_state(db, ch_a)
    assert saved is not None and 7.5 <= saved["remaining"] <= 8
    await asyncio.sleep(5)  # the outage

    loop = asyncio.get_running_loop()
    t0 = loop.time()
    seen: dict[int, float] = {}

    async def watch() -> None:
        while len(seen) < 2:
            for ch in (ch_a, ch_b):
                if ch.id not in seen and "ran out of time" in public_text(ch):
                    seen[ch.id] = loop.time() - t0
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    try:
        await loopback.bot.start()
        await asyncio.wait_for(asyncio.shield(watcher), 25)
    finally:
        watcher.cancel()
    assert 7.5 <= seen[ch_a.id] <= 8 + 10, f"alice had 8 s left and timed out after " \
                                          f"{seen[ch_a.id]:.1f} s"
    assert GRACE <= seen[ch_b.id] <= GRACE + 10, f"carol had the {GRACE} s grace and timed " \
                                                 f"out after {seen[ch_b.id]:.1f} s"
    assert "alice ran out of time" in public_text(ch_a)
    assert "carol ran out of time" in public_text(ch_b)
    state = saved_state(db, ch_a)
    assert state is not None and state["timeouts"][str(alice.id)] == 1
    await end_game(alice)
    await end_game(carol)


# ---------------------------------------------------------------------------- 8
def v1_member(loopback: LoopbackTest, channel: Channel, uid: int, name: str) -> Member:
    """The member with the user id the previous release saved (ids are kept as saved)."""
    guild = loopback.guild
    if uid not in guild.members_by_id:
        ident = Identity(uid, name)
        guild.identities[name] = ident
        guild.members_by_id[uid] = ident
    return channel.member(name)


async def test_previous_release_saves_are_restored_and_playable(
        loopback: LoopbackTest) -> None:
    """Handled failure: an upgrade over games saved by the previous release (format
    version 1). The lobby and the running game come back: someone joins the lobby and its
    host starts it, and the players of the running game see their hands and play on."""
    db = db_of(loopback)
    saved = json.loads((FIXTURES / "saved_sessions_v1.json").read_text())
    lobby_ch = loopback.channel
    game_ch = loopback.guild.new_channel()
    rows = []
    for key, channel in (("lobby", lobby_ch), ("game", game_ch)):
        record = dict(saved[key])
        assert record["version"] == 1
        assert channel.guild is not None
        record["channel_id"], record["guild_id"] = channel.id, channel.guild.id
        rows.append((channel.id, channel.guild.id, record["game_id"], json.dumps(record),
                     int(time.time())))
    await loopback.bot.kill()
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.executemany("INSERT OR REPLACE INTO saved_games (channel_id, guild_id, game_id, "
                         "state, updated_at) VALUES (?, ?, ?, ?, ?)", rows)
    finally:
        conn.close()
    mark = game_ch.mark()
    await loopback.bot.start()

    # The running game: the computer player had the turn; it moves and the table follows.
    table = await game_ch.wait_for(lambda m: is_table(m) and turn_of(m) is not None,
                                   after=mark, timeout=15)
    assert "goes on" in public_text(game_ch, mark)
    state = saved_state(db, game_ch)
    assert state is not None and state["version"] == SESSION_VERSION
    assert state["game_id"] == "00ff00ff00ff"
    hand_111 = state["game"]["hands"]["111"]
    g_alice = v1_member(loopback, game_ch, 111, "v1alice")
    g_bob = v1_member(loopback, game_ch, 222, "v1bob")
    r = await g_alice.click("My hand", message=table)
    assert r.ephemeral and f"**Your hand** ({len(hand_111)} cards)" in r.text, r.text
    first = {111: g_alice, 222: g_bob}[turn_of(table) or 0]
    r = await first.slash("uno draw")
    # (shown in alice's live panel when it is her turn: the command's answer says so)
    assert r.text.startswith("You drew") or "your hand panel above" in r.text, r.text
    after = saved_state(db, game_ch)
    assert after is not None and after["serial"] > state["serial"]
    await end_game(g_alice)

    # The lobby: a new player joins, the saved host starts the game.
    l_alice = v1_member(loopback, lobby_ch, 111, "v1alice")
    carol = lobby_ch.member("carol")
    r = await carol.slash("uno join")
    assert "joined the game" in r.text, r.text
    state = saved_state(db, lobby_ch)
    assert state is not None and state["version"] == SESSION_VERSION
    assert [s[0] for s in state["seats"]] == ["111", "222", "cpu1", str(carol.id)]
    mark = lobby_ch.mark()
    r = await l_alice.slash("uno start")
    assert "The game has started!" in r.text, r.text
    await lobby_ch.wait_for(is_table, after=mark, timeout=10)
    r = await carol.click("My hand")
    assert r.ephemeral and "**Your hand** (7 cards)" in r.text, r.text
    await end_game(l_alice)


# ---------------------------------------------------------------------------- review
async def test_a_slow_public_command_is_refused_privately(
        loopback: LoopbackTest) -> None:
    """Handled failure: /uno start (a public answer) is deferred because the database is
    locked, then its save fails. The refusal is private: the channel's "thinking..." is
    removed and only Alice sees that nothing changed."""
    db = db_of(loopback)
    channel = loopback.channel
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await alice.slash("uno new")
    await bob.click("Join")
    mark = channel.mark()
    lock = DbLock(db)
    try:
        r = await alice.slash("uno start")
        assert r.response_type == 5, f"deferred first: {r!r}"
        deferred = r.message
        assert deferred is not None and not deferred.ephemeral
        for _ in range(150):
            if r.followups:
                break
            await asyncio.sleep(0.1)
    finally:
        lock.release()
    refusal = r.followups[0]
    assert refusal.ephemeral and NOTHING_CHANGED in refusal.text(), refusal.text()
    assert refusal.ephemeral_for == alice.id
    assert deferred.deleted, "the public 'thinking...' is removed"
    assert not [m for m in channel.messages if m.change_seq > mark and not m.ephemeral
                and not m.deleted], "nothing public remains"
    assert loopback.discord.take_problems() == []
    state = saved_state(db, channel)
    assert state is not None and state["game"] is None, "still a lobby"
    await end_game(alice)

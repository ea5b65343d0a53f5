"""End to end: the bot survives crashes, gateway drops, simultaneous clicks, and keeps to
Discord's pace (5 channel writes per 5 seconds) with the real timings (UNO_TIME_SCALE=1)."""

from __future__ import annotations

import asyncio
import random

import pytest

from cogs.uno.table.session import Options
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.users import Member
from support.driver import Human, PrivacyWatch, Stats, play_until_won, turn_of
from support.e2e import FAST_ENV, card_buttons, db_of, play_card
from support.games import install, saved_state, scenario_session
from support.tables import end_game

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


def public_text(channel: Channel, after: int = 0) -> str:
    return "\n".join(m.text() for m in channel.messages if m.change_seq > after)


async def table_for(channel: Channel, member: Member, after: int) -> Message:
    """The table that tells ``member`` it is their turn (posted after ``after``)."""
    return await channel.wait_for(
        lambda m: "My hand" in m.button_labels() and turn_of(m) == member.id,
        after=after, timeout=10)


async def leaderboard(member: Member) -> str:
    r = await member.slash("uno leaderboard")
    return r.text


def one_sentence(text: str) -> bool:
    return "\n" not in text and text.endswith(".") and text.count(". ") == 0


async def test_restart_mid_game(loopback: LoopbackTest) -> None:
    """SIGKILL mid-game: the game goes on from the last move, a menu opened before the crash
    still works, and the finished game counts once, also after another restart."""
    db = db_of(loopback)
    channel = loopback.channel
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(
        channel, [alice, bob, "cpu1"],
        hands={alice: "R3 R4", bob: "R5 G6 G7", "cpu1": "Y1 Y2 Y3"},
        discard="R9", draw="B1 B2 B6 B7 B8 B9 G1 G2 G3 G4 Y6 Y7", turn=alice,
        scores={alice: 90}, options=Options(target=100))
    await install(db, session)
    await loopback.bot.restart()
    await channel.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    await table_for(channel, alice, 0)

    await alice.click("My hand")
    r = await play_card(alice, "R3|u")
    assert r.response_type == 7, r.text
    mark = channel.mark()
    await table_for(channel, bob, mark - 1)
    menu = (await bob.click("My hand")).message
    assert menu is not None and card_buttons(menu)
    before = saved_state(db, channel)
    assert before is not None and before["game"]["hands"][str(alice.id)] == ["R4"]
    assert str(alice.id) in before["game"]["called"]

    await loopback.bot.kill()
    assert not loopback.bot.running
    mark = channel.mark()
    await loopback.bot.start()
    await channel.wait_for(lambda m: "goes on" in m.text(), after=mark, timeout=10)
    after = saved_state(db, channel)
    assert after is not None
    assert after["game"] == before["game"] and after["serial"] == before["serial"], \
        "the game resumes exactly at the last saved move"

    # Bob's menu was opened before the crash; its select still plays.
    r = await play_card(bob, "R5", message=menu)
    assert r.response_type == 7 and "**Your hand** (2 cards)" in r.text, r.text
    state = saved_state(db, channel)
    assert state is not None and state["game"]["discard"][-1] == "R5"
    assert state["game"]["hands"][str(bob.id)] == ["G6", "G7"]

    # The computer player draws; Alice goes out and wins the game.
    mark = channel.mark()
    await table_for(channel, alice, mark)
    await alice.click("My hand")
    await play_card(alice, "R4")
    won = await channel.wait_for(lambda m: "won the game" in m.text(), timeout=10)
    assert "alice won the game" in won.text().replace("*", "")
    assert saved_state(db, channel) is None
    board = await leaderboard(alice)
    assert f"<@{alice.id}>: 1 win in 1 game" in board, board
    assert f"<@{bob.id}>: 0 wins in 1 game" in board, board

    mark = channel.mark()
    await loopback.bot.restart()
    board2 = await leaderboard(bob)
    assert board2 == board, "the game is counted once, also after another restart"
    assert "goes on" not in public_text(channel, mark), "a finished game does not come back"


async def test_gateway_drop_resumes(loopback: LoopbackTest) -> None:
    db = db_of(loopback)
    channel = loopback.channel
    server = loopback.discord
    carol, dan = loopback.member("carol"), loopback.member("dan")
    session = scenario_session(
        channel, [carol, dan], hands={carol: "R3 R4 B7", dan: "R5 G6 G7 B2"},
        discard="R9", draw="B1 B3 B6 B8 G1 G2 G3 G4", turn=carol)
    await install(db, session)
    await loopback.bot.restart()
    await table_for(channel, carol, 0)
    await carol.click("My hand")
    await play_card(carol, "R3")

    identifies, resumes = server.identify_count, server.resume_count
    mark = channel.mark()
    await server.drop_gateway()
    assert server.resume_count == resumes + 1 and server.identify_count == identifies, \
        "the bot resumes its session instead of identifying again"
    await table_for(channel, dan, mark - 1)
    await dan.click("My hand")
    r = await play_card(dan, "R5")
    assert r.response_type == 7
    await table_for(channel, carol, mark)
    state = saved_state(db, channel)
    assert state is not None and state["game"]["discard"][-2:] == ["R3", "R5"]

    # A click while the connection is down reaches the bot once it has resumed.
    await server.drop_gateway(wait_resume=None)
    r = await carol.click("My hand", timeout=10)
    assert r.ephemeral and "**Your hand** (2 cards)" in r.text, r.text
    assert server.resume_count == resumes + 2


async def test_simultaneous_clicks(loopback: LoopbackTest) -> None:
    db = db_of(loopback)
    channel = loopback.channel
    erin, finn, gina = (loopback.member(n) for n in ("erin", "finn", "gina"))
    session = scenario_session(
        channel, [erin, finn, gina],
        hands={erin: "R3 R4", finn: "G5 G6 G7", gina: "B1 B2 B3"},
        discard="R9", draw="Y1 Y2 Y3 Y4 Y6 Y7 Y8 Y9 B9 B8", turn=erin)
    await install(db, session)
    await loopback.bot.restart()
    await table_for(channel, erin, 0)
    await erin.click("My hand")
    await play_card(erin, "R3")  # and forgets to call UNO
    await table_for(channel, finn, 0)

    # Two players press Catch at the same moment: one catch applies.
    mark = channel.mark()
    results = await asyncio.gather(finn.click("Catch"), gina.click("Catch"))
    texts = sorted(r.text for r in results)
    answers = [t for t in texts if t.startswith("Caught!")]
    refusals = [t for t in texts if not t.startswith("Caught!")]
    assert len(answers) == 1 and len(refusals) == 1, texts
    assert one_sentence(refusals[0]) and "caught" in refusals[0].lower(), refusals[0]
    state = saved_state(db, channel)
    assert state is not None and len(state["game"]["hands"][str(erin.id)]) == 3
    await table_for(channel, finn, mark)
    assert public_text(channel, mark).count("caught erin") == 1

    # The same player double-clicks Draw in their panel: one draw; the other click is
    # answered in the panel itself (out of date), not by a new message.
    panel = (await finn.click("My hand")).message
    assert panel is not None
    messages = len(finn.ephemerals())
    mark = channel.mark()
    results = await asyncio.gather(finn.click("Draw", message=panel),
                                   finn.click("Draw", message=panel))
    # (both answers edit the one panel: each result reads it as it is now)
    assert all(r.response_type == 7 and r.message is panel for r in results), results
    assert len(finn.ephemerals()) == messages
    state = saved_state(db, channel)
    assert state is not None and len(state["game"]["hands"][str(finn.id)]) == 4
    await channel.wait_for(lambda m: "My hand" in m.button_labels(), after=mark, timeout=10)
    assert public_text(channel, mark).count("finn draws a card.") == 1


async def test_pace_of_a_busy_game(loopback: LoopbackTest) -> None:
    """One person and three fast computer players: the channel never gets more than five
    writes (posts and edits) in any five seconds."""
    channel = loopback.channel
    hana = loopback.member("hana")
    await hana.slash("uno new")
    for _ in range(3):
        await hana.click("Add computer player")
    await hana.click("Start")
    rng = random.Random(5)
    stats = Stats()
    human = Human(hana, rng, stats, PrivacyWatch(db_of(loopback), channel))
    loop = asyncio.get_running_loop()
    started = loop.time()
    await play_until_won(channel, [human], rng, max_tables=12, unfinished_ok=True)
    elapsed = loop.time() - started
    assert elapsed > 5, elapsed
    assert stats.counts["play"] + stats.counts["draw"] >= 4, stats.counts
    await end_game(hana)
    assert channel.max_writes_per_5s <= 5, (
        f"{channel.max_writes_per_5s} writes within 5 s in #{channel.name}")

"""End to end through the loopback Discord: the multi-table tournament (issue 9; sheet 004,
"Multi-Table Tournaments"; RULES.md R-BOT-TOURNAMENT).

A shortened tournament (each two players partner once: 7 hands) of one person and seven
computer players plays at two tables, each in its own thread, the standings kept current in
the channel; the bot is killed (SIGKILL) mid-tournament and resumes exactly; the result is
counted once on the leaderboard. The person's turns are played by the turn timer (10 s,
scaled down), which in a tournament never makes anyone leave.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Message
from support.e2e import db_of, saved_game
from support.games import rows, saved_state
from support.tables import end_game, refused

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(UNO_CPU_DELAY="0.02", UNO_TIME_SCALE="0.02")]


def signup(t: LoopbackTest) -> Message:
    return next(m for m in reversed(t.channel.messages) if "Join" in m.button_labels())


async def wait_until(check: Any, seconds: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await check():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def test_a_shortened_tournament_in_two_threads_survives_a_kill(
        loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    r = await alice.slash("uno tournament", hands_per_pairing=1)
    assert not r.ephemeral and "tournament (8 players, two tables)" in str(r.message.payload()) \
        if r.message else False
    await alice.slash("uno settings", turn_timer=10)
    for _ in range(6):
        await alice.click("Add computer player", message=signup(loopback))
    refused(await alice.click("Start", message=signup(loopback)),
            "A tournament needs 8 players (people or computer players), not 7.")
    assert loopback.channel.threads == [], "no thread is opened for a refused start"
    refused(await bob.click("Start", message=signup(loopback)),
            "Only the host or a member with Manage Server can do that.")
    await alice.click("Add computer player", message=signup(loopback))
    await alice.click("Start", message=signup(loopback))

    tables = loopback.channel.threads
    assert [t.name for t in tables] == ["UNO tournament: table 1", "UNO tournament: table 2"]
    for thread in tables:
        table = await thread.wait_for(lambda m: "My hand" in m.button_labels(), timeout=5)
        assert "Tournament round 1 of 7" in "\n".join(m.text() for m in thread.messages)
        assert table is not None
    first = saved_game(loopback)
    assert first is not None and first["match"]["kind"] == "tournament"
    assert len(first["match"]["schedule"]) == 7 and first["tables"] == [t.id for t in tables]
    # Nobody leaves a tournament, and the hands are played in the threads.
    refused(await alice.slash("uno leave"), "Nobody leaves a tournament")
    refused(await alice.slash("uno hand"), "The tournament plays in its threads")

    # Two rounds recorded, then SIGKILL: the tournament resumes exactly where it was.
    async def rounds_done(n: int) -> bool:
        s = saved_game(loopback)
        return s is not None and len(s["match"]["results"]) >= 2 * n
    await wait_until(lambda: rounds_done(2), 60, "two rounds")
    await loopback.bot.kill()
    before = saved_game(loopback)
    assert before is not None
    table_states = [saved_state(db_of(loopback), t) for t in tables]
    await loopback.bot.start()
    after_restart = saved_game(loopback)
    # nothing recorded before the kill is lost (the tables play on at once, so more may be)
    assert after_restart is not None
    done = before["match"]["results"]
    assert after_restart["match"]["results"][:len(done)] == done
    assert all(s is not None for s in table_states)

    # ... and plays to its end: the standings message says who won, once on the leaderboard.
    async def over() -> bool:
        return saved_game(loopback) is None
    try:
        await wait_until(over, 120, "the end of the tournament")
    except AssertionError:
        s = saved_game(loopback)
        ts = [saved_state(db_of(loopback), t) for t in tables]
        raise AssertionError(json.dumps({
            "results": s and s["match"]["results"],
            "tables": [t and {"over": t["game"].get("over"), "pending": t["game"].get("pending"),
                              "hand_round": t["hand_round"], "turn": t["game"].get("turn"),
                              "serial": t["serial"]} for t in ts],
            "tail": [[m.text()[-300:] for m in th.messages[-3:]] for th in tables],
            "tracebacks": loopback.bot.take_tracebacks()[:2]}, indent=1)) from None
    final = await loopback.channel.wait_for(lambda m: "won the tournament" in m.text(),
                                            timeout=10)
    # the standings message (the sign-up, edited) shows the final standings
    await loopback.channel.wait_for(
        lambda m: "UNO tournament: final standings" in json.dumps(m.payload()), timeout=5)
    assert len([m for m in loopback.channel.messages
                if m.embeds and "UNO tournament" in json.dumps(m.embeds)]) == 1, \
        "one standings message, edited"
    result = rows(db_of(loopback), "SELECT game_id, kind, rounds FROM game_results "
                  "WHERE channel_id = ?", loopback.channel.id)
    assert len(result) == 1 and result[0][1:] == ("tournament", 14)
    played = rows(db_of(loopback), "SELECT tournaments_played, tournament_wins, games_played "
                  "FROM player_stats WHERE user_id = ?", alice.id)
    won = "Alice" in final.text()
    assert played == [(1, int(won), 1)]
    # Every pair partnered once: the hands' logs name their teams.
    headers = [json.loads(e) for (e,) in rows(
        db_of(loopback), "SELECT entry FROM game_log WHERE seq = 0 AND channel_id IN (?, ?)",
        *[t.id for t in tables])]
    assert len(headers) == 14
    pairs = [frozenset(team) for h in headers for team in h["teams"]]
    assert len(pairs) == 28 and len(set(pairs)) == 28, "each two players partner exactly once"
    for thread in tables:
        await thread.wait_for(lambda m: "The tournament is over" in m.text(), timeout=5)
    assert saved_state(db_of(loopback), tables[0]) is None


async def test_the_host_ends_a_tournament_from_its_channel(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await alice.slash("uno tournament", hands_per_pairing=1)
    await alice.slash("uno settings", turn_timer=600)
    await bob.click("Join", message=signup(loopback))
    for _ in range(6):
        await alice.click("Add computer player", message=signup(loopback))
    await alice.click("Start", message=signup(loopback))
    tables = loopback.channel.threads
    assert len(tables) == 2 and saved_game(loopback) is not None
    refused(await bob.slash("uno end"), "Only the host or a member with Manage Server")
    refused(await bob.at(tables[0]).slash("uno end"), "A tournament ends from its channel")
    refused(await bob.at(tables[1]).slash("uno leave"), "Nobody leaves a tournament")
    assert saved_game(loopback) is not None, "refusals change nothing"
    r = await end_game(alice)
    assert not r.ephemeral and "ended the game" in r.text
    for thread in tables:
        await thread.wait_for(lambda m: "ended the tournament" in m.text(), timeout=5)
        assert saved_state(db_of(loopback), thread) is None
    assert saved_game(loopback) is None
    assert rows(db_of(loopback), "SELECT COUNT(*) FROM game_results WHERE channel_id = ?",
                loopback.channel.id) == [(0,)], "an ended tournament does not count"

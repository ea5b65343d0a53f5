"""End to end through the loopback Discord: partner play and the rotating partners match
(issue 9; sheet 004, "Playing with Partners"; RULES.md section 19).

Teams are chosen in the lobby (or dealt at the start), shown on the table with their totals,
and a partner game and a rotating partners match are played to their end through the UI,
then counted once on the leaderboard.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Message
from support.driver import Human, PrivacyWatch, Stats, play_until_won
from support.e2e import db_of, lobby_saved, saved_game
from support.games import rows
from support.tables import refused

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(UNO_CPU_DELAY="0.05", UNO_TIME_SCALE="0.05")]


def lobby(t: LoopbackTest) -> Message:
    return next(m for m in reversed(t.channel.messages) if "Join" in m.button_labels())




async def test_teams_are_chosen_in_the_lobby_and_checked(loopback: LoopbackTest) -> None:
    alice, bob, carol = (loopback.member(n) for n in ("alice", "bob", "carol"))
    await lobby_saved(db_of(loopback), loopback.channel, await alice.slash("uno new"))
    r = await alice.slash("uno settings", mode="partners")
    assert "partners (4 or 6 players, partners across)" in r.text
    # the lobby message is refreshed in the background (the outbox)
    shown = await loopback.channel.wait_for(lambda m: "Team 1" in m.button_labels())
    labels = shown.button_labels()
    assert labels[-3:] == ["Team 1", "Team 2", "Shuffle teams"], labels
    await alice.click("Team 1", message=lobby(loopback))
    await bob.click("Team 1", message=lobby(loopback))  # joins the lobby on team 1
    before = saved_game(loopback)
    refused(await carol.click("Team 1", message=lobby(loopback)),
            "Team 1 is full: choose another team.")
    assert saved_game(loopback) == before, "a refusal changes nothing"
    assert "Alice (host) · Team 1" in lobby(loopback).text()
    assert "Bob · Team 1" in lobby(loopback).text()
    refused(await alice.click("Start", message=lobby(loopback)),
            "Partner play needs 4 or 6 players (partners sit across the table), not 2.")
    await carol.click("Team 2", message=lobby(loopback))
    await alice.click("Add computer player", message=lobby(loopback))
    await alice.click("Start", message=lobby(loopback))
    state = saved_game(loopback)
    assert state is not None
    game = state["game"]
    ids = {m: str(m.id) for m in (alice, bob, carol)}
    teams = [set(t) for t in game["teams"]]
    assert {ids[alice], ids[bob]} in teams, teams
    assert {ids[carol], "cpu1"} in teams, teams
    seats = game["players"]
    # partners sit across the table: seat i with seat i + 2
    assert seats.index(ids[alice]) % 2 == seats.index(ids[bob]) % 2
    table = await loopback.channel.wait_for(lambda m: "My hand" in m.button_labels(),
                                            timeout=5)
    assert "Teams (partners sit across)" in str(table.payload())
    refused(await alice.slash("uno settings", mode="solo"),
            "Settings can't change once the game has started.")


async def test_the_lobby_shows_the_teams_the_start_deals(loopback: LoopbackTest) -> None:
    """Partners: once the seats make teams, the lobby shows every seat's team, chosen or
    as the start will deal it, and the start deals just those (issue 29: the lobby showed
    no team for those who chose none)."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await lobby_saved(db_of(loopback), loopback.channel, await alice.slash("uno new"))
    await alice.slash("uno settings", mode="partners")
    await loopback.channel.wait_for(lambda m: "Team 1" in m.button_labels())
    await bob.click("Join", message=lobby(loopback))
    await alice.click("Add computer player", message=lobby(loopback))
    text = lobby(loopback).text()
    assert "· Team" not in text, "three players make no teams yet"
    await alice.click("Add computer player", message=lobby(loopback))
    await bob.click("Team 2", message=lobby(loopback))
    text = lobby(loopback).text()
    seats = {re.split(r" \(host\)| 🤖", m[1])[0]: int(m[2]) - 1
             for m in re.finditer(r"\d\. (.+?) · Team (\d)$", text, re.MULTILINE)}
    assert len(seats) == 4 and seats["Bob"] == 1, text
    assert sorted(seats.values()) == [0, 0, 1, 1], text
    await alice.click("Start", message=lobby(loopback))
    state = saved_game(loopback)
    assert state is not None
    ids = {s[1]: s[0] for s in state["seats"]}
    dealt = sorted(sorted(t) for t in state["game"]["teams"])
    shown = sorted(sorted(ids[n] for n, team in seats.items() if team == i) for i in (0, 1))
    assert dealt == shown, (dealt, seats)


async def test_a_rotating_match_needs_four_and_standard_scoring(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await alice.slash("uno new")
    await alice.slash("uno settings", scoring="alternative")
    refused(await alice.slash("uno settings", mode="rotating"),
            "A rotating partners match uses standard scoring")
    await alice.slash("uno settings", scoring="standard")
    await alice.slash("uno settings", mode="rotating")
    await bob.click("Join", message=lobby(loopback))
    refused(await alice.click("Start", message=lobby(loopback)),
            "A rotating partners match needs exactly 4 players, not 2.")


async def _play(t: LoopbackTest, names: tuple[str, ...], won: str, seed: int) -> Message:
    rng = random.Random(seed)
    stats = Stats()
    watch = PrivacyWatch(db_of(t), t.channel)
    humans = [Human(t.member(n), rng, stats, watch) for n in names]
    final = await play_until_won(t.channel, humans, rng, won=won, wait=20.0)
    assert final is not None
    watch.scan_public_history()
    assert not watch.violations, watch.violations[:3]
    return final


async def test_a_partner_game_to_its_end_counts_for_the_team(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await lobby_saved(db_of(loopback), loopback.channel, await alice.slash("uno new"))
    await alice.slash("uno settings", mode="partners", target=100, turn_timer=600)
    await loopback.channel.wait_for(lambda m: "Team 1" in m.button_labels())
    await alice.click("Team 1", message=lobby(loopback))
    await bob.click("Team 2", message=lobby(loopback))
    await alice.click("Add computer player", message=lobby(loopback))
    await alice.click("Add computer player", message=lobby(loopback))
    r = await alice.click("Start", message=lobby(loopback))
    assert "Teams: " in r.text, r.text
    state = saved_game(loopback)
    assert state is not None
    game_id = state["game_id"]
    teams = state["game"]["teams"]
    final = await _play(loopback, ("alice", "bob"), "won the game", 11)
    named = [t for t in teams if f"**{' & '.join(oracle_names(state, t))}** won the game"
             in final.text()]
    assert len(named) == 1, (teams, final.text())
    winners = set(named[0])
    results = rows(db_of(loopback), "SELECT kind FROM game_results WHERE game_id = ?",
                   game_id)
    assert results == [("partners",)]
    players = dict(rows(db_of(loopback),
                        "SELECT user_id, won FROM game_players WHERE game_id = ?", game_id))
    assert players == {alice.id: int(str(alice.id) in winners),
                       bob.id: int(str(bob.id) in winners)}
    assert sorted(players.values()) == [0, 1], "alice and bob are on opposite teams"
    for m in (alice, bob):
        stats = rows(db_of(loopback), "SELECT team_games, team_wins FROM player_stats "
                     "WHERE user_id = ?", m.id)
        assert stats == [(1, players[m.id])]
    r = await alice.slash("uno stats")
    assert r.message is not None
    shown = json.dumps(r.message.payload())
    assert "Partner games (won)" in shown and f"1 ({players[alice.id]})" in shown


def oracle_names(state: dict[str, Any], team: list[str]) -> list[str]:
    names = {s[0]: s[1] for s in state["seats"]}
    return [names.get(p, p) for p in team]


async def test_a_rotating_partners_match_plays_three_hands(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await alice.slash("uno new")
    await alice.slash("uno settings", mode="rotating", turn_timer=600)
    await bob.click("Join", message=lobby(loopback))
    await alice.click("Add computer player", message=lobby(loopback))
    await alice.click("Add computer player", message=lobby(loopback))
    r = await alice.click("Start", message=lobby(loopback))
    assert "Hand 1 of 3" in r.text, r.text
    first = saved_game(loopback)
    assert first is not None and first["match"]["kind"] == "rotating"
    final = await _play(loopback, ("alice", "bob"), "won the rotating partners match", 5)
    text = "\n".join(m.text() for m in loopback.channel.messages)
    for n in (1, 2, 3):
        assert f"Hand {n} of 3" in text
    assert "won the rotating partners match" in final.text()
    # Three hands, three games each with its own move log; one result for the match.
    headers = rows(db_of(loopback), "SELECT game_id, entry FROM game_log WHERE seq = 0 AND "
                   "channel_id = ? ORDER BY created_at, rowid", loopback.channel.id)
    assert len(headers) == 3, headers
    partnerships = [tuple(sorted(map(tuple, json.loads(e)["teams"]))) for _, e in headers]
    assert len(set(partnerships)) == 3, "each hand has different partners"
    last_id = headers[-1][0]
    results = rows(db_of(loopback), "SELECT kind, rounds FROM game_results WHERE game_id = ?",
                   last_id)
    assert results == [("rotating", 3)]
    stats = rows(db_of(loopback), "SELECT user_id, team_games, games_played FROM player_stats"
                 " WHERE user_id IN (?, ?) ORDER BY user_id", alice.id, bob.id)
    assert all(row[1] >= 1 for row in stats), stats
    assert saved_game(loopback) is None, "the match left the table"

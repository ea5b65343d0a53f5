"""End to end: exact positions installed as saved games, then played through the UI."""

from __future__ import annotations

import asyncio
import time

import pytest

from cogs.uno.table.session import Session
from data import Database, SavedGame
from engine import Tower
from loopback.fixtures import LoopbackTest
from support.e2e import FAST_ENV, db_of, grab, panel_shows, play_card, saved_game
from support.games import install, saved_state, scenario_session

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


async def test_wild_asks_for_colour_then_plays(loopback: LoopbackTest,
                                               loopback_bot_env: dict[str, str]) -> None:
    """A Wild Grab-A-Tower is committed only once its colour and tower are chosen."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "WG R3 B4", bob: "G5 G6 G7"},
                               discard="Y9", draw="R1 R2 R4 R5", turn=alice)
    db = db_of(loopback)
    await install(db, session)
    await loopback.bot.restart()
    await loopback.channel.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    await alice.click("My hand")
    await play_card(alice, "WG")
    assert "colour" in alice.latest_ephemeral().text()
    await alice.click("Blue")
    assert "tower" in alice.latest_ephemeral().text()
    assert (saved_game(loopback) or {})[
        "game"]["discard"] == ["Y9"], "nothing is played before the choice is complete"
    await grab(alice, "N")
    state = saved_state(db, loopback.channel)
    assert state is not None
    assert state["game"]["color"] == "B"
    assert state["game"]["hands"][str(alice.id)] == ["R3", "B4"]
    assert state["game"]["towers"]["N"] == str(alice.id)
    await loopback.channel.wait_for(lambda m: "picks blue" in m.text(), timeout=10)


async def _load(loopback: LoopbackTest, env: dict[str, str], *sessions: Session) -> None:
    await install(env["DATABASE_PATH"], *sessions)
    await loopback.bot.restart()
    await loopback.channel.wait_for(lambda m: "goes on" in m.text(), timeout=10)


async def test_slash_play_of_a_wild_asks_for_the_colour(loopback: LoopbackTest,
                                                        loopback_bot_env: dict[str, str]) -> None:
    """/uno play without a colour for a wild answers with the colour buttons; the card is
    played only once the colour is picked (RULES: wild cards name a colour with the play)."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "W+4 B3 B4", bob: "G5 G6 G7"},
                               discard="R9", draw="R1 R2 R4 R5 Y1 Y2", turn=alice)
    await _load(loopback, loopback_bot_env, session)
    result = await alice.slash("uno play", card="W+4")
    assert result.ephemeral and "colour" in result.text
    state = saved_game(loopback)
    assert state is not None and state["game"]["discard"] == ["R9"]
    await alice.click("Green")
    state = saved_game(loopback)
    assert state is not None
    assert state["game"]["discard"] == ["R9", "W+4"] and state["game"]["color"] == "G"
    assert state["game"]["pending"] == "challenge" and state["game"]["turn"] == str(bob.id)
    await loopback.channel.wait_for(lambda m: "Accept +4" in m.button_labels(), timeout=10)


async def test_wild_first_card_first_player_names_the_colour(
        loopback: LoopbackTest, loopback_bot_env: dict[str, str]) -> None:
    """A Wild Grab-A-Tower turned up first: nobody grabs, the first player names the colour
    before playing (RULES, first card; sheet 000, Wild Grab-A-Tower)."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "R3 B4 G5", bob: "G6 G7 Y8"},
                               discard="", draw="WG R1 R2 R4 R5", turn=None)
    session.game.s.dealer = str(bob.id)  # type: ignore[union-attr]
    await _load(loopback, loopback_bot_env, session)
    table = await loopback.channel.wait_for(lambda m: "My hand" in m.button_labels(), timeout=10)
    assert "starting colour" in table.text()
    refused = await bob.slash("uno color", color="R")
    assert refused.ephemeral and "must name the starting colour" in refused.text
    result = await alice.click("My hand")
    assert "name the starting colour" in result.text
    await alice.click("Blue")
    state = saved_game(loopback)
    assert state is not None
    assert state["game"]["color"] == "B" and state["game"]["pending"] == "play"
    assert all(h is None for h in state["game"]["towers"].values())
    await loopback.channel.wait_for(lambda m: "names blue" in m.text(), timeout=10)


async def test_keep_command_after_instant_uno(loopback: LoopbackTest,
                                              loopback_bot_env: dict[str, str]) -> None:
    """Grabbing the fourth tower is an instant UNO: /uno keep keeps one card, the rest go
    under the top of the discard pile and the towers return (RULINGS, Towers)."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(
        loopback.channel, [alice, bob],
        hands={alice: "R4! B5 G6 Y7", bob: "G1 G2 G3"},
        discard="R9", draw="R1 R2 R3 R5 Y1 Y2",
        towers={Tower.U: alice, Tower.N: alice, Tower.O: alice}, turn=alice)
    await _load(loopback, loopback_bot_env, session)
    panel = (await alice.slash("uno play", card="R4!")).message
    assert panel is not None and "Instant UNO!" in panel.text(), panel
    refused = await bob.slash("uno keep", card="G1")
    assert refused.ephemeral and "choose the card to keep" in refused.text
    # the typed keep shows in alice's panel (the answer the play opened)
    result = await alice.slash("uno keep", card="G6")
    assert "your hand panel above" in result.text, result.text
    await panel_shows(loopback.channel, panel, "You kept")
    state = saved_game(loopback)
    assert state is not None
    game = state["game"]
    assert game["hands"][str(alice.id)] == ["G6"]
    assert game["discard"][-1] == "R4!" and sorted(game["discard"][1:-1]) == ["B5", "Y7"]
    assert all(h is None for h in game["towers"].values())
    assert game["catchable"] == str(alice.id)
    line = await loopback.channel.wait_for(lambda m: "instant UNO" in m.text(), timeout=10)
    assert "G6" not in line.text() and "🟩 green 6" not in line.text(), \
        "the kept card stays private"


async def test_rules_pages(loopback: LoopbackTest) -> None:
    """/uno rules answers privately in short pages with working Previous/Next buttons."""
    alice = loopback.member("alice")
    first = await alice.slash("uno rules")
    assert first.ephemeral and "Page 1 of" in first.text and "Power Icons" in first.text
    second = await alice.click("Next ▶", message=first.message)
    assert "Page 2 of" in second.text and "Wild Draw Four" in second.text
    back = await alice.click("◀ Previous", message=first.message)
    assert "Page 1 of" in back.text


async def test_call_uno_command_then_play_is_safe_and_table_command(
        loopback: LoopbackTest, loopback_bot_env: dict[str, str]) -> None:
    """/uno call with two cards on your turn, then the play down to one card cannot be
    caught (RULINGS, UNO call and catch); /uno table shows the table without any hand."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "R3 B4", bob: "G5 G6 G7"},
                               discard="R9", draw="R1 R2 R4 R5 Y1 Y2", turn=alice)
    await _load(loopback, loopback_bot_env, session)
    early = await bob.slash("uno call")
    assert early.ephemeral and "two cards" in early.text
    called = await alice.slash("uno call")
    assert called.ephemeral
    await loopback.channel.wait_for(lambda m: "calls UNO" in m.text(), timeout=10)
    await alice.slash("uno play", card="R3")
    refused = await bob.slash("uno catch", player=alice)
    assert refused.ephemeral and "already called UNO" in refused.text
    mark = loopback.channel.mark()
    asked = await bob.slash("uno table")
    assert asked.ephemeral
    table = await loopback.channel.wait_for(
        lambda m: "asked for the table" in m.text() and "My hand" in m.button_labels(),
        after=mark, timeout=10)
    text = table.text()
    assert "1 card ·" in text and "UNO!" in text
    assert "B4" not in text and "🟦 blue 4" not in text, "the table shows no card of a hand"
    state = saved_game(loopback)
    assert state is not None and state["game"]["hands"][str(alice.id)] == ["B4"]


async def test_play_drawn_card_and_call_uno_in_one_step(
        loopback: LoopbackTest, loopback_bot_env: dict[str, str]) -> None:
    """Holding two cards after a draw, "Play it and call UNO!" plays the drawn card with the
    call (RULINGS, UNO call and catch: a call with the play that leaves one card)."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "B4", bob: "G5 G6 G7"},
                               discard="R9", draw="R2 Y1 Y2 Y3", turn=alice)
    await _load(loopback, loopback_bot_env, session)
    menu = await alice.click("My hand")
    assert menu.message is not None
    await alice.click("Draw", message=menu.message)
    assert "Play it and call UNO!" in menu.message.button_labels()
    mark = loopback.channel.mark()
    await alice.click("Play it and call UNO!", message=menu.message)
    await loopback.channel.wait_for(lambda m: "calls UNO" in m.text(), after=mark, timeout=10)
    state = saved_game(loopback)
    assert state is not None
    assert state["game"]["hands"][str(alice.id)] == ["B4"]
    assert str(alice.id) in state["game"]["called"] and state["game"]["catchable"] is None


async def test_walkover_is_not_counted(loopback: LoopbackTest,
                                       loopback_bot_env: dict[str, str]) -> None:
    """A host who kicks the only other player ends the game, but wins nothing on the
    leaderboard (RULES, R-BOT-RECORD)."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "B4 R3", bob: "G5 G6 G7"},
                               discard="R9", draw="R2 Y1 Y2 Y3", turn=alice,
                               scores={alice: 490})
    await _load(loopback, loopback_bot_env, session)
    mark = loopback.channel.mark()
    await alice.slash("uno kick", player=bob)
    await loopback.channel.wait_for(lambda m: "does not count" in m.text(), after=mark,
                                    timeout=10)
    assert saved_game(loopback) is None
    board = await alice.slash("uno stats", member=alice)
    assert "hasn't finished a game" in board.text


async def test_a_damaged_saved_game_does_not_stop_the_others(
        loopback: LoopbackTest, loopback_bot_env: dict[str, str]) -> None:
    """Restoring sets aside a saved game it can't read (kept, logged, its channel told);
    the others go on."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    good = scenario_session(loopback.channel, [alice, bob],
                            hands={alice: "B4 R3", bob: "G5 G6 G7"},
                            discard="R9", draw="R2 Y1 Y2 Y3", turn=alice)
    broken_channel = loopback.guild.new_channel()
    broken = scenario_session(broken_channel, [alice, bob],
                              hands={alice: "B4 R3", bob: "G5 G6 G7"},
                              discard="R9", draw="R2 Y1 Y2 Y3", turn=alice)
    db = db_of(loopback)
    await install(db, good)
    database = await Database.open(db)
    try:
        await database.save_game(SavedGame(channel_id=broken.channel_id,
                                           guild_id=broken.guild_id, game_id=broken.game_id,
                                           state='{"version": 1, "timeouts": []}',
                                           updated_at=0))
    finally:
        await database.close()
    await loopback.bot.restart()
    await loopback.channel.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    told = await broken_channel.wait_for(lambda m: "set aside" in m.text()
                                         or "kept aside" in m.text(), timeout=10)
    assert "/uno new" in told.text()
    assert "can't be read" in loopback.bot.log_text(), "the damaged record is logged"
    result = await alice.slash("uno play", card="R3")
    assert result.ephemeral and "**Your hand** (1 card)" in result.text
    assert saved_state(db, broken_channel) is None
    database = await Database.open(db)
    try:
        kept = await database.set_aside_games(broken.guild_id)
    finally:
        await database.close()
    assert [k.channel_id for k in kept] == [broken.channel_id]
    assert kept[0].state == '{"version": 1, "timeouts": []}', "kept exactly as it was"


async def test_restart_gives_a_stale_deadline_a_fresh_turn_timer(
        loopback: LoopbackTest, loopback_bot_env: dict[str, str]) -> None:
    """A deadline saved for an earlier decision is not reused after a restart: the player
    whose turn it is gets their full time instead of an instant timeout."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "B4 R3", bob: "G5 G6 G7"},
                               discard="R9", draw="R2 Y1 Y2 Y3", turn=alice)
    session.deadline = time.time() - 60  # long past, and set for the decision before
    session.deadline_serial = session.serial - 1
    await _load(loopback, loopback_bot_env, session)
    await asyncio.sleep(1.0)
    assert not any("ran out of time" in m.text() for m in loopback.channel.messages)
    state = saved_game(loopback)
    assert state is not None and state["game"]["hands"][str(alice.id)] == ["B4", "R3"]
    assert state["game"]["turn"] == str(alice.id)

"""End to end through the loopback Discord: the Victory Lap edition (issue 9, RULES.md
R-BOT-LAP and section 18).

Each scenario is a victory-lap table installed as a saved game in its own channel (the bot
is restarted once for the module); each test plays it through the UI and checks what people
see (the card's player alone sees the hand in front of them; nobody else sees a card, in
public or in private) and what the bot saved. The last test kills the bot mid-lap.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_asyncio

import support.service as ts
from cogs.uno._movelog import log_line
from cogs.uno.table.autoplay import timeout_moves
from cogs.uno.table.session import Options, Session
from engine import Card, Color, Decision, Game, Lap, Play
from engine.replay import move_to_json
from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.users import Member
from support.data import opened
from support.driver import shown_codes, stray_card_labels
from support.e2e import FAST_ENV, card_buttons, panel_shows, play_card
from support.games import cards, install, saved_state, scenario_session
from support.tables import (
    abc,
    end_game,
    hand,
    open_tables,
    pid,
    poll_state,
    refused,
    refused_in_panel,
    registry,
    said,
    state,
    table_message,
)

OPTS = Options(edition="victory-lap", turn_timer=600)
"""The Victory Lap edition, with long turns: the scenarios wait while earlier tests run."""


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


SCENARIOS, scenario = registry()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> dict[str, Channel]:
    """One channel per scenario, all installed (with a move log), then one restart."""
    return await open_tables(loopback_discord, loopback_bot, SCENARIOS, logged=SCENARIOS)


# ------------------------------------------------------------------ helpers


def no_public_card(ch: Channel) -> None:
    """No public message (nor any earlier version of one) shows a card code, nor a card
    anywhere a card is not public (played, on top of the pile, turned up)."""
    for m in ch.messages:
        versions = [m.text(), *(json.dumps(old, ensure_ascii=False) for old in m.history)]
        for text in versions:
            assert not shown_codes(text), f"a public message shows a card code: {text!r}"
            assert not stray_card_labels(text), f"a public message shows a card: {text!r}"


async def play_wv(member: Member, colour: str = "Red") -> Message:
    """Play the Victory Lap from My hand and pick its colour: the lap menu that follows."""
    r = await member.click("My hand")
    assert r.message is not None
    await play_card(member, "WV", message=r.message)
    assert "pick the colour" in r.message.text(), r.message.text()
    r2 = await member.click(colour, message=r.message)
    assert r2.response_type == 7, r2.text
    assert r2.message is not None
    return r2.message


def lap_custom_id(menu: Message, label: str) -> str:
    return next(str(b["custom_id"]) for b in menu.buttons() if b.get("label") == label)


def planted(loopback: LoopbackTest, ch: Channel, custom_id: str) -> str:
    """Put a button with ``custom_id`` (one of someone's private menu) on the public table,
    as a forged or misrouted interaction would carry it; returns the custom_id."""
    table = table_message(ch)
    rows = json.loads(json.dumps(table.components))
    rows.append({"type": 1, "components": [
        {"type": 2, "style": 2, "label": "Planted", "custom_id": custom_id}]})
    loopback.discord.edit_message(table, {"components": rows})
    return custom_id


# ------------------------------------------------------------------ typed
@scenario
def lap_typed(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "WV W R3 B4", b: "G6 G7 Y1 Y2"},
                            discard="R9", draw="Y3 Y4 Y5 Y6 Y7 Y8 G1 G2", turn=a,
                            options=OPTS)


async def test_typing_wild_offers_the_victory_lap(loopback: LoopbackTest,
                                                  tables: dict[str, Channel]) -> None:
    """The Victory Lap is a wild card: /uno play's autocomplete offers it for "wild" (and
    for French "carte blanche"), like the other wilds (issue 29: it offered only the
    Wild)."""
    ch = tables["lap_typed"]
    alice, _bob, _carol = abc(ch)
    choices = await alice.autocomplete("uno play", "card", "wild")
    assert sorted(c["value"] for c in choices) == ["W", "WV"], choices
    assert await alice.autocomplete("uno play", "card", "victory") == [
        {"name": "🌈 Victory Lap (WV)", "value": "WV"}]
    alice.identity.locale = "fr"
    try:
        choices = await alice.autocomplete("uno play", "card", "blanche")
        assert sorted(c["value"] for c in choices) == ["W", "WV"], choices
    finally:
        alice.identity.locale = "en-US"


# ------------------------------------------------------------------ a lap of three
@scenario
def lap_three(ch: Channel) -> Session:
    a, b, c = abc(ch)
    return scenario_session(ch, [a, b, c],
                            hands={a: "WV R3 B4", b: "G6 G7 Y1 Y2", c: "B1 B2 B3 B5 B6"},
                            discard="R9", draw="Y3 Y4 Y5 Y6 Y7 Y8 G1 G2", turn=a,
                            options=OPTS)


async def test_lap_keep_pass_and_every_hand_moves(loopback: LoopbackTest,
                                                  tables: dict[str, Channel]) -> None:
    ch = tables["lap_three"]
    alice, bob, carol = abc(ch)
    mark = ch.mark()
    menu = await play_wv(alice)
    text = menu.text()
    # the hand that was in front of alice: carol's (hands move in the direction of play)
    assert "**Hand in front of you** (5 cards): 🟦 blue 1, 🟦 blue 2, 🟦 blue 3, 🟦 blue 5, " \
           "🟦 blue 6" in text, text
    assert "step 1: keep this hand or pass it on (2 more passes before your own hand " \
           "comes back)" in text, text
    assert menu.button_labels() == ["Keep", "Pass"]
    s = state(ch)
    assert s["pending"] == "lap" and s["lap"] == {"player": pid(alice), "step": 1}
    assert s["color"] == "R"
    table = await said(ch, "alice is choosing a hand in the Victory Lap: step 1", mark)
    assert "alice plays 🌈 Victory Lap and picks red." in table.text()
    assert "🏁 Victory Lap!" in table.text()
    assert f"<@{alice.id}>: keep or pass the hand in the Victory Lap (My hand)." in \
        table.text()

    # everyone else: face down, no card
    r = await bob.click("My hand", message=table_message(ch))
    assert "Your hand is face down while alice chooses" in r.text, r.text
    assert not shown_codes(r.text) and r.message is not None and not r.message.buttons()
    bob_panel = r.message
    r = await carol.slash("uno hand")
    assert "face down" in r.text and not shown_codes(r.text)
    carol_panel = r.message
    assert carol_panel is not None
    await refused_in_panel(bob, await bob.click("Draw", message=table_message(ch)),
                           "alice must keep or pass a hand in the Victory Lap first.")

    # a second look at step 1: a new panel, and the first one says it moved (one live
    # panel a player)
    older_pass = lap_custom_id(menu, "Pass")
    second = (await alice.click("My hand", message=table_message(ch))).message
    assert second is not None and second is not menu
    assert second.button_labels() == ["Keep", "Pass"]
    await panel_shows(ch, menu, "Your hand moved to a newer message below.")
    assert not menu.buttons()
    menu = second

    # Pass: the next hand (bob's) is in front of alice, in the same menu
    mark = ch.mark()
    r = await alice.click("Pass", message=menu)
    assert r.response_type == 7 and r.message is menu
    text = menu.text()
    assert "**Hand in front of you** (4 cards): 🟩 green 6, 🟩 green 7, 🟨 yellow 1, " \
           "🟨 yellow 2" in text, text
    assert "step 2: keep this hand or pass it on (a pass brings your own hand back and " \
           "ends the lap)" in text, text
    await said(ch, "🏁 alice passes the hands on: step 2.", mark)

    # a stale Pass (the step-1 menu's) is refused; so is someone else's Keep
    before = state(ch)
    assert before["lap"]["step"] == 2
    refused(await alice.click(custom_id=planted(loopback, ch, older_pass),
                              message=table_message(ch)),
            "This menu is out of date: press My hand for a fresh one.")
    refused(await bob.click(custom_id=planted(loopback, ch, lap_custom_id(menu, "Keep")),
                            message=table_message(ch)),
            "This is not your Victory Lap: alice is choosing a hand.")
    assert state(ch) == before

    # Keep at step 2: every hand moved two seats
    mark = ch.mark()
    r = await alice.click("Keep", message=menu)
    assert r.response_type == 7
    assert "You kept the hand at step 2." in menu.text(), menu.text()
    assert "**Your hand** (4 cards)" in menu.text()
    s = state(ch)
    assert s["lap"] is None and s["pending"] == "play" and s["turn"] == pid(bob)
    assert sorted(hand(s, alice)) == ["G6", "G7", "Y1", "Y2"]
    assert sorted(hand(s, bob)) == ["B1", "B2", "B3", "B5", "B6"]
    assert sorted(hand(s, carol)) == ["B4", "R3"]
    await said(ch, "🏁 alice keeps the hand at step 2: every hand moved 2 seats.", mark)

    # each other player: their panel follows, showing their new hand with the note once
    await panel_shows(ch, bob_panel, "**Your hand** (5 cards)")
    assert card_buttons(bob_panel, enabled=False) == ["B1", "B2", "B3", "B5", "B6"]
    assert bob_panel.text().startswith("🏁 Your hand changed in the Victory Lap: every hand "
                                       "moved 2 seats."), bob_panel.text()
    r = await bob.click("My hand", message=table_message(ch))
    assert "Your hand changed" not in r.text and "**Your hand** (5 cards)" in r.text
    await panel_shows(ch, carol_panel, "Your hand changed in the Victory Lap")
    assert "**Your hand** (2 cards)" in carol_panel.text()
    assert card_buttons(carol_panel, enabled=False) == ["R3", "B4"]
    r = await alice.click("My hand", message=table_message(ch))
    assert "Your hand changed" not in r.text, "the card's player chose: no note"

    # the move log names the lap moves, no card
    r = await carol.slash("uno log")
    lines = [line for line in r.text.splitlines() if line.startswith("`")]
    assert "alice plays 🌈 Victory Lap and picks red." in lines[-3]
    assert "alice passes the hands on (Victory Lap)." in lines[-2]
    assert "alice keeps a hand (Victory Lap)." in lines[-1]
    assert not shown_codes(r.text)
    no_public_card(ch)


# ------------------------------------------------------------------ all the way round
@scenario
def lap_round(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "WV R3", b: "G6 G7 Y1"}, discard="R9",
                            draw="Y3 Y4 Y5 Y6 Y7 Y8", turn=a, options=OPTS)


async def test_lap_all_the_way_round_keeps_the_own_hand_and_uno(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-VL-OWN-HAND, R-VL-UNO (RULINGS, Victory Lap edition: a pass that brings the own hand
    back ends the lap at once, with no keep; keeping one card needs the call after it): the
    pass keeps alice's own hand, the table says the lap is over, and her menu offers UNO!."""
    ch = tables["lap_round"]
    alice, bob, _c = abc(ch)
    menu = await play_wv(alice, "Green")
    text = menu.text()
    assert "**Hand in front of you** (3 cards)" in text
    assert "keep this hand or pass it on (a pass brings your own hand back and ends the " \
           "lap)" in text, text
    assert menu.button_labels() == ["Keep", "Pass"]
    mark = ch.mark()
    await alice.click("Pass", message=menu)
    text = menu.text()
    assert "Your own hand came back: the Victory Lap is over. Don't forget to call UNO!" \
        in text, text
    assert "**Your hand** (1 card)" in text and card_buttons(menu, enabled=False) == ["R3"], \
        text
    assert "Keep" not in menu.button_labels() and "Pass" not in menu.button_labels()
    assert "UNO!" in menu.button_labels(), "the UNO! button after keeping one card"
    s = state(ch)
    assert s["lap"] is None and s["pending"] == "play"
    assert s["catchable"] == pid(alice) and s["turn"] == pid(bob)
    assert hand(s, alice) == ["R3"] and sorted(hand(s, bob)) == ["G6", "G7", "Y1"]
    table = await said(ch, "alice's own hand is back: every hand went all the way round and "
                       "the Victory Lap is over.", mark)
    assert "alice passes the hands on: step 2." in table.text()
    r = await bob.click("My hand", message=table_message(ch))
    assert "Your hand changed" not in r.text, "the hands came back: nothing changed"
    mark = ch.mark()
    await alice.click("UNO!", message=menu)
    await said(ch, "📣 alice calls UNO!", mark)
    s = state(ch)
    assert s["catchable"] is None and pid(alice) in s["called"]
    r = await alice.slash("uno log")
    lines = [line for line in r.text.splitlines() if line.startswith("`")]
    assert "alice passes the hands on (Victory Lap)." in lines[-2], lines
    assert not any("keeps a hand" in line for line in lines), "no keep move was made"
    no_public_card(ch)


@scenario
def lap_others_uno(ch: Channel) -> Session:
    a, b, c = abc(ch)
    # play goes right: each hand moves to the seat before it, and carol plays next
    return scenario_session(ch, [a, b, c],
                            hands={a: "WV R3 B4", b: "G6 G7 G8", c: "Y1"}, discard="R9",
                            draw="Y3 Y4 Y5 Y6 Y7 Y8", turn=a, direction=-1, options=OPTS)


async def test_a_player_handed_one_card_may_call_but_is_not_caught(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["lap_others_uno"]
    alice, bob, carol = abc(ch)
    menu = await play_wv(alice, "Yellow")
    assert "**Hand in front of you** (3 cards): 🟩 green 6, 🟩 green 7, 🟩 green 8" in \
        menu.text()
    await alice.click("Keep", message=menu)
    s = state(ch)
    assert hand(s, bob) == ["Y1"] and s["turn"] == pid(carol) and s["catchable"] is None
    r = await bob.click("My hand", message=table_message(ch))
    assert "every hand moved 1 seat" in r.text and "**Your hand** (1 card)" in r.text, r.text
    assert r.message is not None and card_buttons(r.message, enabled=False) == ["Y1"]
    assert r.message is not None and "UNO!" in r.message.button_labels()
    before = state(ch)
    r2 = await carol.slash("uno catch", player=bob)
    assert r2.ephemeral and state(ch) == before, r2.text
    mark = ch.mark()
    await bob.click("UNO!", message=r.message)
    await said(ch, "📣 bob calls UNO!", mark)
    no_public_card(ch)


# ------------------------------------------------------------------ a computer's lap
@scenario
def lap_cpu(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    # the computer player can play only its Victory Lap
    return scenario_session(ch, [a, "cpu1", b],
                            hands={a: "R3 B4 G8", "cpu1": "WV G5 G6", b: "B7 Y1 Y2 Y3"},
                            discard="R9", draw="G1 G2 G3 B1 B2 B3", turn="cpu1",
                            options=OPTS)


async def test_a_computer_players_lap_completes_on_its_own(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["lap_cpu"]
    alice, bob, _c = abc(ch)
    kept = await ch.wait_for(lambda m: "cpu1 keeps" in m.text()
                             or "cpu1's own hand is back" in m.text(), timeout=10)
    s = await poll_state(ch, lambda s: s["lap"] is None and s["pending"] == "play")
    assert s["turn"] == pid(bob), "play goes on after the computer's seat"
    assert "WV" in s["discard"] and len(hand(s, "cpu1")) in (2, 3, 4)
    moved = "every hand went all the way round" not in kept.text()
    r = await alice.click("My hand", message=table_message(ch))
    assert ("Your hand changed in the Victory Lap" in r.text) is moved, r.text
    no_public_card(ch)


# ------------------------------------------------------------------ choosing the edition
async def test_edition_as_server_default_and_in_the_lobby(loopback: LoopbackTest,
                                                          tables: dict[str, Channel]) -> None:
    """/uno settings offers the edition; as the server's default a new lobby is a Victory Lap
    game, named so; /uno rules has a page on it."""
    ch = loopback.channel
    admin = loopback.member("root", manage_guild=True)
    r = await admin.slash("uno settings", edition="victory-lap", server_default=True)
    assert r.ephemeral and "This server's defaults" in r.text, r.text
    await admin.slash("uno new")
    lobby = next(m for m in reversed(ch.messages) if "Join" in m.button_labels())
    assert "UNO Victory Lap: new game" in lobby.text(), lobby.text()
    await admin.slash("uno settings", edition="classic")
    edited = await ch.wait_for(lambda m: m.id == lobby.id and "Classic UNO" in m.text())
    assert "Victory Lap" not in edited.text()
    await end_game(admin)
    await admin.slash("uno settings", edition="power-grab", server_default=True)
    r = await admin.slash("uno rules")
    text = r.text
    for _page in range(10):
        if "Victory Lap" in text or r.message is None or "Next ▶" not in \
                r.message.button_labels():
            break
        text = (await admin.click("Next ▶", message=r.message)).text
    assert "**Keep** it, or **Pass** it on" in text, text


# ------------------------------------------------------------------ pure pieces
async def test_timeout_and_log_lines_of_a_lap() -> None:
    """A lap whose time runs out keeps the hand in front (R-VL-TIMEOUT), naming a colour
    when none was; the log lines read as the table saw them and replay as logged."""
    game, _events = Game.from_setup(
        ["a", "b", "c"], edition="victory-lap", seed=3,
        hands={"a": cards("WV R3 B4"), "b": cards("G6 G7"), "c": cards("B1 B2 B3")},
        discard=cards("R9"), turn="a")
    game.apply(Play("a", Card.parse("WV"), None))
    assert game.pending is Decision.LAP and game.color is None
    applied = timeout_moves(game)
    moves, events = applied.moves, applied.events
    assert moves == [Lap("a", True, Color.BLUE)]
    assert game.pending is Decision.PLAY and game.turn == "b"
    assert any(e.kind == "lap_kept" for e in events)
    names = {"a": "Ann"}
    assert log_line(move_to_json(Lap("a", False)), names) == \
        "Ann passes the hands on (Victory Lap)."
    assert log_line(move_to_json(moves[0]), names) == \
        "Ann keeps a hand (Victory Lap) and picks blue."


# ------------------------------------------------------------------ kill -9 mid-lap
@scenario
def lap_restart(ch: Channel) -> Session:
    a, b, c = abc(ch)
    return scenario_session(ch, [a, b, c],
                            hands={a: "WV R3 B4", b: "G6 G7 Y1 Y2", c: "B1 B2 B3 B5 B6"},
                            discard="R9", draw="Y3 Y4 Y5 Y6 Y7 Y8 G1 G2", turn=a,
                            options=OPTS)


async def test_kill_mid_lap_resumes_exactly(loopback: LoopbackTest,
                                            tables: dict[str, Channel]) -> None:
    """SIGKILL in the middle of a lap: the bot comes back at the same step, the card's
    player sees the same hand in front of them, and the lap goes on (runs last: it kills
    the module's bot)."""
    ch = tables["lap_restart"]
    alice, bob, _c = abc(ch)
    menu = await play_wv(alice, "Blue")
    await alice.click("Pass", message=menu)
    before = state(ch)
    assert before["lap"] == {"player": pid(alice), "step": 2}
    shown = next(line for line in menu.text().splitlines() if "Hand in front of you" in line)

    await loopback.bot.kill()
    mark = ch.mark()
    await loopback.bot.start()
    await ch.wait_for(lambda m: "goes on" in m.text(), after=mark, timeout=15)
    assert state(ch) == before, "the lap resumes exactly where it was saved"
    table = table_message(ch)
    assert "alice is choosing a hand in the Victory Lap: step 2" in table.text()
    r = await alice.click("My hand", message=table)
    assert shown in r.text and "step 2: keep this hand or pass it on" in r.text, r.text
    r2 = await bob.click("My hand", message=table)
    assert "face down" in r2.text and not shown_codes(r2.text)
    # the menu opened before the crash is older than the panel My hand just opened: it
    # stays retired (it says where the hand is, the click does nothing); the lap goes on
    # from the new panel (tests/e2e/test_resilience.py: an old menu is live again after a
    # restart when it is the newest)
    old = await alice.click("Keep", message=menu)
    assert old.response_type == 7 and menu.text() == "Your hand moved to a newer message below."
    assert state(ch) == before and r.message is not None
    await alice.click("Keep", message=r.message)
    s = state(ch)
    assert s["lap"] is None and s["turn"] == pid(bob)
    assert sorted(hand(s, alice)) == ["G6", "G7", "Y1", "Y2"]
    no_public_card(ch)


async def test_leaving_mid_lap_keeps_it_and_the_note_is_saved(tmp_path: Path) -> None:
    """A player who leaves during a lap (here removed by the host: one who leaves has their
    seat kept warm, R-BOT-WARM) ends it as a timeout would (R-LEAVE): the players whose
    hand changed are owed the note, saved with the session; a record saved before the note
    existed loads with nobody owed one."""
    async with opened(tmp_path / "bot.db") as db:
        service, _outbox = ts.make_service(db)
        session = ts.scenario(
            1, [ts.ALICE, ts.BOB, ts.CAROL],
            hands={"111": "WV R3 B4", "222": "G6 G7 Y1", "333": "B1 B2"}, discard="R9",
            draw="Y3 Y4 Y5 Y6", turn="111", options=OPTS)
        await install(db, session)
        await service.restore()
        live = service.sessions[1]
        await service.move(1, ts.ALICE, lambda s, g, p: Play(p, Card.parse("WV"), Color.RED))
        assert live.game is not None and live.game.lap == {
            "player": "111", "step": 1, "steps_left": 2}
        await service.kick(1, ts.ALICE, ts.CAROL.id, ts.CAROL.name)
        assert live.game.lap is None and live.lap_changed == {"222": 1}
        saved = saved_state(db, 1)
        assert saved is not None and saved["lap_changed"] == {"222": 1}
        assert sorted(c.code for c in live.game.hand("222")) == ["B4", "R3"]
        assert service.take_lap_change(live, "222") == 1
        assert service.take_lap_change(live, "222") is None
        assert service.take_lap_change(live, "111") is None
        await service.close()
    old = json.loads(live.to_json())
    del old["lap_changed"]
    assert Session.from_json(json.dumps(old)).lap_changed == {}

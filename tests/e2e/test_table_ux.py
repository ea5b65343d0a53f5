"""End to end through the loopback Discord: the table's user experience (issue 7).

Each test names the item of issue 7 it proves. Scenario games are installed as saved games
in their own channels before one restart of the module's bot; the lobby tests and the
replay export start from ``/uno new`` or an installed lobby and go through the UI.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest
import pytest_asyncio

from cogs.uno.table.session import Options, Seat, Session
from data import Database
from engine import Tower
from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.users import InteractionResult, Member
from support.e2e import FAST_ENV, card_buttons, db_of, panel_shows, panel_text_edit, play_card
from support.games import saved_state, scenario_session
from support.tables import (
    abc,
    hand,
    open_tables,
    pid,
    refused,
    refused_in_panel,
    registry,
    said,
    state,
    table_message,
)

OPTS = Options(turn_timer=600)
"""Long turns: the scenarios wait while earlier tests run."""
CLASSIC = Options(edition="classic", target=100, turn_timer=600)
REPO = Path(__file__).resolve().parents[2]


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


SCENARIOS, scenario = registry()
LOGGED: set[str] = set()
"""Scenarios whose move log starts with a header, as if the bot had started them."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> dict[str, Channel]:
    """One channel per scenario, all installed, then one restart of the bot."""
    return await open_tables(loopback_discord, loopback_bot, SCENARIOS, logged=LOGGED)


# ------------------------------------------------------------------ helpers
def public_text(ch: Channel) -> str:
    """Every public message of the channel, with every earlier version of each."""
    out = []
    for m in ch.messages:
        out.append(m.text())
        out += [json.dumps(old, ensure_ascii=False) for old in m.history]
    return "\n".join(out)


def mentioned_users(msg: Message) -> list[str]:
    am = msg.allowed_mentions
    assert am is not None, f"{msg!r} was sent without allowed_mentions"
    return [str(u) for u in am.get("users") or []]


# ------------------------------------------------------------------ (8) Draw tied to its table
RACES = 4


def _race(ch: Channel, i: int) -> Session:
    a, b, c = abc(ch)
    # bob's drawn card never matches the red 9: his draw ends his turn, and carol's is next
    drawn = ["B1", "G2", "Y3", "B4"][i]
    return scenario_session(ch, [a, b, c], hands={a: "B6 G7", b: "B5 G8", c: "Y4 Y5 R1"},
                            discard="R9", draw=f"{drawn} Y6 Y7 Y8 G1 G3", turn=b,
                            options=OPTS, seed=11 + i)


for _i in range(RACES):
    def _make(ch: Channel, i: int = _i) -> Session:
        return _race(ch, i)
    _make.__name__ = f"race{_i}"
    scenario(_make)


async def test_table_draw_is_tied_to_its_table(loopback: LoopbackTest,
                                               tables: dict[str, Channel]) -> None:
    """Issue 7 item 8: the public table's Draw acts on the table it was pressed on. Bob (his
    turn) and Carol press Draw on the same table at the same moment: Bob's draw ends his turn,
    and Carol's press, now on an out-of-date table, is refused instead of drawing for her
    turn. Repeated on four tables so that it is not the luck of one ordering."""
    for i in range(RACES):
        ch = tables[f"race{i}"]
        alice, bob, carol = abc(ch)
        before = state(ch)
        table = table_message(ch)
        rb, rc = await asyncio.gather(bob.click("Draw", message=table),
                                      carol.click("Draw", message=table))
        assert rb.ephemeral and "You drew" in rb.text, rb
        refused(rc, "out of date")
        s = state(ch)
        assert len(hand(s, bob)) == len(hand(before, bob)) + 1
        assert hand(s, carol) == hand(before, carol), "carol's stale press drew a card"
        assert hand(s, alice) == hand(before, alice)
        assert len(s["draw"]) == len(before["draw"]) - 1, "only one card left the pile"
        assert s["turn"] == pid(carol) and s["pending"] == "play"


# ------------------------------------------------------------------ (10) hostile input
@scenario
def long_card(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 B4", b: "G6 G7"}, discard="R9",
                            draw="Y2 Y3 Y4", turn=a, options=OPTS)


@scenario
def forged_tower(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "RG B4 G5", b: "G6 G7 Y1"}, discard="R9",
                            draw="Y2 Y3 Y4 Y5", towers={Tower.U: b}, turn=a, options=OPTS)


async def test_huge_card_text_gets_a_short_refusal(loopback: LoopbackTest,
                                                   tables: dict[str, Channel]) -> None:
    """Issue 7 item 10: /uno play with a 2,000-character card is refused in one short
    sentence that does not echo the text back."""
    ch = tables["long_card"]
    alice, _b, _c = abc(ch)
    before = state(ch)
    typed = "Q" * 1000 + "X" * 1000
    r = await alice.slash("uno play", card=typed)
    assert r.ephemeral
    assert "is not a card" in r.text, r.text
    assert len(r.text) < 110 and "\n" not in r.text, r.text
    assert "Q" * 20 not in r.text and "X" not in r.text
    assert state(ch) == before
    assert loopback.bot.take_tracebacks() == []


async def test_out_of_date_tower_question_is_refused(loopback: LoopbackTest,
                                                    tables: dict[str, Channel]) -> None:
    """Issue 7 item 10, on the live panel: a tower question answered after the game moved
    on (here: the player drew instead, from the table, and the panel could not be edited)
    is refused as out of date in the panel itself, with no traceback and no change; the
    panel shows the hand as it is now."""
    ch = tables["forged_tower"]
    alice, _bob, _c = abc(ch)
    r = await alice.slash("uno play", card="RG")
    assert r.message is not None and "pick 2 towers to grab" in r.text
    question = [str(b["custom_id"]) for b in r.message.buttons()
                if str(b.get("custom_id", "")).startswith("uno:tb:")]
    assert question
    # she draws from the table instead; her panel can't be edited this once (as when its
    # token ran out), so it still shows the question
    loopback.discord.fail_next("PATCH", panel_text_edit(r), 404, code=10015, count=1)
    drew = await alice.click("Draw", message=table_message(ch))
    assert drew.response_type == 6, drew  # the answer goes to her panel, not a message
    assert "pick 2 towers to grab" in r.message.text()
    before = state(ch)
    messages = len(alice.ephemerals())
    stale = await alice.click(custom_id=question[0], message=r.message)
    assert stale.response_type == 7 and "out of date" in stale.text, stale.text
    assert loopback.bot.take_tracebacks() == []
    assert state(ch) == before and len(alice.ephemerals()) == messages


@scenario
def serialless(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 B4", b: "G6 G7"}, discard="R9",
                            draw="Y2 Y3 Y4", turn=a, options=OPTS)


async def test_a_table_button_without_its_table_is_out_of_date(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """Item 8: Draw, Catch, Accept and Challenge act on the table they were shown with; the
    same button without the table's serial (a previous release's, or forged) can't say
    which table that was, so it is refused. My hand and UNO! need no table."""
    ch = tables["serialless"]
    alice, _bob, _c = abc(ch)
    table = table_message(ch)
    # The same table as the previous release posted it: its buttons carry no serial.
    rows = json.loads(json.dumps(table.components))
    stack = list(rows)  # action rows, or a Components V2 container holding them
    while stack:
        comp = stack.pop()
        stack += comp.get("components") or []
        if comp.get("type") == 2:
            comp["custom_id"] = ":".join(str(comp["custom_id"]).split(":")[:4])
    loopback.discord.edit_message(table, {"components": rows})
    before = state(ch)
    for label in ("Draw", "Catch"):
        refused(await alice.click(label, message=table), "This menu is out of date")
        assert state(ch) == before
    r = await alice.click("My hand", message=table)
    assert r.ephemeral and "**Your hand** (2 cards)" in r.text
    assert loopback.bot.take_tracebacks() == []


# ------------------------------------------------------------------ (11) cards by name
def _named(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R5U W+4 B3 G7", b: "G6 G8 Y1"},
                            discard="R9", draw="Y2 Y3 Y4", turn=a, options=OPTS)


@scenario
def named(ch: Channel) -> Session:
    return _named(ch)


@scenario
def named_typed(ch: Channel) -> Session:
    return _named(ch)


async def test_autocomplete_finds_cards_by_name(loopback: LoopbackTest,
                                                tables: dict[str, Channel]) -> None:
    """Issue 7 item 11: the autocomplete of /uno play card: matches names, labels and codes."""
    ch = tables["named"]
    alice, _b, _c = abc(ch)

    async def values(typed: str) -> list[str]:
        return [c["value"] for c in await alice.autocomplete("uno play", "card", typed)]

    for typed in ("red", "red 5", "5", "r5u", "Red 5"):
        choices = await alice.autocomplete("uno play", "card", typed)
        assert [c["value"] for c in choices] == ["R5U"], (typed, choices)
        assert choices[0]["name"] == "🟥 red 5 [U] (R5U)"
    assert await values("wild four") == ["W+4"]
    assert await values("wild") == ["W+4"]
    assert await values("blue") == [], "B3 can't be played on the red 9"
    assert await values("purple") == []


async def test_typed_card_name_plays_the_only_match(loopback: LoopbackTest,
                                                    tables: dict[str, Channel]) -> None:
    """Issue 7 item 11: typing "red 5" as the card (without picking a suggestion) plays the
    one card of the hand it names."""
    ch = tables["named_typed"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    r = await alice.slash("uno play", card="red 5")
    assert r.ephemeral and "**Your hand** (3 cards)" in r.text, r.text
    s = state(ch)
    assert s["discard"][-1] == "R5U" and hand(s, alice) == ["W+4", "B3", "G7"]
    assert s["turn"] == pid(bob)
    await said(ch, "alice plays 🟥 red 5 [U].", mark)


# ------------------------------------------------------------------ (12) lobby settings
async def test_lobby_message_shows_new_settings(loopback: LoopbackTest) -> None:
    """Issue 7 item 12: after /uno settings target:100 in the lobby, the public lobby
    message shows the new target."""
    ch = loopback.channel
    alice = loopback.member("alice")
    r = await alice.slash("uno new")
    lobby = r.message
    assert lobby is not None and not lobby.ephemeral and "Target 500" in lobby.text()
    mark = ch.mark()
    r = await alice.slash("uno settings", target=100)
    assert r.ephemeral and "Target 100" in r.text
    edited = await ch.wait_for(lambda m: m.id == lobby.id, after=mark)
    assert "Target 100" in edited.text() and "Target 500" not in edited.text()
    assert "Join" in edited.button_labels()


# ------------------------------------------------------------------ (13) the hand after a move
@scenario
def forced_draw_two(ch: Channel) -> Session:
    a, b, c = abc(ch)
    return scenario_session(ch, [a, b, c], hands={a: "R+2 R3 G4", b: "B1 B2", c: "R5 G5"},
                            discard="R9", draw="Y7 Y8 G1 G2 G3", turn=a, options=OPTS)


@scenario
def forced_catch(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4", b: "R5 G1 G2"}, discard="R9",
                            draw="Y7 Y8 G3 G4", turn=a, options=OPTS)


async def test_mover_sees_hand_and_forced_draws_privately(loopback: LoopbackTest,
                                                          tables: dict[str, Channel]) -> None:
    """Issue 7 item 13: the mover's answer is their updated hand (never a bare "Done."); the
    cards a Draw Two made a player draw are shown to that player, privately, at their next
    look, once, and never in public."""
    ch = tables["forced_draw_two"]
    alice, bob, carol = abc(ch)
    mark = ch.mark()
    r = await alice.slash("uno play", card="R+2")
    assert r.ephemeral and "Done." not in r.text
    assert "**Your hand** (2 cards)" in r.text, r.text
    assert r.message is not None and card_buttons(r.message, enabled=False) == ["R3", "G4"]
    await said(ch, "bob draws 2", mark)
    s = state(ch)
    assert hand(s, bob) == ["B1", "B2", "Y7", "Y8"] and s["turn"] == pid(carol)

    r = await bob.slash("uno hand")
    assert ("Since you last looked you were made to draw 🟨 yellow 7 `Y7`, "
            "🟨 yellow 8 `Y8`." in r.text), \
        r.text
    assert "**Your hand** (4 cards)" in r.text
    again = await bob.click("My hand", message=table_message(ch))
    assert "Since you last looked" not in again.text, "shown once"
    assert not carol.can_see("`Y7`") and not alice.can_see("`Y8`")
    pub = public_text(ch)
    for shown in ("Y7", "Y8", "🟨 yellow 7", "🟨 yellow 8"):
        assert shown not in pub, f"{shown} was shown in public"


async def test_caught_player_sees_the_penalty_cards_privately(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """Issue 7 item 13: the two cards a catch made a player draw are shown to them at their
    next interaction, and to nobody else."""
    ch = tables["forced_catch"]
    alice, bob, _c = abc(ch)
    played = ch.mark()
    r_alice = r = await alice.slash("uno play", card="R3")
    assert "Done." not in r.text and "**Your hand** (1 card)" in r.text, r.text
    assert r.message is not None and card_buttons(r.message, enabled=False) == ["R4"]
    await said(ch, "alice plays 🟥 red 3.", played)
    mark = ch.mark()
    r = await bob.click("Catch", message=table_message(ch))
    assert "Done." not in r.text and "**Your hand** (3 cards)" in r.text, r.text
    await said(ch, "bob caught alice without UNO: alice draws 2.", mark)
    assert hand(state(ch), alice) == ["R4", "Y7", "Y8"]
    # alice's panel (the answer to her /uno play) follows: it says what she drew
    assert r_alice.message is not None
    await panel_shows(ch, r_alice.message,
                      "Since you last looked you were made to draw 🟨 yellow 7 `Y7`, "
                      "🟨 yellow 8 `Y8`.")
    assert "**Your hand** (3 cards)" in r_alice.message.text()
    # told once: a new panel shows the hand without saying it again
    r = await alice.click("My hand", message=table_message(ch))
    assert "Since you last looked" not in r.text and "**Your hand** (3 cards)" in r.text
    assert not bob.can_see("Y7") and not bob.can_see("🟨 yellow 7")
    pub = public_text(ch)
    assert "Y7" not in pub and "🟨 yellow 8" not in pub


# ------------------------------------------------------------------ (14) colour, then play
@scenario
def wild_grab(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "WG B4 G5", b: "G6 G7 Y1"}, discard="R9",
                            draw="Y2 Y3 Y4", towers={Tower.N: b}, turn=a, options=OPTS)


async def test_wild_grab_with_towers_asks_only_the_colour(loopback: LoopbackTest,
                                                          tables: dict[str, Channel]) -> None:
    """Issue 7 item 14: /uno play card:WG towers:N asks for the colour only; the colour
    plays the card, grabbing N, with no second tower question."""
    ch = tables["wild_grab"]
    alice, bob, _c = abc(ch)
    r = await alice.slash("uno play", card="WG", towers="N")
    assert r.message is not None and "pick the colour" in r.text, r.text
    assert r.message.button_labels() == ["Red", "Blue", "Green", "Yellow", "Back"]
    assert r.message.selects() == []
    assert (state(ch))["discard"][-1] == "R9"
    mark = ch.mark()
    await alice.click("Green", message=r.message)
    assert "to grab" not in r.message.text() and r.message.selects() == [], r.message
    assert "**Your hand** (2 cards)" in r.message.text()
    s = state(ch)
    assert s["discard"][-1] == "WG" and s["towers"]["N"] == pid(alice)
    assert s["turn"] == pid(bob)
    await said(ch, "🏰 alice grabs the N tower from bob.", mark)


# ------------------------------------------------------------------ (16) one mention per turn
@scenario
def mention(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "B4 G5", b: "R3 G1 G2"}, discard="R9",
                            draw="R2 Y3 Y4 Y5", turn=b, options=OPTS)


async def test_the_table_names_the_turn_and_notifies_nobody(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """Issue 7 item 16 and R-BOT-MENTION: the table names whose turn it is and notifies
    nobody (a reminder, a message of its own, notifies a player who was away:
    tests/e2e/test_reach.py); a first turn is not "away" (issue 29); the table after that
    player draws a playable card (their turn goes on) notifies nobody either, and a player
    who moved a moment ago (watching the game) is not notified."""
    ch = tables["mention"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    await bob.slash("uno play", card="R3")
    started = await said(ch, "bob plays 🟥 red 3.", mark)
    assert f"<@{alice.id}>, it's your turn." in started.text()
    assert mentioned_users(started) == [], "Alice's first turn: she is not away"
    assert not any(m.text().startswith("🔔") for m in ch.messages), "no reminder either"
    mark = ch.mark()
    r = await alice.click("Draw", message=started)
    assert r.message is not None and r.message.button_labels() == ["Play it", "Keep it"]
    drew = await said(ch, "alice draws a card.", mark)
    assert "My hand" in drew.button_labels()
    assert mentioned_users(drew) == [], "the same turn is mentioned twice"
    assert (drew.allowed_mentions or {}).get("parse") in (None, [])
    mark = ch.mark()
    await alice.click("Keep it", message=r.message)
    kept = await said(ch, "alice keeps the drawn card.", mark)
    assert f"<@{bob.id}>, it's your turn." in kept.text()
    assert mentioned_users(kept) == [], "Bob played a moment ago: he is watching"


async def test_classic_lobby_has_no_grab_two_setting(loopback: LoopbackTest) -> None:
    """Issue 7 item 16: in classic UNO the lobby lists no Grab-2-Towers setting."""
    ch = loopback.channel
    alice = loopback.member("alice")
    r = await alice.slash("uno new")
    lobby = r.message
    assert lobby is not None and "Grab-2-Towers 20 pts" in lobby.text()
    mark = ch.mark()
    r = await alice.slash("uno settings", edition="classic")
    assert "Grab-2" not in r.text, r.text
    edited = await ch.wait_for(lambda m: m.id == lobby.id and "Classic UNO" in m.text(),
                               after=mark)
    assert "Grab-2" not in edited.text(), edited.text()


# ------------------------------------------------------------------ (17) UNO calls
@scenario
def uno_before_challenge(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "W+4 B3 R1", b: "R5 G6"}, discard="B9",
                            draw="Y2 Y3 Y4 Y5 Y6 Y7 Y8", turn=a, options=OPTS)


@scenario
def uno_lapses(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "B4", b: "R6 G7 Y1"}, discard="R9",
                            draw="R2 Y3 Y4 Y5 Y6", turn=a, options=OPTS)


async def test_wd4_victim_calls_uno_then_challenges(loopback: LoopbackTest,
                                                    tables: dict[str, Channel]) -> None:
    """Issue 7 item 17 (R-UNO-CALL): the victim of a Wild Draw Four holding two cards calls
    UNO before challenging; the challenge is guilty, so they play down to one card, and a
    call made properly can't be caught."""
    ch = tables["uno_before_challenge"]
    alice, bob, _c = abc(ch)
    r = await alice.slash("uno play", card="W+4", color="R")
    s = state(ch)
    assert s["pending"] == "challenge" and s["turn"] == pid(bob)
    mark = ch.mark()
    r = await bob.slash("uno call")
    assert r.ephemeral and "Done." not in r.text
    await said(ch, "📣 bob calls UNO!", mark)
    s = state(ch)
    assert pid(bob) in s["called"] and s["pending"] == "challenge"
    mark = ch.mark()
    await bob.click("Challenge", message=table_message(ch))
    await said(ch, "guilty! alice draws 4 and bob plays.", mark)
    s = state(ch)
    assert pid(bob) in s["called"] and s["turn"] == pid(bob)
    mark = ch.mark()
    await bob.slash("uno play", card="R5")
    await said(ch, "bob plays 🟥 red 5.", mark)
    s = state(ch)
    assert hand(s, bob) == ["G6"] and pid(bob) in s["called"]
    assert "**UNO!**" in table_message(ch).text()
    before = s
    await refused_in_panel(alice, await alice.click("Catch", message=table_message(ch)),
                           "Nobody can be caught")
    refused(await alice.slash("uno catch", player=bob), "bob")
    assert state(ch) == before


async def test_call_after_drawing_lapses_when_the_card_is_kept(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """Issue 7 item 17 (R-UNO-CALL): a player who calls UNO after drawing and then keeps the
    drawn card ends the turn with two cards: the call lapses, and playing down to one card
    later without calling again can be caught."""
    ch = tables["uno_lapses"]
    alice, bob, _c = abc(ch)
    r = await alice.click("Draw", message=table_message(ch))
    assert r.message is not None and "You drew 🟥 red 2" in r.text
    assert "UNO!" in r.message.button_labels()
    await alice.click("UNO!", message=r.message)
    s = state(ch)
    assert pid(alice) in s["called"] and s["pending"] == "drawn"
    mark = ch.mark()
    await alice.click("Keep it", message=r.message)
    await said(ch, "alice keeps the drawn card.", mark)
    s = state(ch)
    assert s["turn"] == pid(bob) and sorted(hand(s, alice)) == ["B4", "R2"]
    assert pid(alice) not in s["called"], "the call outlived the turn it was made in"
    table = table_message(ch)
    assert "**UNO!**" not in table.text()
    await bob.slash("uno play", card="R6")
    mark = ch.mark()
    panel = r.message
    assert panel is not None
    r = await alice.slash("uno play", card="R2")
    # the typed move shows in alice's live panel (the command's answer removes itself)
    assert "your hand panel above" in r.text, r.text
    await panel_shows(ch, panel, "**Your hand** (1 card)")
    assert "UNO!" in panel.button_labels(), "call again"
    await said(ch, "alice plays 🟥 red 2.", mark)
    mark = ch.mark()
    await bob.click("Catch", message=table_message(ch))
    await said(ch, "bob caught alice without UNO: alice draws 2.", mark)


# ------------------------------------------------------------------ the move log
@scenario
def logged_instant(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R4! B3 G5 Y6", b: "G6 G7 B1"},
                            discard="R9", draw="Y2 Y3 Y4 Y5",
                            towers={Tower.U: a, Tower.N: a, Tower.O: a}, turn=a,
                            options=OPTS)


LOGGED.add("logged_instant")


@scenario
def logged_challenge(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "W+4 B3 R1", b: "G5 G6 G7"}, discard="B9",
                            draw="R2 R3 R4 R5 R6 R7 R8 Y1 Y2", turn=a, options=OPTS)


LOGGED.add("logged_challenge")


async def test_log_shows_a_challenges_verdict_but_not_the_hand(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """/uno log shows a challenge with its verdict and who drew how many (issue 17: it said
    "bob challenges the Wild Draw Four." and nothing more); the challenged hand stays with
    the challenger (RULINGS, Turn)."""
    ch = tables["logged_challenge"]
    alice, bob, _c = abc(ch)
    await alice.slash("uno play", card="W+4", color="R")
    s = state(ch)
    assert s["pending"] == "challenge" and s["turn"] == pid(bob), s
    await bob.slash("uno challenge")
    r = await alice.slash("uno log")
    lines = [line for line in r.text.splitlines() if line.startswith("`")]
    assert "⚖️ bob challenges alice's Wild Draw Four: guilty! alice draws 4 cards and bob " \
           "plays." in lines[-1], r.text
    for hidden in ("B3", "R1", "blue 3", "red 1", "R2", "R5"):
        assert hidden not in r.text, f"the log shows {hidden}"


async def test_log_shows_moves_but_no_hidden_card(loopback: LoopbackTest,
                                                  tables: dict[str, Channel]) -> None:
    """/uno log shows the last moves privately, by name and played card, never the card
    kept after an instant UNO nor a drawn card; the replay export waits for the end."""
    ch = tables["logged_instant"]
    alice, bob, _c = abc(ch)
    r = await alice.slash("uno play", card="R4!")
    assert r.message is not None and "Choose the one card to keep" in r.text
    await alice.click("Keep 🟩 green 5", message=r.message)
    s = state(ch)
    assert hand(s, alice) == ["G5"] and s["turn"] == pid(bob)
    r = await bob.slash("uno draw")
    drawn = hand(state(ch), bob)[-1]
    assert drawn == "Y2"
    r = await bob.slash("uno log")
    assert r.ephemeral, r
    text = r.text
    assert "**The last moves**" in text
    lines = [line for line in text.splitlines() if line.startswith("`")]
    assert len(lines) == 3, text
    assert "alice plays 🟥 red 4 [!]" in lines[0]
    assert "⚡ alice makes an instant UNO: keeps one card, 2 go to the discard pile." in \
        lines[1], lines
    assert "bob draws." in lines[2]
    for hidden in ("G5", "🟩 green 5", "Y2", "🟨 yellow 2", "B3", "Y6"):
        assert hidden not in text, f"the log shows {hidden}"
    assert not alice.can_see("**The last moves**"), "the log is private"
    refused(await alice.slash("uno log", export=True),
            "The replay file is available once the game has ended.")


# ------------------------------------------------------------------ the replay export
@scenario
def export_lobby(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    # a lobby, as /uno new leaves it, with a fixed seed
    s = Session(channel_id=ch.id, guild_id=ch.guild.id if ch.guild else 0, host_id=pid(a),
                game_id="5eed0000c1a5", seed=0x5EED0000C1A5,
                seats=[Seat(pid(a), a.name), Seat(pid(b), b.name)],
                options=CLASSIC, last_human=time.time())
    return s


async def _take_turn(m: Member) -> bool | None:
    """One decision of ``m`` from their private hand (True: acted; False: not their turn;
    None: there is no game any more)."""
    r = await m.slash("uno hand")
    text = r.text
    if "There is no game" in text or "The game is over" in text:
        return None
    menu = r.message
    assert menu is not None
    labels = menu.button_labels()
    cards = card_buttons(menu)
    result: InteractionResult
    if cards:
        calls = [v for v in cards if v.endswith("|u")]
        result = await play_card(m, (calls or cards)[0], message=menu)
    elif "Accept +4" in labels:
        result = await m.click("Accept +4", message=menu)
    elif "Play it and call UNO!" in labels:
        result = await m.click("Play it and call UNO!", message=menu)
    elif "Play it" in labels:
        result = await m.click("Play it", message=menu)
    elif "Red" in labels:
        result = await m.click("Red", message=menu)
    elif "Draw" in labels:
        result = await m.click("Draw", message=menu)
    elif "UNO!" in labels:
        result = await m.click("UNO!", message=menu)
    else:
        return False
    if result.message is not None and "pick the colour" in result.message.text():
        await m.click("Red", message=result.message)
    return True


async def test_replay_export_plays_back_to_the_recorded_scores(
        loopback: LoopbackTest, tables: dict[str, Channel], tmp_path: Path) -> None:
    """/uno log export:True is refused while the game runs; after the end it gives the game's
    players a JSON file that `python -m engine.tools.replay` plays back to the scores the bot
    recorded; someone who did not play is refused."""
    ch = tables["export_lobby"]
    alice, bob, carol = abc(ch)
    r = await alice.slash("uno start")
    assert "The game has started!" in r.text, r.text
    refused(await bob.slash("uno log", export=True),
            "The replay file is available once the game has ended.")
    over = False
    for _ in range(1500):
        acted = False
        for m in (alice, bob):
            done = await _take_turn(m)
            if done is None:
                over = True
                break
            acted = acted or done
        if over:
            break
        assert acted, "nobody could act"
    assert over, "the game did not end"
    won = await ch.wait_for(lambda m: "won the game!" in m.text(), timeout=15)
    assert saved_state(db_of(ch), ch) is None

    refused(await carol.slash("uno log", export=True),
            "Only the game's players can export its replay.")
    r = await bob.slash("uno log", export=True)
    assert r.ephemeral and r.message is not None, r
    assert "python -m engine.tools.replay" in r.text
    name = "uno-5eed0000c1a5.json"
    assert [a["filename"] for a in r.message.attachments] == [name]
    data = r.message.files[name]
    path = tmp_path / name
    path.write_bytes(data)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "engine.tools.replay", str(path), cwd=REPO,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    final = json.loads(out.decode().strip().splitlines()[-1])
    assert final["event"] == "state" and final["over"] is True

    db = await Database.open(db_of(ch))
    try:
        recorded = {m: await db.player_stats(ch.guild.id if ch.guild else 0, m.id)
                    for m in (alice, bob)}
    finally:
        await db.close()
    for m, row in recorded.items():
        assert row is not None, f"{m.name} has no leaderboard row"
        assert final["scores"][pid(m)] == row.points, (final["scores"], row)
    winner = next(m for m, row in recorded.items() if row is not None and row.games_won == 1)
    assert final["winners"] == [pid(winner)]
    assert f"**{winner.name}** won the game!" in won.text()
    assert max(final["scores"].values()) >= 100

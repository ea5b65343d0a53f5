"""End to end through the loopback Discord: playing turns from exact positions.

Every scenario is installed as a saved game in its own channel and the bot is restarted once
for the whole module; each test then plays its channel through the UI (buttons, selects,
slash commands) and checks what people see and what the bot saved.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from cogs.uno.table.session import Options, Session
from data import Database, GameResult, PlayerResult
from engine import Tower
from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.users import InteractionResult, Member
from support.e2e import (
    FAST_ENV,
    card_buttons,
    db_of,
    grab,
    panel_shows,
    panel_text_edit,
    play_card,
)
from support.games import install, saved_state, scenario_session
from support.tables import (
    abc,
    hand,
    pid,
    poll_state,
    refused,
    refused_in_panel,
    registry,
    said,
    state,
    table_message,
)
from support.tables import end_game as confirmed_end

OPTS = Options(turn_timer=600)
"""Long turns: the scenarios wait while earlier tests run."""

FILLERS = 11
"""Players of an earlier game recorded on the leaderboard, so that it has two pages."""


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, DEV_GUILD_ID="")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")  # type: ignore[no-redef]
async def loopback_discord() -> AsyncIterator[LoopbackDiscord]:
    async with LoopbackDiscord() as discord_:
        discord_.add_guild("Test")
        discord_.add_guild("Other")
        yield discord_


SCENARIOS, scenario = registry()
@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> dict[str, Channel]:
    """One channel per scenario, all installed, then one restart of the bot."""
    guild = loopback_discord.guilds[0]
    channels = {name: guild.new_channel(name) for name in SCENARIOS}
    db_path = db_of(loopback_bot)
    await install(db_path, *(build(channels[name]) for name, build in SCENARIOS.items()))
    db = await Database.open(db_path)
    try:
        await db.record_game(GameResult(
            game_id="filler000000", guild_id=guild.id, channel_id=guild.default_channel.id,
            edition="power-grab", finished_at=int(time.time()), rounds=1,
            players=tuple(PlayerResult(user_id=10_000 + i, score=i, won=False, rounds_won=0,
                                       towers_grabbed=0, best_round=0)
                          for i in range(1, FILLERS + 1))))
    finally:
        await db.close()
    await loopback_bot.restart()
    for ch in channels.values():
        await ch.wait_for(lambda m: "goes on" in m.text(), timeout=15)
    return channels


# ------------------------------------------------------------------ helpers


def options(msg: Message) -> list[str]:
    """What the hand panel offers to play (``R7|u``: play it and call UNO)."""
    return card_buttons(msg)


def live_buttons(msg: Message) -> list[str]:
    return [str(b.get("label")) for b in msg.buttons() if not b.get("disabled")]


# ------------------------------------------------------------------ number cards
@scenario
def number_select(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 B4 G5", b: "G6 G7 Y1"}, discard="R9",
                            draw="R1 R2 B5 B6", turn=a, options=OPTS)


async def test_number_card_from_the_hand_menu(loopback: LoopbackTest,
                                              tables: dict[str, Channel]) -> None:
    ch = tables["number_select"]
    alice, bob, _c = abc(ch)
    r = await alice.click("My hand")
    assert r.ephemeral and r.message is not None
    # each card said once: by its button (and the picture), the text counts them
    assert r.text.startswith("**Your hand** (3 cards)\n") and "`" not in r.text, r.text
    assert "🟦 blue 4" not in r.text and not bob.can_see("🟦 blue 4")
    assert card_buttons(r.message) == ["R3"]
    assert card_buttons(r.message, enabled=False) == ["R3", "B4", "G5"]
    mark = ch.mark()
    await play_card(alice, "R3", message=r.message)
    s = state(ch)
    assert s["discard"][-1] == "R3" and hand(s, alice) == ["B4", "G5"]
    assert s["turn"] == pid(bob)
    msg = await said(ch, "alice plays 🟥 red 3.", mark)
    assert f"<@{bob.id}>, it's your turn." in msg.text()
    assert "**bob's turn.**" in msg.text() and msg.buttons()
    # the panel now shows the hand as it is after the play (no card to play: not alice's
    # turn any more)
    assert card_buttons(r.message) == [] and "**Your hand** (2 cards)" in r.message.text()


@scenario
def slash_play(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R5 B4 W+4", b: "G6 G7 Y1"},
                            discard="G9 R9", draw="R1 R2 B5 B6", turn=a, options=OPTS)


async def test_slash_play_autocomplete_and_refusals(loopback: LoopbackTest,
                                                    tables: dict[str, Channel]) -> None:
    ch = tables["slash_play"]
    alice, bob, _c = abc(ch)
    dave = ch.member("dave")
    choices = await alice.autocomplete("uno play", "card", "")
    assert [c["value"] for c in choices] == ["R3", "R5", "W+4"]
    assert [c["name"] for c in await alice.autocomplete("uno play", "card", "5")] == [
        "🟥 red 5 (R5)"]
    assert await bob.autocomplete("uno play", "card", "") == []
    assert await dave.autocomplete("uno play", "card", "") == []

    before = state(ch)
    refused(await alice.slash("uno play", card="B4"), "B4 does not match the red 9.")
    refused(await alice.slash("uno play", card="G1"), "You don't have G1.")
    refused(await alice.slash("uno play", card="Q5"), "is not")
    # characters Python counts as digits but that are not 0-9: the same refusal, not
    # "Something went wrong" (R-CODES-PARSE)
    for typed in ("R²", "B①", "Y¹U"):
        refused(await alice.slash("uno play", card=typed), f"'{typed}' is not a card: pick")
    # a colour outside the declared choices, as only a modified client sends it
    refused(await alice.slash_raw("uno play", card="W+4", color="X"),
            "The option color must be one of: red, blue, green, yellow; nothing was changed.")
    refused(await bob.slash("uno play", card="G6"), "It's alice's turn.")
    refused(await bob.slash("uno draw"), "It's alice's turn.")
    refused(await bob.click("Draw", message=table_message(ch)), "It's alice's turn.")
    refused(await dave.click("Draw", message=table_message(ch)),
            "You're not playing in this game.")
    refused(await dave.click("My hand", message=table_message(ch)),
            "You're not playing in this game.")
    refused(await dave.slash("uno play", card="R3"), "You're not playing in this game.")
    assert state(ch) == before

    mark = ch.mark()
    r = await alice.slash("uno play", card="r5")
    assert r.ephemeral
    s = state(ch)
    assert s["discard"][-1] == "R5" and hand(s, alice) == ["R3", "B4", "W+4"]
    assert s["turn"] == pid(bob)
    await said(ch, "alice plays 🟥 red 5.", mark)


@scenario
def stale_menu(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4 B4", b: "R5 R6 G1"}, discard="R9",
                            draw="G2 G3 G4 G5", turn=a, options=OPTS)


async def test_stale_hand_menu_is_refused(loopback: LoopbackTest,
                                          tables: dict[str, Channel]) -> None:
    ch = tables["stale_menu"]
    alice, bob, _c = abc(ch)
    shown = await alice.click("My hand")
    old = shown.message
    assert old is not None and options(old) == ["R3", "R4"]
    # the bot can't edit that panel any more (as when its token ran out): the new panel
    # My hand opens can't tell it that it moved, and it keeps its old buttons
    loopback.discord.fail_next("PATCH", panel_text_edit(shown), 404, code=10015, count=1)
    live = (await alice.click("My hand", message=table_message(ch))).message
    assert live is not None
    await play_card(alice, "R3", message=live)
    await bob.slash("uno play", card="R5")
    await panel_shows(ch, live, "Your turn")
    before = state(ch)
    assert before["turn"] == pid(alice) and options(old) == ["R3", "R4"]
    messages = len(alice.ephemerals())
    # a click on the out-of-date panel: nothing changes, the old panel never becomes the
    # live one again: its answer says where the hand is (no new message)
    r = await play_card(alice, "R4", message=old)
    assert r.response_type == 7 and r.message is old
    assert old.text() == "Your hand moved to a newer message below." and not old.buttons()
    assert "**Your hand** (2 cards)" in live.text() and options(live) == ["R4", "R4|u"]
    assert state(ch) == before and len(alice.ephemerals()) == messages
    await play_card(alice, "R4", message=live)
    assert (state(ch))["discard"][-1] == "R4"


@scenario
def stale_card(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4 B4", b: "R5 R6 G1"}, discard="R9",
                            draw="G2 G3 G4 G5", turn=a, options=OPTS)


async def test_a_card_the_panel_no_longer_shows_is_answered_in_the_panel(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """A click on a card that the bot's edit of the panel took away before the click landed
    (the person saw the panel as it was; Discord sends the message as it is now, without
    that button) is answered as any out-of-date click in a panel: the panel shows the hand
    as it is now with the reason on top, nothing changes, no new message. discord.py
    dropped such a click (it finds the item clicked in the message) and the person saw
    "This interaction failed"; the game cog hands it to its family
    (``cogs/uno/_families.missed_click``)."""
    ch = tables["stale_card"]
    alice, bob, _c = abc(ch)
    panel = (await alice.click("My hand")).message
    assert panel is not None and options(panel) == ["R3", "R4"]
    gone = next(str(b["custom_id"]) for b in panel.buttons()
                if str(b.get("custom_id", "")).endswith(":R3"))
    await play_card(alice, "R3", message=panel)
    await bob.slash("uno play", card="R5")
    await panel_shows(ch, panel, "Your turn")  # the bot's edit, as alice's turn comes
    assert gone not in [b.get("custom_id") for b in panel.buttons()]
    before, messages = state(ch), len(alice.ephemerals())
    st = await loopback.discord.send_interaction(
        itype=3, user=alice.identity, channel=ch,
        data={"custom_id": gone, "component_type": 2}, label="alice: R3, taken away",
        source_message=panel)
    assert st.ack is not None
    assert await asyncio.wait_for(asyncio.shield(st.ack), 3) == 7, "the panel is edited"
    await panel_shows(ch, panel, "That button was out of date: here is your hand as it is "
                                 "now.")
    assert "**Your hand** (2 cards)" in panel.text() and options(panel) == ["R4", "R4|u"]
    assert state(ch) == before and len(alice.ephemerals()) == messages


# ------------------------------------------------------------------ drawing
def _draw_scenario(ch: Channel, top_of_draw: str) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "B4 G5", b: "G6 G7 Y1"}, discard="R9",
                            draw=f"{top_of_draw} Y2 Y3 Y4", turn=a, options=OPTS)


@scenario
def draw_play(ch: Channel) -> Session:
    return _draw_scenario(ch, "R2")


@scenario
def draw_keep(ch: Channel) -> Session:
    return _draw_scenario(ch, "R2")


@scenario
def draw_unplayable(ch: Channel) -> Session:
    return _draw_scenario(ch, "B1")


async def test_draw_then_play_it(loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["draw_play"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    r = await alice.click("Draw", message=table_message(ch))
    assert r.ephemeral and "You drew 🟥 red 2 `R2`." in r.text
    assert "You drew 🟥 red 2: play it or keep it." in r.text
    # no card buttons here: the hand's line names each card once, by its label
    assert "**Your hand** (3 cards): 🟥 red 2, 🟦 blue 4, 🟩 green 5\n" in r.text, r.text
    assert r.message is not None and r.message.button_labels() == ["Play it", "Keep it"]
    s = state(ch)
    assert s["pending"] == "drawn" and hand(s, alice) == ["B4", "G5", "R2"]
    await said(ch, "alice draws a card.", mark)
    assert not bob.can_see("R2")
    mark = ch.mark()
    await alice.click("Play it", message=r.message)
    s = state(ch)
    assert s["discard"][-1] == "R2" and hand(s, alice) == ["B4", "G5"]
    assert s["turn"] == pid(bob)
    await said(ch, "alice plays 🟥 red 2.", mark)


async def test_draw_then_keep_it(loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["draw_keep"]
    alice, bob, _c = abc(ch)
    r = await alice.click("Draw", message=table_message(ch))
    assert r.message is not None
    mark = ch.mark()
    await alice.click("Keep it", message=r.message)
    s = state(ch)
    assert s["discard"][-1] == "R9" and hand(s, alice) == ["B4", "G5", "R2"]
    assert s["turn"] == pid(bob) and s["pending"] == "play"
    await said(ch, "alice keeps the drawn card.", mark)


async def test_unplayable_drawn_card_ends_the_turn(loopback: LoopbackTest,
                                                   tables: dict[str, Channel]) -> None:
    ch = tables["draw_unplayable"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    r = await alice.slash("uno draw")
    assert r.ephemeral and "You drew 🟦 blue 1 `B1`." in r.text
    assert r.message is not None and live_buttons(r.message) == []
    s = state(ch)
    assert hand(s, alice) == ["B4", "G5", "B1"] and s["turn"] == pid(bob)
    msg = await said(ch, "alice draws a card.", mark)
    assert f"<@{bob.id}>, it's your turn." in msg.text()
    assert "B1" not in msg.text()
    refused(await alice.slash("uno pass"), "It's bob's turn.")


# ------------------------------------------------------------------ grabs and blocks
@scenario
def grab_two(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "RG B4 G5", b: "G6 G7 Y1"}, discard="R9",
                            draw="Y2 Y3 Y4 Y5", towers={Tower.U: b}, turn=a, options=OPTS)


async def test_grab_two_towers_asks_for_two(loopback: LoopbackTest,
                                            tables: dict[str, Channel]) -> None:
    ch = tables["grab_two"]
    alice, bob, _c = abc(ch)
    r = await alice.click("My hand")
    assert r.message is not None
    await play_card(alice, "RG", message=r.message)
    assert "pick 2 towers to grab" in r.message.text()
    # both towers in one click: one button a pair, where each tower is now
    pairs = [str(b["custom_id"]).rsplit(":", 1)[1] for b in r.message.buttons()
             if str(b.get("custom_id", "")).startswith("uno:tb:")]
    assert pairs == ["UN", "UO", "U!", "NO", "N!", "O!"]
    assert "U (from bob) + O (from the tray)" in r.message.button_labels()
    assert (state(ch))["discard"][-1] == "R9"
    mark = ch.mark()
    await grab(alice, "UO", message=r.message)
    s = state(ch)
    assert s["towers"] == {"U": pid(alice), "N": None, "O": pid(alice), "!": None}
    assert s["discard"][-1] == "RG" and s["turn"] == pid(bob)
    msg = await said(ch, "grabs the O tower from the tray.", mark)
    assert "🏰 alice grabs the U tower from bob." in msg.text()


@scenario
def icon_grab(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R5U B4 G5", b: "G6 G7 Y1"}, discard="R9",
                            draw="Y2 Y3 Y4 Y5", towers={Tower.U: b}, turn=a, options=OPTS)


async def test_power_icon_grabs_its_tower(loopback: LoopbackTest,
                                          tables: dict[str, Channel]) -> None:
    ch = tables["icon_grab"]
    alice, _bob, _c = abc(ch)
    mark = ch.mark()
    await alice.slash("uno play", card="R5U")
    s = state(ch)
    assert s["towers"]["U"] == pid(alice)
    await said(ch, "🏰 alice grabs the U tower from bob.", mark)
    table = table_message(ch)
    assert "`U` alice" in table.text()


@scenario
def actions(ch: Channel) -> Session:
    a, b, c = abc(ch)
    return scenario_session(ch, [a, b, c],
                            hands={a: "BS R1 R2", b: "B+2 B+1 G1 G2", c: "BR Y1 Y2 Y3"},
                            discard="B9", draw="G7 G8 Y4 Y5 Y6", towers={Tower.N: a},
                            turn=a, options=OPTS)


async def test_skip_reverse_draw_and_block(loopback: LoopbackTest,
                                           tables: dict[str, Channel]) -> None:
    ch = tables["actions"]
    alice, bob, carol = abc(ch)
    mark = ch.mark()
    await alice.slash("uno play", card="BS")
    await said(ch, "bob is skipped.", mark)
    s = state(ch)
    assert s["turn"] == pid(carol) and len(hand(s, bob)) == 4
    mark = ch.mark()
    await carol.slash("uno play", card="BR")
    await said(ch, "Play reverses: it now goes ⬅️ right.", mark)
    s = state(ch)
    assert s["turn"] == pid(bob) and s["direction"] == -1
    # alice holds N: bob's Draw Two is blocked and alice plays
    mark = ch.mark()
    await bob.slash("uno play", card="B+2")
    await said(ch, "🛡️ alice's N tower blocks the 🟦 blue Draw Two!", mark)
    s = state(ch)
    assert hand(s, alice) == ["R1", "R2"] and s["turn"] == pid(alice)
    # alice draws; then carol and bob: the Draw One hits alice
    await alice.slash("uno draw")
    s = state(ch)
    assert s["turn"] == pid(carol)
    await carol.slash("uno draw")
    mark = ch.mark()
    await bob.slash("uno play", card="B+1")
    await said(ch, "alice draws 1.", mark)
    s = state(ch)
    assert len(hand(s, alice)) == 4 and s["turn"] == pid(carol)


# ------------------------------------------------------------------ Wild Draw Four
def _wd4(ch: Channel, alice_hand: str, towers: dict[Tower, Member | str | None] | None = None
         ) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: alice_hand, b: "G5 G6 G7"}, discard="B9",
                            draw="R2 R3 R4 R5 R6 R7 R8 Y1 Y2", towers=towers, turn=a,
                            options=OPTS)


@scenario
def wd4_guilty(ch: Channel) -> Session:
    return _wd4(ch, "W+4 B3 R1")


@scenario
def wd4_innocent(ch: Channel) -> Session:
    return _wd4(ch, "W+4 R1 G2")


@scenario
def wd4_accept(ch: Channel) -> Session:
    return _wd4(ch, "W+4 R1 G2")


@scenario
def wd4_blocked(ch: Channel) -> Session:
    b = ch.member("bob")
    return _wd4(ch, "W+4 R1 G2", towers={Tower.O: b})


@scenario
def wild_back(ch: Channel) -> Session:
    return _wd4(ch, "W+4 R1 G2")


async def test_back_leaves_a_cards_question_unanswered(loopback: LoopbackTest,
                                                       tables: dict[str, Channel]) -> None:
    """A wild's colour question in the panel has Back: nothing is played, the panel shows
    the hand again (no new message), and the card can still be played."""
    ch = tables["wild_back"]
    alice, _bob, _c = abc(ch)
    r = await alice.click("My hand")
    panel = r.message
    assert panel is not None
    before, messages = state(ch), len(alice.ephemerals())
    await play_card(alice, "W+4", message=panel)
    assert "pick the colour" in panel.text()
    back = await alice.click("Back", message=panel)
    assert back.response_type == 7 and back.message is panel
    assert "**Your hand** (3 cards)" in panel.text() and "pick the colour" not in panel.text()
    assert state(ch) == before and len(alice.ephemerals()) == messages
    assert "W+4" in options(panel)


@scenario
def question_hand(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "W+4 RG R1 G2 G2", b: "G5 G6 G7"},
                            discard="R9", draw="R2 R3 R4 R5 R6 R7 R8 Y1 Y2", turn=a,
                            options=OPTS)


async def test_a_cards_question_keeps_the_hand_in_view(loopback: LoopbackTest,
                                                        tables: dict[str, Channel]) -> None:
    """Issue 29: the colour question and the tower question take the place of the hand's
    buttons, but not of the hand: the question names the cards held (each once) and the
    panel keeps the hand's picture, so a colour is picked with the hand in view."""
    ch = tables["question_hand"]
    alice, _bob, _c = abc(ch)
    panel = (await alice.click("My hand", message=table_message(ch))).message
    assert panel is not None
    for _ in range(100):  # its picture follows the answer
        if panel.attachments:
            break
        await asyncio.sleep(0.05)
    picture = [a["filename"] for a in panel.attachments]
    assert picture and picture[0].startswith("hand-"), panel
    held = ("Your hand: 🟥 red 1, 🟥 red Grab-2-Towers, 🟩 green 2 ×2, "
            "🌈 Wild Draw Four")
    await play_card(alice, "W+4", message=panel)
    assert "pick the colour" in panel.text() and held in panel.text(), panel.text()
    assert [a["filename"] for a in panel.attachments] == picture
    await alice.click("Back", message=panel)
    await play_card(alice, "RG", message=panel)
    assert "pick 2 towers to grab" in panel.text() and held in panel.text(), panel.text()
    assert [a["filename"] for a in panel.attachments] == picture


async def _play_wd4(ch: Channel, alice: Member) -> None:
    r = await alice.click("My hand")
    assert r.message is not None
    await play_card(alice, "W+4", message=r.message)
    assert "pick the colour" in r.message.text()
    assert r.message.button_labels() == ["Red", "Blue", "Green", "Yellow", "Back"]
    await alice.click("Red", message=r.message)


async def test_wd4_challenge_guilty(loopback: LoopbackTest,
                                    tables: dict[str, Channel]) -> None:
    ch = tables["wd4_guilty"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    await _play_wd4(ch, alice)
    msg = await said(ch, "alice plays 🌈 Wild Draw Four and picks red.", mark)
    assert f"<@{bob.id}>: accept or challenge the Wild Draw Four." in msg.text()
    assert msg.button_labels()[-2:] == ["Accept +4", "Challenge"]
    s = state(ch)
    assert s["pending"] == "challenge" and s["turn"] == pid(bob)
    refused(await alice.slash("uno draw"), "bob must accept or challenge the Wild Draw Four")
    mark = ch.mark()
    r = await bob.click("Challenge", message=msg)
    assert r.ephemeral and ("alice's hand when the Wild Draw Four was played: 🟦 blue 3 `B3`, "
                            "🟥 red 1 `R1`") in r.text
    pub = await said(ch, "⚖️ bob challenges alice's Wild Draw Four: guilty! alice draws 4 and "
                         "bob plays.", mark)
    assert "B3" not in pub.text() and "🟦 blue 3" not in pub.text()
    assert not any("`B3`" in m.text() for m in ch.messages)
    assert not alice.can_see("alice's hand")
    s = state(ch)
    assert hand(s, alice) == ["B3", "R1", "R2", "R3", "R4", "R5"]
    assert len(hand(s, bob)) == 3 and s["turn"] == pid(bob) and s["pending"] == "play"


async def test_wd4_challenge_innocent(loopback: LoopbackTest,
                                      tables: dict[str, Channel]) -> None:
    ch = tables["wd4_innocent"]
    alice, bob, _c = abc(ch)
    await _play_wd4(ch, alice)
    mark = ch.mark()
    r = await bob.slash("uno challenge")
    assert "alice's hand when the Wild Draw Four was played: 🟥 red 1 `R1`, " \
           "🟩 green 2 `G2`" in r.text
    assert "You drew" in r.text
    await said(ch, "it was legal. bob draws 6.", mark)
    s = state(ch)
    assert len(hand(s, bob)) == 9 and hand(s, alice) == ["R1", "G2"]
    assert s["turn"] == pid(alice)  # two players: the Wild Draw Four's player goes again


async def test_wd4_accept(loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["wd4_accept"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    await _play_wd4(ch, alice)
    msg = await said(ch, "accept or challenge the Wild Draw Four.", mark)
    mark = ch.mark()
    r = await bob.click("Accept +4", message=msg)
    assert "You drew 🟥 red 2 `R2`, 🟥 red 3 `R3`, 🟥 red 4 `R4`, 🟥 red 5 `R5`." in r.text
    await said(ch, "bob accepts the Wild Draw Four and draws 4.", mark)
    s = state(ch)
    assert hand(s, bob) == ["G5", "G6", "G7", "R2", "R3", "R4", "R5"]
    assert s["turn"] == pid(alice)  # two players: alice goes again
    assert s["pending"] == "play"
    refused(await bob.slash("uno accept"), "It's alice's turn.")


async def test_blocked_wd4_cannot_be_challenged(loopback: LoopbackTest,
                                                tables: dict[str, Channel]) -> None:
    ch = tables["wd4_blocked"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    await _play_wd4(ch, alice)
    msg = await said(ch, "🛡️ bob's O tower blocks the 🌈 Wild Draw Four!", mark)
    assert msg.button_labels() == ["My hand", "Draw", "UNO!", "Catch"]
    s = state(ch)
    assert s["pending"] == "play" and s["turn"] == pid(bob) and len(hand(s, bob)) == 3
    refused(await bob.slash("uno challenge"), "There is no Wild Draw Four to accept or challenge.")
    assert state(ch) == s


# ------------------------------------------------------------------ UNO calls
def _uno(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4", b: "R5 G1 G2"}, discard="R9",
                            draw="Y2 Y3 Y4 Y5 Y6", turn=a, options=OPTS)


@scenario
def uno_with_play(ch: Channel) -> Session:
    return _uno(ch)


@scenario
def uno_caught(ch: Channel) -> Session:
    return _uno(ch)


@scenario
def uno_window(ch: Channel) -> Session:
    return _uno(ch)


async def test_play_and_call_uno_option(loopback: LoopbackTest,
                                        tables: dict[str, Channel]) -> None:
    ch = tables["uno_with_play"]
    alice, bob, _c = abc(ch)
    r = await alice.click("My hand")
    assert r.message is not None
    assert options(r.message) == ["R3", "R4", "R3|u", "R4|u"]
    assert "🟥 red 3 and call UNO!" in r.message.button_labels()
    mark = ch.mark()
    await play_card(alice, "R3", uno=True, message=r.message)
    await said(ch, "📣 alice calls UNO!", mark)
    s = state(ch)
    assert hand(s, alice) == ["R4"] and pid(alice) in s["called"]
    assert "**UNO!**" in table_message(ch).text()
    refused(await bob.click("Catch", message=table_message(ch)), "Nobody can be caught")
    assert state(ch) == s


async def test_forgot_uno_and_caught(loopback: LoopbackTest,
                                     tables: dict[str, Channel]) -> None:
    ch = tables["uno_caught"]
    alice, bob, _c = abc(ch)
    played = ch.mark()
    r = await alice.slash("uno play", card="R3")
    # the mover is reminded with an UNO! button of their own
    assert r.message is not None and live_buttons(r.message) == ["UNO!"]
    # a Catch acts on the table its user saw: the one that shows the play
    await said(ch, "alice plays 🟥 red 3.", played)
    await refused_in_panel(alice, await alice.click("Catch", message=table_message(ch)),
                           "Nobody can be caught")
    mark = ch.mark()
    await bob.click("Catch", message=table_message(ch))
    await said(ch, "🚨 bob caught alice without UNO: alice draws 2.", mark)
    s = state(ch)
    assert hand(s, alice) == ["R4", "Y2", "Y3"] and s["turn"] == pid(bob)
    await refused_in_panel(bob, await bob.click("Catch", message=table_message(ch)),
                           "Nobody can be caught")


async def test_catch_window_closes_after_next_move(loopback: LoopbackTest,
                                                   tables: dict[str, Channel]) -> None:
    ch = tables["uno_window"]
    alice, bob, _c = abc(ch)
    await alice.slash("uno play", card="R3")
    await bob.slash("uno play", card="R5")
    before = state(ch)
    refused(await bob.slash("uno catch", player=alice),
            "Too late: alice can't be caught any more.")
    assert state(ch) == before and hand(before, alice) == ["R4"]


# ------------------------------------------------------------------ instant UNO
def _instant(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R4! B3 G5 Y6", b: "G6 G7 Y1"},
                            discard="R9", draw="Y2 Y3 Y4 Y5",
                            towers={Tower.U: a, Tower.N: a, Tower.O: a}, turn=a,
                            options=OPTS)


@scenario
def instant_call(ch: Channel) -> Session:
    return _instant(ch)


@scenario
def instant_catch(ch: Channel) -> Session:
    return _instant(ch)


@scenario
def instant_keep_call(ch: Channel) -> Session:
    return _instant(ch)


async def _instant_keep(ch: Channel, alice: Member) -> InteractionResult:
    r = await alice.click("My hand")
    assert r.message is not None
    mark = ch.mark()
    await play_card(alice, "R4!", message=r.message)
    assert "Choose the one card to keep" in r.message.text()
    assert [str(b["custom_id"]).split(":", 4)[4] for b in r.message.buttons()] == [
        "B3", "B3:u", "G5", "G5:u", "Y6", "Y6:u"]
    await said(ch, "grabs the ! tower from the tray.", mark)
    s = state(ch)
    assert s["pending"] == "keep" and all(h == pid(alice) for h in s["towers"].values())
    mark = ch.mark()
    await alice.click("Keep 🟩 green 5", message=r.message)
    assert "You kept 🟩 green 5. Don't forget to call UNO!" in r.message.text()
    msg = await said(ch, "instant UNO!** 2 cards go to the discard pile.", mark)
    assert "The towers go back to the tray." in msg.text()
    s = state(ch)
    assert hand(s, alice) == ["G5"]
    assert s["towers"] == {"U": None, "N": None, "O": None, "!": None}
    return r


async def test_instant_uno_then_call(loopback: LoopbackTest,
                                     tables: dict[str, Channel]) -> None:
    ch = tables["instant_call"]
    alice, bob, _c = abc(ch)
    r = await _instant_keep(ch, alice)
    assert r.message is not None and "UNO!" in r.message.button_labels()
    mark = ch.mark()
    await alice.click("UNO!", message=r.message)
    await said(ch, "📣 alice calls UNO!", mark)
    refused(await bob.click("Catch", message=table_message(ch)), "Nobody can be caught")
    assert hand(state(ch), alice) == ["G5"]


async def test_instant_uno_keep_and_call_in_one_step(loopback: LoopbackTest,
                                                     tables: dict[str, Channel]) -> None:
    """The keep menu also offers "keep it and call UNO!": the keeper can't be caught."""
    ch = tables["instant_keep_call"]
    alice, bob, _c = abc(ch)
    r = await alice.click("My hand")
    assert r.message is not None
    await play_card(alice, "R4!", message=r.message)
    before = state(ch)
    refused(await alice.slash("uno keep", card="G⁵"), "'G⁵' is not a card: pick")
    assert state(ch) == before
    mark = ch.mark()
    await alice.click("Keep 🟩 green 5 and call UNO!", message=r.message)
    await said(ch, "📣 alice calls UNO!", mark)
    refused(await bob.click("Catch", message=table_message(ch)), "Nobody can be caught")
    s = state(ch)
    assert hand(s, alice) == ["G5"] and pid(alice) in s["called"]


async def test_instant_uno_then_caught(loopback: LoopbackTest,
                                       tables: dict[str, Channel]) -> None:
    ch = tables["instant_catch"]
    alice, bob, _c = abc(ch)
    await _instant_keep(ch, alice)
    mark = ch.mark()
    await bob.slash("uno catch", player=alice)
    await said(ch, "bob caught alice without UNO: alice draws 2.", mark)
    assert hand(state(ch), alice) == ["G5", "Y2", "Y3"]


# ------------------------------------------------------------------ kick and end
@scenario
def kick(ch: Channel) -> Session:
    a, b, c = abc(ch)
    return scenario_session(ch, [a, b, c], hands={a: "R3 R4", b: "B1 B2 B3", c: "R5 G1"},
                            discard="R9", draw="Y2 Y3", turn=a, options=OPTS)


async def test_kick_by_host_only(loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["kick"]
    alice, bob, carol = abc(ch)
    before = state(ch)
    refused(await carol.slash("uno kick", player=bob),
            "Only the host or a member with Manage Server can do that.")
    refused(await alice.slash("uno kick", player=ch.member("dave")), "is not in this game.")
    assert state(ch) == before
    mark = ch.mark()
    r = await alice.slash("uno kick", player=bob)
    refused(r, "was removed.")
    msg = await said(ch, "bob left the game; their cards go under the draw pile.", mark)
    assert "bob was removed from the game by Alice." in msg.text()
    s = state(ch)
    assert s["players"] == [pid(alice), pid(carol)]
    assert len(s["draw"]) == 5 and sorted(s["draw"][:3]) == ["B1", "B2", "B3"]
    assert s["draw"][-1] == "Y2"  # the top of the draw pile is unchanged
    # the game goes on
    refused(await bob.slash("uno draw"), "You're not playing in this game.")
    await alice.slash("uno play", card="R3")
    s = state(ch)
    assert s["turn"] == pid(carol)


@scenario
def end_game(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3", b: "B1 B2 B3"}, discard="R9",
                            draw="Y2 Y3", turn=a, options=OPTS)


async def test_end_by_host_not_counted(loopback: LoopbackTest,
                                       tables: dict[str, Channel]) -> None:
    ch = tables["end_game"]
    alice, bob, _c = abc(ch)
    panel = (await bob.click("My hand")).message
    assert panel is not None and "**Your hand**" in panel.text()
    before = state(ch)
    refused(await bob.slash("uno end"), "Only the host or a member with Manage Server")
    assert state(ch) == before
    r = await confirmed_end(alice)
    assert not r.ephemeral
    assert "Alice ended the game. It does not count on the leaderboard." in r.text
    # bob's hand panel says so by itself, its buttons gone
    await panel_shows(ch, panel, "The game is over.")
    assert panel.buttons() == []
    db = db_of(ch)
    assert saved_state(db, ch) is None
    refused(await alice.slash("uno play", card="R3"), "There is no game in this channel")
    r = await bob.slash("uno stats")
    assert "Bob hasn't finished a game in this server yet." in r.text


# ------------------------------------------------------------------ a game ends
@scenario
def finish(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    opts = Options(turn_timer=600, target=100)
    return scenario_session(ch, [a, b], hands={a: "R3", b: "W+4 WG G+2 G5"}, discard="R9",
                            draw="Y2 Y3 Y4", turn=a, options=opts)


async def test_last_card_wins_and_leaderboard(loopback: LoopbackTest,
                                              tables: dict[str, Channel]) -> None:
    ch = tables["finish"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    await alice.slash("uno play", card="R3")
    await said(ch, "🎉 **alice** won the game!", mark)
    assert any("🏆 alice wins round 1 and scores 125 points!" in m.text()
               for m in ch.messages)
    db = db_of(ch)
    assert saved_state(db, ch) is None
    refused(await bob.slash("uno draw"), "The game is over: alice won.")

    r = await bob.slash("uno leaderboard")
    assert r.message is not None and not r.ephemeral
    text = r.message.text()
    assert "Leaderboard by wins" in text and "Page 1 of 2" in text
    assert f"**1.** <@{alice.id}>: 1 win in 1 game · 125 points" in text
    labels = {b["label"]: b for b in r.message.buttons()}
    assert labels["◀ Previous"].get("disabled") and not labels["Next ▶"].get("disabled")
    await bob.click("Next ▶", message=r.message)
    assert "Page 2 of 2" in r.message.text() and "**11.**" in r.message.text()
    assert "**13.**" in r.message.text() and f"<@{alice.id}>" not in r.message.text()
    assert f"<@{bob.id}>: 0 wins in 1 game · 0 points" in text + r.message.text()
    await bob.click("By points", message=r.message)
    assert "Leaderboard by points" in r.message.text()
    assert f"**1.** <@{alice.id}>" in r.message.text()

    r = await bob.slash("uno stats", member=alice)
    fields = {f["name"]: f["value"] for f in r.message.embeds[0]["fields"]} \
        if r.message else {}
    assert fields["Games played"] == "1" and fields["Games won"] == "1"
    assert fields["Points"] == "125" and fields["Rounds won"] == "1"

    # another server's leaderboard knows nothing of them
    zed = loopback.discord.guilds[1].member("zed")
    r = await zed.slash("uno leaderboard")
    assert "No games finished here yet" in r.text
    r = await zed.slash("uno stats")
    assert "hasn't finished a game in this server yet" in r.text


# ------------------------------------------------------------------ hand pages
PLAYABLE = ("R1U R1 R2N R2 R3O R3 R4! R4 R5U R5 R6N R6 R7O R7 R8! R8 R9 "
            "R+1 R+2 RS RR RG W+4 WG B9 G9 Y9")


@scenario
def paging(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: PLAYABLE + " B1 B2 B3 B4", b: "G1 G2"},
                            discard="G9 R9", draw="Y2 Y3", turn=a, options=OPTS)


async def test_hand_with_more_than_20_cards_pages(loopback: LoopbackTest,
                                                  tables: dict[str, Channel]) -> None:
    ch = tables["paging"]
    alice, _b, _c = abc(ch)
    r = await alice.click("My hand")
    assert r.message is not None and "(31 cards)" in r.text
    first = card_buttons(r.message, enabled=False)
    assert len(first) == 20  # four rows of five cards, the fifth row for Draw and More
    assert "More cards (2/2)" in r.message.button_labels()
    await alice.click("More cards (2/2)", message=r.message)
    second = card_buttons(r.message, enabled=False)
    assert sorted(first + second) == sorted([*PLAYABLE.split(), "B1", "B2", "B3", "B4"])
    assert sorted(options(r.message) + [c for c in first if c in PLAYABLE.split()]) == \
        sorted(PLAYABLE.split())
    assert "More cards (1/2)" in r.message.button_labels()
    card = options(r.message)[-1]
    await play_card(alice, card, message=r.message)
    if "pick the colour" in r.message.text():
        await alice.click("Green", message=r.message)
    if "to grab" in r.message.text():
        await grab(alice, "U", message=r.message)
    s = state(ch)
    assert s["discard"][-1] == card and card not in hand(s, alice)


# ------------------------------------------------------------------ computer players
@scenario
def cpu_turn(ch: Channel) -> Session:
    a, _b, _c = abc(ch)
    return scenario_session(ch, [a, "cpu1"], hands={a: "R3 G1 G2", "cpu1": "R5 R6 B1 B2"},
                            discard="R9", draw="Y2 Y3 Y4", turn=a, options=OPTS)


async def test_computer_player_moves_by_itself(loopback: LoopbackTest,
                                               tables: dict[str, Channel]) -> None:
    ch = tables["cpu_turn"]
    alice, _b, _c = abc(ch)
    mark = ch.mark()
    await alice.slash("uno play", card="R3")
    s = await poll_state(ch, lambda s: s["turn"] == pid(alice))
    assert len(hand(s, "cpu1")) == 3 and s["discard"][-1] in ("R5", "R6")
    msg = await said(ch, "cpu1 plays 🟥", mark)
    await said(ch, f"<@{alice.id}>, it's your turn.", mark)
    assert msg is not None

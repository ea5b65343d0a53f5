"""End to end through the loopback Discord: the end of a game.

A game played to its end shows its result in the channel (the final scores, winners first,
a picture of the standings, a Play again button; without Attach Files the same without the
picture); Play again opens a lobby with the same seats and settings, once; ``/uno end``
asks first, and only the host (or a member with Manage Server) confirms.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from cogs.uno.table.session import Options, Session
from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.users import InteractionResult
from support.driver import is_table
from support.e2e import FAST_ENV, db_of
from support.games import rows, saved_state, scenario_session
from support.tables import abc, open_tables, refused, registry

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.bot_env(**FAST_ENV)]

SCENARIOS, scenario = registry()
OPTS = Options(target=100, turn_timer=600, grab2_points=50, mention_turn=False,
               shuffle_seats=False)
"""Not the defaults: Play again must bring these back."""


def finishing(ch: Channel) -> Session:
    """Alice goes out with her last card; Bob's cards take her past the target of 100."""
    a, b, _c = abc(ch)
    session = scenario_session(ch, [a, "cpu1", b],
                               hands={a: "R3", b: "W+4 WG G+2 G5", "cpu1": "B1 B2"},
                               discard="R9", draw="Y2 Y3 Y4", turn=a, options=OPTS)
    for seat in session.seats:
        seat.name = {"cpu1": "CPU 1"}.get(seat.id, seat.name.capitalize())
    return session


@scenario
def finish(ch: Channel) -> Session:
    return finishing(ch)


@scenario
def finish_bare(ch: Channel) -> Session:
    return finishing(ch)


@scenario
def finish_hard(ch: Channel) -> Session:
    session = finishing(ch)
    session.seats[1].level = "hard"
    return session


@scenario
def cpu_wins(ch: Channel) -> Session:
    """Alice plays; then CPU 1 goes out with its last card, past the target of 100."""
    a, _b, _c = abc(ch)
    session = scenario_session(ch, [a, "cpu1"], hands={a: "R4 W+4 WG G+2", "cpu1": "R1"},
                               discard="R9", draw="Y2 Y3 Y4", turn=a, options=OPTS)
    session.seats[1].name = "CPU 1"
    return session


@scenario
def cancelled(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4 R5", b: "B1 B2 B3"}, discard="R9",
                            draw="Y2 Y3 Y4", turn=a, options=OPTS)


@scenario
def ending(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4 R5", b: "B1 B2 B3"}, discard="R9",
                            draw="Y2 Y3 Y4", turn=a, options=OPTS)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess
                 ) -> AsyncIterator[dict[str, Channel]]:
    yield await open_tables(loopback_discord, loopback_bot, SCENARIOS)


def unasked(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """A saved game without its open /uno end question, which asking saves (and with it
    the turn's time left, as any save does)."""
    if state is None:
        return None
    return {k: v for k, v in state.items() if k not in ("end_asked", "remaining")}


def result_of(ch: Channel) -> Message:
    return next(m for m in reversed(ch.messages)
                if m.embeds and "Final scores" in str(m.embeds[0].get("title")))


async def test_a_game_played_to_its_end_shows_its_result(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["finish"]
    alice, _bob, _carol = abc(ch)
    gid = saved_state(db_of(ch), ch)["game_id"]  # type: ignore[index]
    mark = ch.mark()
    await alice.slash("uno play", card="R3")
    await ch.wait_for(lambda m: bool(m.embeds) and "Final scores" in m.text(), after=mark,
                      timeout=10)
    result = result_of(ch)
    embed = result.embeds[0]
    lines = embed["description"].splitlines()
    assert lines[0] == "🎉 **Alice** won the game!", lines
    # every player and their points, the winner first (the round's points: RULES.md
    # section 9, the winner scores the cards left in the other hands)
    assert lines[2] == "🥇 **Alice**: 128 pts", lines
    assert {line.split("**")[1] for line in lines[2:]} == {"Alice", "Bob", "CPU 1"}
    assert sorted(lines[3:]) == ["🥈 **Bob**: 0 pts", "🥈 **CPU 1** 🤖: 0 pts"], lines
    # the picture of the standings, attached and shown
    name = f"result-{gid}.png"
    assert result.files[name].startswith(b"\x89PNG"), list(result.files)
    assert embed["image"]["url"] == f"attachment://{name}"
    assert result.button_labels() == ["Play again"]
    # the round's result came first, as before; who won the game is said once, by the
    # result (issue 29: the last move's lines said it too, right before)
    assert any("wins round 1" in m.text() and m.id < result.id for m in ch.messages)
    said = [m.text() for m in ch.messages if "won the game" in m.text()]
    assert said == [result.text()], said
    assert saved_state(db_of(ch), ch) is None


async def test_play_again_opens_the_same_seats_and_settings_once(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["finish"]
    alice, bob, carol = abc(ch)
    result = result_of(ch)
    refused(await carol.click("Play again", message=result),
            "Only the players of that game can start it again.")
    assert saved_state(db_of(ch), ch) is None, "a refusal opens nothing"
    # Alice and Bob press at once: one lobby, one clear refusal
    first, second = await asyncio.gather(bob.click("Play again", message=result),
                                         alice.click("Play again", message=result))
    answers = sorted([first, second], key=lambda r: r.ephemeral)
    opened, refusal = answers
    assert refusal.ephemeral and not opened.ephemeral, (first.text, second.text)
    assert ("Play again was already pressed for that game." in refusal.text
            or "A game is already open in this channel" in refusal.text), refusal.text
    who = "Bob" if opened is first else "Alice"
    assert f"{who} pressed Play again" in result.text() and result.buttons() == [], \
        "the result keeps its scores and picture, and loses its button"
    assert result.files and result.embeds
    lobby = await ch.wait_for(lambda m: "Join" in m.button_labels(), timeout=10)
    assert lobby.id > result.id, "the lobby is posted below the result"
    assert "same players and settings" in lobby.text() and "Leave" in lobby.text()
    text = lobby.text()
    assert "1. Alice" in text and "2. CPU 1 🤖" in text and "3. Bob" in text, text
    host, other = (bob, alice) if who == "Bob" else (alice, bob)
    assert f"{who} (host)" in text, text
    state = saved_state(db_of(ch), ch)
    assert state is not None and state["game"] is None
    assert [seat[0] for seat in state["seats"]] == [str(alice.id), "cpu1", str(bob.id)]
    assert Options.from_dict(state["options"]) == OPTS
    # a lobby like any other: whoever won't play leaves, the host starts
    await other.click("Leave", message=lobby)
    await host.click("Add computer player", message=lobby)
    r = await host.click("Start", message=lobby)
    assert "The game has started!" in r.text, r.text
    state = saved_state(db_of(ch), ch)
    assert state is not None and state["game"] is not None
    assert sorted(state["game"]["players"]) == sorted([str(host.id), "cpu1", "cpu2"]), \
        "the same computer player, and a new one with a new id"
    assert state["options"]["target"] == 100


async def test_play_again_keeps_the_computer_players_levels(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """A hard computer player comes back hard (issue 29: it came back normal)."""
    ch = tables["finish_hard"]
    alice, _bob, _carol = abc(ch)
    mark = ch.mark()
    await alice.slash("uno play", card="R3")
    await ch.wait_for(lambda m: bool(m.embeds) and "Final scores" in m.text(), after=mark,
                      timeout=10)
    await alice.click("Play again", message=result_of(ch))
    lobby = await ch.wait_for(lambda m: "Join" in m.button_labels(), after=mark, timeout=10)
    assert "2. CPU 1 🤖 hard" in lobby.text(), lobby.text()
    state = saved_state(db_of(ch), ch)
    assert state is not None and [seat[4] for seat in state["seats"]] == [
        "normal", "hard", "normal"]
    r = await alice.click("Start", message=lobby)
    assert "The game has started!" in r.text, r.text
    table = await ch.wait_for(is_table, after=mark, timeout=10)
    assert "CPU 1** 🤖 hard" in table.text(), table.text()


async def test_without_attach_files_the_result_goes_without_its_picture(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["finish_bare"]
    alice, _bob, _carol = abc(ch)
    ch.set_bot_permissions(attach_files=False)
    mark = ch.mark()
    await alice.slash("uno play", card="R3")
    await ch.wait_for(lambda m: bool(m.embeds) and "Final scores" in m.text(), after=mark,
                      timeout=10)
    result = result_of(ch)
    assert not result.files and "image" not in result.embeds[0]
    assert "🥇 **Alice**: 128 pts" in result.embeds[0]["description"]
    assert result.button_labels() == ["Play again"]
    assert not loopback.discord.take_refused(), "the bot tried no upload"


async def test_end_asks_first_and_only_the_host_confirms(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["ending"]
    alice, bob, _carol = abc(ch)
    before = saved_state(db_of(ch), ch)
    assert before is not None
    refused(await bob.slash("uno end"), "Only the host or a member with Manage Server")
    r = await alice.slash("uno end")
    question = r.message
    assert question is not None and not r.ephemeral
    assert question.button_labels() == ["Confirm", "Cancel"]
    assert "within 30 seconds" in question.text() and "nothing ends" in question.text()
    assert unasked(saved_state(db_of(ch), ch)) == unasked(before), "asking ends nothing"
    refused(await bob.click("Confirm", message=question),
            "Only the host or a member with Manage Server can do that.")
    refused(await bob.click("Cancel", message=question),
            "Only the host or a member with Manage Server can do that.")
    assert unasked(saved_state(db_of(ch), ch)) == unasked(before) and \
        question.button_labels() == ["Confirm", "Cancel"], "a non-host's click changes nothing"
    await alice.click("Cancel", message=question)
    assert "Alice cancelled: nothing was ended." in question.text() and not question.buttons()
    assert unasked(saved_state(db_of(ch), ch)) == unasked(before)
    r = await alice.slash("uno play", card="R3")
    assert r.ephemeral and "Your hand" in r.text, r.text
    state = saved_state(db_of(ch), ch)
    assert state is not None and state["game"]["discard"][-1] == "R3", "the game goes on"

    # confirmed: it ends, uncounted, with no result and no Play again
    seen = len(ch.messages)
    r = await alice.slash("uno end")
    question = r.message
    assert question is not None
    await alice.click("Confirm", message=question)
    assert "Alice ended the game. It does not count on the leaderboard." in question.text()
    assert not question.buttons() and saved_state(db_of(ch), ch) is None
    refused(await alice.slash("uno end"), "There is no game in this channel")
    await asyncio.sleep(0.5)
    assert not any("Final scores" in m.text() for m in ch.messages[seen:])
    assert rows(db_of(ch), "SELECT COUNT(*) FROM game_results WHERE channel_id = ?",
                ch.id)[0][0] == 0, "an ended game does not count"


async def test_cancel_is_final(loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """The host cancels /uno end's question; a moderator's Confirm within the 30 seconds,
    on the message as it is now or on the copy their client still shows (the same button),
    ends nothing and says the question was cancelled (issue 29: it ended the game). A new
    /uno end asks again, and its Confirm ends the game."""
    ch = tables["cancelled"]
    alice, _bob, _carol = abc(ch)
    mod = ch.member("mod", manage_guild=True)
    question = (await alice.slash("uno end")).message
    assert question is not None
    confirm = next(str(b["custom_id"]) for b in question.buttons()
                   if b.get("label") == "Confirm")
    await alice.click("Cancel", message=question)
    assert "Alice cancelled: nothing was ended." in question.text() and not question.buttons()
    before = saved_state(db_of(ch), ch)
    assert before is not None
    st = await loopback.discord.send_interaction(
        itype=3, user=mod.identity, channel=ch,
        data={"custom_id": confirm, "component_type": 2},
        label="mod: Confirm, on the copy their client still shows", source_message=question)
    assert st.ack is not None
    await asyncio.wait_for(asyncio.shield(st.ack), 3)
    late = InteractionResult(st, st.ack.result())
    refused(late, "That question was cancelled: nothing was ended.")
    assert late.text.count(".") == 1, late.text
    assert saved_state(db_of(ch), ch) == before, "the game goes on"
    assert "Alice cancelled: nothing was ended." in question.text()
    r = await alice.slash("uno play", card="R3")
    assert r.ephemeral and "Your hand" in r.text, r.text

    again = (await alice.slash("uno end")).message
    assert again is not None
    await mod.click("Confirm", message=again)
    assert "Mod ended the game." in again.text() and saved_state(db_of(ch), ch) is None


async def test_right_after_a_computer_player_wins_the_hand_says_the_game_is_over(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """A computer player wins; until the channel says so, and after, /uno hand says the
    game is over and who won (issue 29: for half a second it said there was no game in
    the channel, while the table still showed it)."""
    ch = tables["cpu_wins"]
    alice, _bob, _carol = abc(ch)
    seen = len(ch.messages)
    await alice.slash("uno play", card="R4")
    answers: list[tuple[str, bool]] = []
    for _ in range(60):
        r = await alice.slash("uno hand")
        posted = any("Final scores" in m.text() for m in ch.messages[seen:])
        answers.append((r.text, posted))
        if posted and len(answers) > 3:
            break
        await asyncio.sleep(0.02)
    assert [m.text().count("won the game") for m in ch.messages[seen:]
            if "won the game" in m.text()] == [1], "said once, by the result"
    assert not any("There is no game" in text for text, _posted in answers), answers
    over = [posted for text, posted in answers if text == "The game is over: CPU 1 won."]
    assert over and not over[0], ("said before the result was posted", answers)
    assert all("Your hand" in text or text == "The game is over: CPU 1 won."
               for text, _posted in answers), [a for a in answers if "Your hand" not in a[0]]

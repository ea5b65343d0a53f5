"""End to end: seats while a game runs (issue 31; RULES.md R-BOT-JOIN, R-BOT-WARM,
R-JOIN-NEXT, R-JOIN-SCORE). Carol asks for a seat with /uno join while Alice and Bob play;
Bob leaves and a computer player plays his turn; the bot is killed and restarted, and
both the waiting list and the warm seat survive; Bob takes his seat back from the table
and Carol sits down when the next round is dealt."""

from __future__ import annotations

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.users import Member
from support.driver import turn_of
from support.e2e import FAST_ENV, db_of, play_card
from support.games import install, saved_state, scenario_session
from support.tables import LONG_TURNS, abc, end_game, pid

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.bot_env(**FAST_ENV)]


def live(m: Message) -> bool:
    return "Draw" in m.button_labels()


async def table_for(ch: Channel, member: Member, after: int = 0) -> Message:
    return await ch.wait_for(lambda m: live(m) and turn_of(m) == member.id, after=after,
                             timeout=15)


async def test_a_seat_at_the_next_round_and_a_seat_kept_warm_across_a_restart(
        loopback: LoopbackTest) -> None:
    db = db_of(loopback)
    ch = loopback.channel
    alice, bob, carol = abc(ch)
    await install(db, scenario_session(
        ch, [alice, bob], hands={alice: "R3 R4", bob: "R6 R7 R8 G1"}, discard="R9",
        draw="Y1 Y2 Y3 Y4 Y5 Y6", turn=alice, scores={alice: 40, bob: 25},
        options=LONG_TURNS))
    await loopback.bot.restart()
    await table_for(ch, alice)

    # Carol asks; the table lists her
    r = await carol.slash("uno join")
    assert "Carol asks for a seat at the next round." in r.text, r.text
    await ch.wait_for(lambda m: live(m) and "Waiting for the next round**\nCarol" in m.text(),
                      timeout=10)

    # Bob leaves: a computer player keeps his seat and plays his turn
    r = await bob.slash("uno leave")
    assert r.ephemeral and "You left the game." in r.text, r.text
    await ch.wait_for(lambda m: "🤖 bob left: a computer player keeps their seat warm"
                      in m.text(), timeout=10)
    await alice.click("My hand")
    mark = ch.mark()
    r = await play_card(alice, "R3", uno=True)
    assert r.response_type == 7, r.text
    table = await table_for(ch, alice, after=mark)
    assert "**bob** 🤖 for bob" in table.text(), table.text()
    state = saved_state(db, ch)
    assert state is not None and len(state["game"]["hands"][pid(bob)]) == 3, \
        "the computer player played Bob's turn from his own hand"
    assert state["stand_ins"] == [pid(bob)] and state["game"]["waiting"] == [pid(carol)]

    # a kill -9 and a restart: both survive
    await loopback.bot.kill()
    mark = ch.mark()
    await loopback.bot.start()
    table = await table_for(ch, alice, after=mark)
    assert "**bob** 🤖 for bob" in table.text() and "Waiting for the next round" in table.text()
    refused = await bob.click("Draw", message=table)
    assert "A computer player keeps your seat warm" in refused.text, refused.text

    # Bob takes his seat back from the table: his hand panel answers
    r = await bob.click("Back to my seat", message=table)
    assert r.ephemeral and "You're back in your seat." in r.text, r.text
    state = saved_state(db, ch)
    assert state is not None and state["stand_ins"] == []

    # Alice goes out: the next round seats Carol at the lowest score at the table
    mark = ch.mark()
    await alice.click("My hand")
    r = await play_card(alice, "R4")
    assert r.response_type == 7, r.text
    await ch.wait_for(lambda m: "🪑 Carol sits down at the table with 25 points." in m.text(),
                      after=mark, timeout=10)
    state = saved_state(db, ch)
    assert state is not None and pid(carol) in state["game"]["players"]
    assert len(state["game"]["hands"][pid(carol)]) == 7 and state["game"]["waiting"] == []
    r = await end_game(alice)
    assert "ended the game" in r.text, r.text

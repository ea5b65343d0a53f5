"""End to end: a clean stop, as `docker compose stop` gives one (SIGTERM, then 20 s before
SIGKILL). SIGTERM arrives while a move is being handled (its save held up by another
program's lock on the file) and while a turn timer runs in another game: the move in flight
is finished, saved and answered; a click made during the stop is answered "The bot is
restarting" in the clicker's language; the turn timers' time left is saved; the process
exits 0 within the grace period. Started again on the same database, every game carries
on from where it was: the hand, the turn, the time left roughly kept, the next move made.
"""

from __future__ import annotations

import asyncio
import signal

import pytest

from cogs.uno.table.session import Options
from loopback.fixtures import LoopbackTest
from support.dblock import DbLock
from support.driver import turn_of
from support.e2e import FAST_ENV, db_of
from support.games import install, saved_state, scenario_session

SCALE = 0.3
TURN = 60 * SCALE
"""A turn of Options(turn_timer=60), in seconds."""
GRACE_PERIOD = 20.0
"""compose.yaml's stop_grace_period."""
RESTARTING = "The bot is restarting: try again in a moment."

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, UNO_TIME_SCALE=str(SCALE))]


async def test_sigterm_mid_move_finishes_it_refuses_new_clicks_and_loses_nothing(
        loopback: LoopbackTest) -> None:
    db = db_of(loopback)
    bot = loopback.bot
    ch_a = loopback.channel
    ch_b = loopback.guild.new_channel()
    alice, bob = ch_a.member("alice"), ch_a.member("bob")
    carol, dan = ch_b.member("carol"), ch_b.member("dan")
    a = scenario_session(ch_a, [alice, bob], hands={alice: "R3 B4 G5", bob: "R5 G6 G7"},
                         discard="R9", draw="G1 G2 G3 G4 B1 B2 B6 B8", turn=alice,
                         options=Options(turn_timer=60))
    b = scenario_session(ch_b, [carol, dan], hands={carol: "B3 B4 G5", dan: "R5 G6 G7"},
                         discard="B9", draw="G1 G2 G3 G4 B1 B2 B6 B8", turn=carol,
                         options=Options(turn_timer=60))
    await install(db, a, b)
    mark_a, mark_b = ch_a.mark(), ch_b.mark()
    await bot.restart()
    await ch_a.wait_for(lambda m: "goes on" in m.text(), after=mark_a, timeout=15)
    await ch_b.wait_for(lambda m: "goes on" in m.text(), after=mark_b, timeout=15)
    carol_before = saved_state(db, ch_b)
    assert carol_before is not None

    loop = asyncio.get_running_loop()
    lock = DbLock(db, "IMMEDIATE")  # alice's save waits for it (within the busy timeout)
    try:
        played = await alice.slash("uno play", card="R3")
        assert played.response_type == 5, f"the move is still being saved: {played!r}"
        assert bot.proc is not None
        stopped_at = loop.time()
        bot.proc.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.3)  # the signal is handled: the bot is stopping
        assert bot.running, "the move in flight holds the stop"
        # carol clicks now; her answer takes a second to reach Discord, and meanwhile the
        # save in flight ends and with it the stop's work: the stop waits for her answer
        loopback.discord.delay_next("POST", "/interactions/{iid}/{token}/callback", 1.0)
        clicked = asyncio.create_task(carol.slash("uno play", card="B3"))
        await asyncio.sleep(0.3)
        lock.release()
        refused = await clicked
        answer = await played.wait_done(timeout=10)
    finally:
        lock.release()
    # a click during the stop: one short sentence, private (in the reader's language: it
    # is one of the catalogue's sentences, translated as every refusal is)
    assert refused.ephemeral and refused.text == RESTARTING, refused.text
    # the move in flight was finished and its player told so
    assert answer.ephemeral and "couldn't be saved" not in answer.text(), answer.text()
    assert bot.proc is not None
    code = await asyncio.wait_for(bot.proc.wait(), GRACE_PERIOD)
    took = loop.time() - stopped_at
    assert code == 0, bot.log_tail()
    assert took < GRACE_PERIOD, f"the stop took {took:.1f} s"
    assert not bot.take_tracebacks()

    # nothing lost: alice's move is saved, bob's turn with its time left; carol's click
    # changed nothing and her timer's time left was saved too
    saved_a = saved_state(db, ch_a)
    assert saved_a is not None
    assert saved_a["game"]["hands"][str(alice.id)] == ["B4", "G5"]
    assert saved_a["game"]["discard"][-1] == "R3"
    assert saved_a["remaining"] is not None and TURN - 6 <= saved_a["remaining"] <= TURN, \
        saved_a["remaining"]
    saved_b = saved_state(db, ch_b)
    assert saved_b is not None and saved_b["game"] == carol_before["game"]
    assert saved_b["remaining"] is not None and saved_b["remaining"] <= TURN

    # started again on the same database: both games carry on, playable to the next move
    mark_a, mark_b = ch_a.mark(), ch_b.mark()
    await bot.start()
    table = await ch_a.wait_for(lambda m: "My hand" in m.button_labels()
                                and turn_of(m) == bob.id, after=mark_a, timeout=15)
    assert "R3" in table.text() or table.attachments or table.embeds, table.text()
    r = await bob.slash("uno play", card="R5")
    assert "couldn't be saved" not in r.text and r.ephemeral, r.text
    after = saved_state(db, ch_a)
    assert after is not None and after["game"]["hands"][str(bob.id)] == ["G6", "G7"]
    assert after["game"]["discard"][-2:] == ["R3", "R5"]
    await ch_b.wait_for(lambda m: "goes on" in m.text(), after=mark_b, timeout=15)
    r = await carol.slash("uno play", card="B3")
    assert r.ephemeral and "B3" not in str(saved_state(db, ch_b)["game"]["hands"][
        str(carol.id)]), r.text
    assert not bot.take_tracebacks()

"""End to end: computer players' levels in Discord (through the loopback).

A person adds a hard computer player with ``/uno addcpu level:hard`` and an easy one with the
lobby's button; both show their level on the lobby and on the table; a round is played to
its end against them, the hard player's moves coming from its search in a worker process
(the bot's log says when the first search came back)."""

from __future__ import annotations

import random
import re

import pytest

from loopback.fixtures import LoopbackTest
from support.driver import Human, PrivacyWatch, Stats, is_table, play_until_won
from support.e2e import FAST_ENV, db_of
from support.games import saved_state

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, UNO_TIME_SCALE="0.05", UNO_SEARCH_WORKERS="1")]


async def test_a_round_against_a_hard_computer_player(loopback: LoopbackTest) -> None:
    db = db_of(loopback)
    channel = loopback.channel
    rng = random.Random(19)
    stats = Stats()
    watch = PrivacyWatch(db, channel)
    alice = loopback.member("alice")
    human = Human(alice, rng, stats, watch, forget=0.0, challenge=0.5)

    await alice.slash("uno new")
    await alice.slash("uno settings", turn_timer=600, target=100)
    r = await alice.slash("uno addcpu", level="hard")
    assert "CPU 1 takes a seat" in r.text, r.text
    added = await alice.click("Add easy computer player")
    # the click is answered before the lobby's edit lands: wait for the edit
    try:
        lobby = await channel.wait_for(lambda m: "Join" in m.button_labels()
                                       and "CPU 2 🤖 easy" in m.text())
    except AssertionError as e:
        raise AssertionError(f"{e}\nthe click: {added.response_type} {added.text!r}\n"
                             f"{loopback.bot.log_text()[-3000:]}") from None
    assert "CPU 1 🤖 hard" in lobby.text() and "CPU 2 🤖 easy" in lobby.text(), lobby.text()
    state = saved_state(db, channel)
    assert state is not None
    assert [s[4] for s in state["seats"]] == ["normal", "hard", "easy"]

    await alice.click("Start")
    table = await channel.wait_for(is_table)
    assert "CPU 1** 🤖 hard" in table.text() and "CPU 2** 🤖 easy" in table.text(), \
        table.text()

    won = await play_until_won(channel, [human], rng, won="wins round 1")
    assert won is not None and re.search(r"wins round 1 and scores \d+ points", won.text())
    assert not stats.refusals, stats.refusals
    assert not watch.violations, "\n".join(watch.violations[:20])
    log = loopback.bot.log_text()
    assert "The first search of a hard computer player took" in log, log[-2000:]
    assert "plays normal" not in log, "every search was made"

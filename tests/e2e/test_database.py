"""End to end: the database file deleted under the running bot (issue 7, item 9). Every
later move is refused with "nothing changed" and announced nowhere; the bot says once, in
its log, what happened. Its own module: the bot of this module ends with no database."""

from __future__ import annotations

import asyncio
import contextlib
import os

import pytest

from loopback.fixtures import LoopbackTest
from support.e2e import FAST_ENV, db_of
from support.games import install, scenario_session

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


async def test_a_deleted_database_file_refuses_moves_and_says_so(
        loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    channel = loopback.channel
    session = scenario_session(channel, [alice, bob], hands={alice: "R3 B4 G5", bob: "G6 G7"},
                               discard="R9", draw="Y1 Y2 Y3", turn=alice)
    db = db_of(loopback)
    await install(db, session)
    await loopback.bot.restart()
    await channel.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(db + suffix)
    mark = channel.mark()
    for _ in range(2):
        r = await alice.slash("uno play", card="R3")
        assert r.ephemeral and "couldn't be saved, so nothing changed" in r.text, r.text
    hand = await alice.slash("uno hand")
    assert "**Your hand** (3 cards)" in hand.text, "the move did not happen"
    await asyncio.sleep(1.5)
    assert not any("plays" in m.text() for m in channel.messages if m.change_seq > mark)
    log = loopback.bot.log_text()
    assert log.count("was deleted or replaced while the bot was running") == 1, \
        "said once, not once per write"
    assert not loopback.bot.take_tracebacks()

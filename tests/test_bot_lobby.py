"""End to end through the loopback Discord: the lobby and starting a game."""

from __future__ import annotations

import pytest
from loopback.fixtures import *  # noqa: F403
from loopback.fixtures import LoopbackTest

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_new_join_cpu_start(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    bob = loopback.member("bob")
    r = await alice.slash("uno new")
    assert "new game" in r.text.lower() or r.message is not None
    await bob.click("Join")
    await alice.click("Add computer player")
    lobby = alice.sees()[-1]
    print(lobby)
    await alice.click("Start")
    msg = await loopback.channel.wait_for(lambda m: "round" in m.text().lower(), timeout=10)
    print(msg.text())
    r = await alice.click("My hand")
    print(r.text)

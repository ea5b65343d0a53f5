"""The loopback gateway's heartbeats, as the demo bot (an unmodified discord.py client, its
own process) lives with them."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from loopback.fixtures import LoopbackTest
from loopback.server import LoopbackDiscord

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

INTERVAL = 10.5
"""Seconds between heartbeats: the shortest that discord.py would warn about (it warns
"Can't keep up, shard ID None websocket is 10.5s behind" when a heartbeat's ACK seems to
come more than 10 s after it), to see a few without waiting Discord's 41.25 s."""


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_command() -> list[str]:
    return [sys.executable, "loopback/demo_bot.py"]


@pytest_asyncio.fixture(scope="module", loop_scope="module", name="loopback_discord")
async def quick_heartbeats() -> AsyncIterator[LoopbackDiscord]:
    async with LoopbackDiscord() as discord_:
        discord_.add_guild("Test")
        discord_.gateway.heartbeat_interval = INTERVAL
        yield discord_


async def test_no_false_cant_keep_up(loopback: LoopbackTest) -> None:
    """Two heartbeats after the one sent on HELLO, each ACKed: discord.py never says it
    "can't keep up" (it did at every heartbeat, "41.3s behind" at Discord's interval: an
    ACK sent at once reached it before its keep-alive thread had noted when the heartbeat
    went out, so it measured the ACK from the heartbeat before)."""
    gateway = loopback.discord.gateway
    start = gateway.heartbeats
    deadline = asyncio.get_running_loop().time() + 3 * INTERVAL
    while gateway.heartbeats < start + 2:
        assert asyncio.get_running_loop().time() < deadline, "the bot stopped heartbeating"
        await asyncio.sleep(0.1)
    await asyncio.sleep(1.0)  # the last ACK, read and measured
    log = loopback.bot.log_text()
    assert "Can't keep up" not in log, log[-2000:]

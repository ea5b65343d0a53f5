"""End to end: after a restart every table's notice queues for the channel route (the bot
keeps to UNO_CHANNEL_WRITES a second for the whole process, here 1 to make the queue
long); a click in a channel whose notice is still waiting brings a webhook, and the
notice and its table go through it at once instead of waiting for the channel's turn
(R-BOT-RESTART, R-BOT-TABLE)."""

from __future__ import annotations

import asyncio
import time

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Channel
from support.e2e import FAST_ENV, card_buttons, db_of
from support.games import install
from support.tables import pair

TABLES = 8


def noticed(ch: Channel) -> bool:
    """The restart notice is in the channel."""
    return any("goes on" in m.text() for m in ch.messages)


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, UNO_CHANNEL_WRITES="1")]


async def test_a_click_carries_its_channels_restart_notice_at_once(
        loopback: LoopbackTest) -> None:
    guild = loopback.discord.guilds[0]
    channels = [guild.new_channel(f"notice-{i}") for i in range(TABLES)]
    await install(db_of(loopback), *(pair(ch) for ch in channels))
    await loopback.bot.restart()
    # At one channel write a second the eight notices take about eight seconds (room for a
    # loaded machine to look late): the first goes out, the others wait their turn.
    deadline = time.monotonic() + 15
    while not any(map(noticed, channels)) and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.02)
    waiting = [ch for ch in channels if not noticed(ch)]
    assert 2 <= len(waiting) < TABLES, "the notices are queued one a second"
    ch = waiting[-1]
    alice = ch.member("alice")
    clicked = time.monotonic()
    r = await alice.slash("uno hand")
    assert r.message is not None and "R3" in card_buttons(r.message, enabled=False), r
    notice = await ch.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    took = time.monotonic() - clicked
    assert notice.webhook_id is not None, "posted through the click's webhook"
    still = [c for c in waiting if c is not ch and not noticed(c)]
    assert still, f"the clicked channel went ahead of the queue ({took:.2f} s)"
    assert not loopback.discord.rate_limited, loopback.discord.rate_limited

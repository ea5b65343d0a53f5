"""The outbox keeps an answered interaction as its token, not the interaction itself."""

from __future__ import annotations

import asyncio
import datetime
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from cogs.uno._outbox import _Channel
from cogs.uno._pacing import Token, settled
from cogs.uno._table_post import TablePost, TableStyle


def interaction(done: bool, kind: discord.InteractionResponseType | None,
                age: float = 1.0) -> Any:
    response = SimpleNamespace(is_done=lambda: done, type=kind)
    created = discord.utils.utcnow() - datetime.timedelta(seconds=age)
    return SimpleNamespace(id=42, response=response, created_at=created, followup="webhook")


def channel() -> _Channel:
    return _Channel(guild_id=1, post=TablePost(TableStyle()))


def test_an_answered_interaction_becomes_its_token() -> None:
    box = channel()
    box.carrier = interaction(True, discord.InteractionResponseType.channel_message)
    box.carrier = settled(box.carrier)
    assert isinstance(box.carrier, Token)
    assert box.carrier.id == 42 and box.carrier.webhook == "webhook"
    token = box.carrier
    box.carrier = settled(box.carrier)
    assert box.carrier is token


def test_an_unanswered_interaction_is_kept_until_it_is_answered() -> None:
    box = channel()
    waiting = box.carrier = interaction(False, None)
    box.carrier = settled(box.carrier)
    assert box.carrier is waiting


def test_an_interaction_that_can_carry_nothing_is_dropped() -> None:
    box = channel()
    box.carrier = interaction(True, discord.InteractionResponseType.deferred_channel_message)
    box.carrier = settled(box.carrier)
    assert box.carrier is None
    box.carrier = interaction(True, discord.InteractionResponseType.channel_message, age=9999)
    box.carrier = settled(box.carrier)
    assert box.carrier is None
    box.carrier = settled(box.carrier)
    assert box.carrier is None


# ---------------------------------------------------------------- a waiting post and a click
# A post waiting for the channel route's turn (after a restart, every table's notice does)
# takes the webhook of a click in its channel only when that is sooner (R-BOT-RESTART).

def outbox() -> Any:
    from cogs.uno._outbox import Outbox

    return Outbox(SimpleNamespace(), global_writes=10)  # type: ignore[arg-type]


def usable_token() -> Token:
    return Token(42, "webhook", time.monotonic() + 600)  # type: ignore[arg-type]


async def click_after(box: _Channel, delay: float, carrier: Any) -> None:
    await asyncio.sleep(delay)
    box.carrier = carrier
    assert box.carried is not None, "the post is waiting"
    box.carried.set()  # as Outbox.carry does


async def test_a_click_with_a_usable_webhook_reroutes_the_waiting_post_at_once() -> None:
    box, out = channel(), outbox()
    started = time.monotonic()
    click = asyncio.create_task(click_after(box, 0.1, usable_token()))
    assert await out._carried_within(box, started + 2.0)
    assert time.monotonic() - started < 1.0
    await click
    assert box.carried is None


@pytest.mark.slow
async def test_a_click_that_cannot_carry_leaves_the_post_waiting_for_its_turn() -> None:
    box, out = channel(), outbox()
    started = time.monotonic()
    click = asyncio.create_task(click_after(box, 0.1, interaction(
        True, discord.InteractionResponseType.deferred_channel_message)))
    assert not await out._carried_within(box, started + 0.8)
    assert time.monotonic() - started >= 0.8, "the channel route's turn is still kept"
    await click


@pytest.mark.slow
async def test_a_reroute_that_would_come_later_than_the_turn_is_not_taken() -> None:
    box, out = channel(), outbox()
    started = time.monotonic()
    out._rerouted.next = started + 5.0  # many posts took a webhook before this one
    click = asyncio.create_task(click_after(box, 0.1, usable_token()))
    assert not await out._carried_within(box, started + 0.8)
    assert time.monotonic() - started >= 0.8
    await click

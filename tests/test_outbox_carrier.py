"""The outbox keeps an answered interaction as its token, not the interaction itself."""

from __future__ import annotations

import datetime
from types import SimpleNamespace
from typing import Any

import discord

from cogs.uno._outbox import _Channel, _settle_carrier, _Token


def interaction(done: bool, kind: discord.InteractionResponseType | None,
                age: float = 1.0) -> Any:
    response = SimpleNamespace(is_done=lambda: done, type=kind)
    created = discord.utils.utcnow() - datetime.timedelta(seconds=age)
    return SimpleNamespace(id=42, response=response, created_at=created, followup="webhook")


def test_an_answered_interaction_becomes_its_token() -> None:
    box = _Channel(guild_id=1)
    box.carrier = interaction(True, discord.InteractionResponseType.channel_message)
    _settle_carrier(box)
    assert isinstance(box.carrier, _Token)
    assert box.carrier.id == 42 and box.carrier.webhook == "webhook"
    token = box.carrier
    _settle_carrier(box)
    assert box.carrier is token


def test_an_unanswered_interaction_is_kept_until_it_is_answered() -> None:
    box = _Channel(guild_id=1)
    waiting = box.carrier = interaction(False, None)
    _settle_carrier(box)
    assert box.carrier is waiting


def test_an_interaction_that_can_carry_nothing_is_dropped() -> None:
    box = _Channel(guild_id=1)
    box.carrier = interaction(True, discord.InteractionResponseType.deferred_channel_message)
    _settle_carrier(box)
    assert box.carrier is None
    box.carrier = interaction(True, discord.InteractionResponseType.channel_message, age=9999)
    _settle_carrier(box)
    assert box.carrier is None
    _settle_carrier(box)
    assert box.carrier is None

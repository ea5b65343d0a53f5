"""R-BOT-BUSY under overload: while the bot's event loop runs what is due more than
MAX_LAG late (every click in hand waits for a step of every other one), a new click is
answered "busy" at once, privately, and its work never runs. A real event loop is made
late here by blocking it; the interaction is a stand-in recording what is sent back."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import cogs.uno._reply as reply_module
from cogs.uno._reply import _Lag, answer
from runtime.metrics import Metrics
from runtime.priority import Priority


def interaction_now(client: Any = None) -> Any:
    """An interaction Discord created just now, whose answers are recorded (``client``:
    the bot it came to, with its ``metrics``)."""
    sent: list[dict[str, Any]] = []
    done = [False]

    async def send_message(**kwargs: Any) -> None:
        done[0] = True
        sent.append(kwargs)

    response = SimpleNamespace(is_done=lambda: done[0], send_message=send_message,
                               _parent=None)
    return SimpleNamespace(
        id=discord.utils.time_snowflake(discord.utils.utcnow()),
        created_at=discord.utils.utcnow(), response=response, sent=sent,
        locale=discord.Locale.british_english, data={"custom_id": "uno:t:hand:ab12:1"},
        type=discord.InteractionType.component, command=None, message=None, guild=None,
        client=client)


def block_the_loop(seconds: float) -> None:
    time.sleep(seconds)  # a step that keeps the loop from everything else due


async def keep_the_loop_behind(seconds: float) -> None:
    """Steps of 0.2 s one after another, as a loop past capacity runs them, for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        block_the_loop(0.2)
        await asyncio.sleep(0)


@pytest.mark.slow
async def test_the_loop_lag_is_measured_and_forgotten() -> None:
    lag = _Lag()
    lag.limit = 0.1
    lag.recent()  # starts ticking on this loop
    await asyncio.sleep(0.4)
    for _ in range(50):  # a machine busy with other work may hold this process back a while
        if not lag.crowded():
            break
        await asyncio.sleep(0.1)
    assert not lag.crowded(), f"an idle loop runs on time ({lag.recent():.3f} s late)"
    asyncio.get_running_loop().call_soon(block_the_loop, 0.3)
    await asyncio.sleep(0.1)
    assert not lag.crowded(), "one long step is not a loop that stays behind"
    behind = asyncio.create_task(keep_the_loop_behind(2.5))
    await asyncio.sleep(2.0)
    assert lag.recent() >= 0.1 and lag.crowded(), lag.recent()
    await behind
    await asyncio.sleep(0.5)
    assert not lag.crowded(), "a quarter of a second on time and it is forgotten"


@pytest.mark.slow
async def test_a_click_while_the_loop_is_late_is_answered_busy_and_not_handled(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lag = _Lag()
    lag.limit = 0.1
    monkeypatch.setattr(reply_module, "_LAG", lag)
    lag.recent()
    ran: list[str] = []

    async def work(reply: object) -> None:
        ran.append("worked")

    await asyncio.sleep(0.4)
    on_time = interaction_now()
    await answer(on_time, work)
    assert ran == ["worked"], "on time, the click is handled"

    behind = asyncio.create_task(keep_the_loop_behind(2.5))
    await asyncio.sleep(2.0)
    late = interaction_now()
    await answer(late, work)
    await behind
    assert ran == ["worked"], "its work never ran"
    assert len(late.sent) == 1 and late.sent[0]["ephemeral"] is True
    assert "very busy" in late.sent[0]["content"]


@pytest.mark.slow
async def test_no_limit_never_turns_a_click_away(monkeypatch: pytest.MonkeyPatch) -> None:
    lag = _Lag()
    lag.limit = 0.0
    monkeypatch.setattr(reply_module, "_LAG", lag)
    lag.recent()
    behind = asyncio.create_task(keep_the_loop_behind(2.5))
    await asyncio.sleep(2.0)
    ran: list[str] = []

    async def work(reply: object) -> None:
        ran.append("worked")

    await answer(interaction_now(), work)
    await behind
    assert ran == ["worked"]


async def test_a_click_while_too_many_clicks_wait_is_answered_busy_and_not_handled(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past capacity the clicks in hand each wait for a step of every other: while more
    than MAX_WAITING wait for their answer, a new one is turned away at once, though the
    loop's lag has not caught up yet."""
    lag = _Lag()
    lag.limit = 10.0  # the lag alone would take nobody away
    monkeypatch.setattr(reply_module, "_LAG", lag)
    waiting = Priority()
    monkeypatch.setattr(reply_module, "PRIORITY", waiting)
    ran: list[str] = []

    async def work(reply: object) -> None:
        ran.append("worked")

    bot = SimpleNamespace(metrics=Metrics())
    for n in range(reply_module.MAX_WAITING - 1):
        waiting.arrived(n)
    first = interaction_now(bot)  # the MAX_WAITING-th
    waiting.arrived(first.id)
    await answer(first, work)
    assert ran == ["worked"], "up to MAX_WAITING in hand, the click is handled"
    waiting.arrived(1000)  # (the first was answered: MAX_WAITING wait again)
    crowded = interaction_now(bot)
    waiting.arrived(crowded.id)
    await answer(crowded, work)
    assert ran == ["worked"], "its work never ran"
    assert len(crowded.sent) == 1 and "very busy" in crowded.sent[0]["content"]
    assert waiting.waiting == reply_module.MAX_WAITING, "answered: it waits no more"
    # /metrics: one answered, one turned away busy and so acknowledged (runtime/metrics.py)
    text = bot.metrics.exposition().decode()
    for outcome in ("answered", "busy"):
        assert f'uno_interactions_total{{kind="component",outcome="{outcome}"}} 1.0' in text
    assert "uno_ack_seconds_count 1.0" in text, "the busy answer acknowledged (the work sent none)"

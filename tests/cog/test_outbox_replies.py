"""The outbox's replies route (R-BOT-REPLIES): a game whose bot is not a member of the chat is
written through its newest interaction token only, never the channel's routes; a minute
before the table's last token ends the table says so."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import pytest

from cogs.uno._outbox import LAPSE_NOTICE, Outbox
from cogs.uno._pacing import Token
from support.games import scenario_session
from support.service import ALICE, BOB

CHANNEL = 77


def outbox() -> Outbox:
    return Outbox(SimpleNamespace(), global_writes=10)  # type: ignore[arg-type]


def token(tid: int, life: float) -> Token:
    return Token(tid, "webhook", time.monotonic() + life)  # type: ignore[arg-type]


def replies_session() -> Any:
    session = scenario_session(CHANNEL, [ALICE, BOB], guild_id=CHANNEL, hands={ALICE: "R3 R4",
                                                                           BOB: "R6 G1"},
                               discard="R9", turn=ALICE)
    session.replies = True
    session.table_message_id = 500
    return session


async def test_a_post_waits_for_an_interaction_instead_of_taking_the_channel() -> None:
    out = outbox()
    box = out._box(CHANNEL, 1, replies=True)
    waiting = asyncio.create_task(out._newest_token(box))
    await asyncio.sleep(0.05)
    assert not waiting.done(), "no token: the post waits (the channel is not the bot's)"
    assert box.carried is not None
    box.carrier = token(9, 600)
    box.carried.set()  # as Outbox.carry does when an interaction comes
    route = await asyncio.wait_for(waiting, 1.0)
    assert route is not None and route.id == 9


async def test_shutting_down_stops_the_wait() -> None:
    out = outbox()
    box = out._box(CHANNEL, 1, replies=True)
    waiting = asyncio.create_task(out._newest_token(box))
    await asyncio.sleep(0.05)
    await out.close(limit=1.0)
    assert await asyncio.wait_for(waiting, 1.0) is None


async def test_an_edit_without_its_token_is_not_sent_by_the_channel() -> None:
    out = outbox()
    box = out._box(CHANNEL, 1, replies=True)
    nowhere: Any = SimpleNamespace()  # any channel route would raise AttributeError

    async def compose() -> dict[str, Any]:
        raise AssertionError("nothing is composed for a message that can't be edited")

    assert await out._edit(box, nowhere, 500, compose) is False
    await out._delete(box, nowhere, 500)  # (nor deleted)


@pytest.mark.parametrize("newer", [False, True])
async def test_the_table_says_its_chain_ends_unless_a_newer_token_renews_it(
        monkeypatch: pytest.MonkeyPatch, newer: bool) -> None:
    out = outbox()
    session = replies_session()
    box = out._box(CHANNEL, 1, replies=True)
    box.session = session
    own = token(1, LAPSE_NOTICE + 0.1)  # the table's token: a minute and a bit left
    box.via_for[500] = own
    box.carrier = token(2, 600) if newer else own
    kicked: list[int] = []
    monkeypatch.setattr(out, "_kick", lambda cid, b: kicked.append(cid))
    out._arm_lapse(CHANNEL, box)
    assert box.lapse is not None
    await asyncio.sleep(0.3)
    assert kicked == [CHANNEL] and box.table, "the table is written once more"
    said = any("stops updating" in line for line in box.lines)
    assert said is not newer, box.lines


async def test_a_write_for_a_game_that_ended_stops_waiting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cogs.uno._outbox.REPLIES_WAIT", 0.5)  # half a second here
    out = outbox()
    out.is_live = lambda session: False  # its game ended (or was swept)
    box = out._box(CHANNEL, 1, replies=True)
    box.session = replies_session()
    assert await asyncio.wait_for(out._newest_token(box), 2.0) is None

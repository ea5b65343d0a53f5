"""End to end through the loopback Discord: how tables reach the channel (issue 8).

R-BOT-TABLE: the live table is edited in place while nothing was posted below it, through
the webhook of the interaction that posted it (interaction endpoints are not bound to the
bot's global rate limit); chat that buries it makes the next table a new message
(tests/e2e/test_table_in_view.py); an expired interaction token falls back to the channel
route. R-BOT-BUSY: a click that reaches
the bot too late is answered "busy" (or not at all) and changes nothing, and no click is
answered twice. The loopback enforces Discord's rate limits in this module.
"""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio

from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel
from loopback.server import InteractionState, LoopbackDiscord
from settings import TABLE_BURY
from support.e2e import FAST_ENV
from support.tables import Scenario, abc, hand, open_tables, pair, said, state, table_message

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


SCENARIOS: dict[str, Scenario] = {
    name: pair for name in ("in_place", "expired", "expired_post", "busy", "too_late")}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> dict[str, Channel]:
    channels = await open_tables(loopback_discord, loopback_bot, SCENARIOS)
    loopback_discord.enforce_rate_limits = True
    return channels


def public_ids(ch: Channel) -> list[int]:
    return [m.id for m in ch.messages if not m.deleted]


async def test_the_table_is_edited_in_place_through_the_interaction(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-BOT-TABLE: moves edit the one live table (same message, new state) through the
    webhook of the interaction that posted it: no channel writes, no 429."""
    ch = tables["in_place"]
    alice, bob, _c = abc(ch)
    server = loopback.discord
    restarted = table_message(ch)  # posted through the channel when the bot restarted
    await alice.slash("uno play", card="R3")  # replaced by one posted through Alice's click
    first = await said(ch, "alice plays 🟥 red 3.", ch.mark())
    assert first.id != restarted.id
    await ch.wait_for(lambda m: m.id == restarted.id and not m.button_labels(), after=0)
    routes = server.rate_limiter.routes.copy()
    messages = len(public_ids(ch))
    for player, card, line in ((bob, "R6", "bob plays 🟥 red 6."),
                               (alice, "R4", "alice plays 🟥 red 4."),
                               (bob, "R7", "bob plays 🟥 red 7.")):
        mark = ch.mark()
        await player.slash("uno play", card=card)
        shown = await said(ch, line, mark)
        assert shown.id == first.id, "the table is edited in place"
    assert len(public_ids(ch)) == messages, "no new message for three moves"
    assert table_message(ch).id == first.id
    assert f"<@{alice.id}>, it's your turn." in first.text()
    used = server.rate_limiter.routes - routes
    channel_writes = {k: v for k, v in used.items() if k.split()[1].startswith("/channels")}
    assert not channel_writes, f"tables went through channel routes: {channel_writes}"
    assert any("/webhooks" in k and k.startswith("PATCH") for k in used), used
    assert not server.rate_limited, server.rate_limited
    assert sorted(hand(state(ch), alice)) == ["B4", "R5"]


async def test_an_expired_token_falls_back_to_the_channel(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-BOT-TABLE: when the interaction that posted the table can no longer edit it (its
    token expired), the table is edited through the channel route instead."""
    ch = tables["expired"]
    alice, bob, _c = abc(ch)
    server = loopback.discord
    await alice.slash("uno play", card="R3")
    first = await said(ch, "alice plays 🟥 red 3.", ch.mark())
    server.interaction_token_life = 0.3
    try:
        await asyncio.sleep(0.5)  # every token the bot holds for this table has expired
        mark = ch.mark()
        await bob.slash("uno play", card="R6")
        shown = await said(ch, "bob plays 🟥 red 6.", mark)
    finally:
        server.interaction_token_life = 15 * 60.0
    assert shown.id == first.id, "still edited in place"
    server.take_problems("expired_token")  # the loopback notes each refused use


async def test_a_new_table_whose_token_fails_goes_by_the_channel(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-BOT-TABLE: when the interaction that should carry a new table can no longer post
    (its token refused), the table is posted through the channel route instead, with its
    turn line."""
    ch = tables["expired_post"]
    alice, bob, _c = abc(ch)
    server = loopback.discord
    await alice.slash("uno play", card="R3")
    before = await said(ch, "alice plays 🟥 red 3.", ch.mark())
    for i in range(TABLE_BURY + 1):
        alice.say(f"your go, bob ({i})")
    await asyncio.sleep(0.3)  # the bot hears of the chat: the table is buried, the next is new
    server.interaction_token_life = 0.0  # every token is refused from now on
    try:
        mark = ch.mark()
        await bob.slash("uno play", card="R6")
        after = await said(ch, "bob plays 🟥 red 6.", mark)
    finally:
        server.interaction_token_life = 15 * 60.0
    assert after.id > before.id and after.webhook_id is None, "posted by the channel route"
    assert f"<@{alice.id}>, it's your turn." in after.text()
    assert server.take_problems("expired_token"), "the token was tried first"


async def late_draw(loopback: LoopbackTest, ch: Channel, delayed: float) -> InteractionState:
    """Alice clicks Draw on the table, and the click reaches the bot ``delayed`` seconds
    after Discord created it (as when the bot's event loop is behind)."""
    alice, _b, _c = abc(ch)
    table = table_message(ch)
    button = next(b for b in table.buttons() if b.get("label") == "Draw")
    st = await loopback.discord.send_interaction(
        itype=3, user=alice.identity, channel=ch,
        data={"custom_id": button["custom_id"], "component_type": 2},
        label=f"alice: Draw {delayed} s late", source_message=table, delayed=delayed)
    assert st.ack is not None
    return st


async def test_a_click_that_arrives_late_is_answered_busy_and_changes_nothing(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-BOT-BUSY: a click that reaches the bot 1.8 s after Discord created it (the bot is
    past capacity) is answered at once, privately, "busy", and the game is untouched."""
    ch = tables["busy"]
    before = state(ch)
    st = await late_draw(loopback, ch, 1.8)
    assert st.ack is not None
    await asyncio.wait_for(asyncio.shield(st.ack), 3)
    assert st.original is not None and st.original.ephemeral
    assert "busy" in st.original.text(), st.original.text()
    await asyncio.sleep(0.3)
    assert state(ch) == before, "nothing changed"


async def test_a_click_too_late_for_any_answer_gets_none(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-BOT-BUSY: a click that reaches the bot after 2.8 s cannot be acknowledged in time:
    the bot sends nothing (no late answer, no second one) and the game is untouched."""
    ch = tables["too_late"]
    before = state(ch)
    st = await late_draw(loopback, ch, 2.8)
    assert st.ack is not None
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(asyncio.shield(st.ack), 1.0)
    assert state(ch) == before, "nothing changed"
    late = loopback.discord.take_problems("late_ack") + loopback.discord.take_problems(
        "double_ack")
    assert late == [], late

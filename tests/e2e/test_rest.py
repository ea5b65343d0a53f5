"""End to end: the bot's busiest requests (discord.py's own: ``Interaction.response``,
``edit_original_response``, ``Webhook.send`` and ``edit_message``) against the loopback
Discord, which validates every body against Discord's OpenAPI description.

A click is answered in place (type 7) or only acknowledged (type 6); hand panels, the table's
posts through a click's webhook and its edits in place go out and land; Discord's
limits are kept: a 429 on a panel's edit, on the table's edit or on the table's post is
made again after its ``retry_after``, once; and Discord's refusals keep their meaning: a 404
"Unknown Message" on the table's edit posts the table anew (the outbox's mapping,
``_outbox.py``)."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio

from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.records import EPHEMERAL
from loopback.rest import Request
from loopback.server import LoopbackDiscord
from support.e2e import FAST_ENV, panel_shows, play_card
from support.tables import Scenario, abc, open_tables, pair, said, table_message

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]

SCENARIOS: dict[str, Scenario] = {
    "callbacks": pair, "panel_429": pair, "table_429": pair, "table_404": pair,
    "post_429": pair}
RETRY_AFTER = 0.5


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> dict[str, Channel]:
    return await open_tables(loopback_discord, loopback_bot, SCENARIOS)


async def hit(fault_hits: list[Request], seconds: float = 5.0) -> float:
    """When the injected fault was first met (loop time)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not fault_hits:
        assert loop.time() < deadline, "the request the fault waits for never came"
        await asyncio.sleep(0.01)
    return loop.time()


async def first_table_through_a_click(ch: Channel) -> Message:
    """Alice plays R3: her click's webhook posts the table anew (the one the restart
    posted through the channel is closed); returns it once the old one is closed."""
    alice, _bob, _c = abc(ch)
    restarted = table_message(ch)
    await alice.slash("uno play", card="R3")
    first = await said(ch, "alice plays 🟥 red 3.", ch.mark())
    await ch.wait_for(lambda m: m.id == restarted.id and not m.button_labels(), after=0)
    return first


async def test_clicks_are_answered_in_place_or_acknowledged(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["callbacks"]
    alice, bob, _c = abc(ch)
    server = loopback.discord
    table = table_message(ch)
    r = await alice.click("My hand", message=table)
    panel = r.message
    assert r.response_type == 4 and panel is not None and "Your hand" in r.text
    r = await bob.click("My hand", message=table)
    bob_panel = r.message
    assert r.response_type == 4 and bob_panel is not None
    seen = len(server.requests)
    # a card in her panel: answered by editing the panel in place (type 7)
    mark = ch.mark()
    r = await play_card(alice, "R3", message=panel)
    assert r.response_type == 7 and "Your hand" in r.text, r
    await said(ch, "alice plays 🟥 red 3.", mark)
    # Draw on the table: acknowledged only (type 6), answered in his panel (PATCH @original)
    r = await bob.click("Draw", message=table_message(ch))
    assert r.response_type == 6, r
    await panel_shows(ch, bob_panel, "You drew")
    callbacks = [path for method, path, _b in server.requests[seen:]
                 if method == "POST" and path.split("?")[0].endswith("/callback")]
    assert len(callbacks) == 2, callbacks
    assert server.take_refused() == []
    assert loopback.bot.take_tracebacks() == []


async def test_a_rate_limited_panel_edit_is_made_again_after_retry_after(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["panel_429"]
    alice, bob, _c = abc(ch)
    server = loopback.discord
    r = await bob.click("My hand", message=table_message(ch))
    panel = r.message
    assert panel is not None
    token = r.state.token
    before = panel.text()
    fault = server.fail_next(
        "PATCH", lambda req: req.params.get("token") == token
        and req.params.get("mid") == "@original", 429, retry_after=RETRY_AFTER)
    await alice.slash("uno play", card="R3")  # bob's turn: his panel is edited
    limited = await hit(fault.hits)
    loop = asyncio.get_running_loop()
    while panel.text() == before:
        assert loop.time() < limited + 5, "the panel was never edited"
        await ch.server.wait_change(0.1)
    assert loop.time() - limited >= RETRY_AFTER * 0.9, "tried again before retry_after"
    assert len(fault.hits) == 1 and fault.remaining == 0
    assert loopback.bot.take_tracebacks() == []


async def test_a_rate_limited_table_edit_is_made_again_after_retry_after(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["table_429"]
    _alice, bob, _c = abc(ch)
    server = loopback.discord
    first = await first_table_through_a_click(ch)
    fault = server.fail_next("PATCH", lambda req: req.params.get("mid") == str(first.id),
                             429, retry_after=RETRY_AFTER)
    await bob.slash("uno play", card="R6")
    limited = await hit(fault.hits)
    await ch.wait_for(lambda m: m.id == first.id and "bob plays 🟥 red 6." in m.text(),
                      after=0, timeout=5)
    assert asyncio.get_running_loop().time() - limited >= RETRY_AFTER * 0.9
    assert table_message(ch).id == first.id, "edited in place, not posted anew"
    assert len(fault.hits) == 1
    assert loopback.bot.take_tracebacks() == []


async def test_a_table_edit_refused_as_unknown_message_posts_the_table_anew(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["table_404"]
    _alice, bob, _c = abc(ch)
    server = loopback.discord
    first = await first_table_through_a_click(ch)
    fault = server.fail_next("PATCH", lambda req: req.params.get("mid") == str(first.id),
                             404, code=10008)
    mark = ch.mark()
    await bob.slash("uno play", card="R6")
    table = await ch.wait_for(lambda m: "bob plays 🟥 red 6." in m.text()
                              and bool(m.button_labels()), after=mark, timeout=5)
    assert table.id != first.id and table_message(ch).id == table.id
    assert len(fault.hits) == 1
    assert [r.code for r in server.take_refused(code=10008)] == [10008]
    assert loopback.bot.take_tracebacks() == []


async def test_a_rate_limited_table_post_is_made_again_after_retry_after(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["post_429"]
    alice, _bob, _c = abc(ch)
    server = loopback.discord
    restarted = table_message(ch)
    # (not an ephemeral followup: a loaded machine may defer the click's own answer)
    fault = server.fail_next("POST", lambda req: req.template == "/webhooks/{app}/{token}"
                             and not int((req.body or {}).get("flags") or 0) & EPHEMERAL,
                             429, retry_after=RETRY_AFTER)
    await alice.slash("uno play", card="R3")  # her click's webhook posts the table anew
    limited = await hit(fault.hits)
    table = await said(ch, "alice plays 🟥 red 3.", ch.mark())
    assert asyncio.get_running_loop().time() - limited >= RETRY_AFTER * 0.9
    assert table.id != restarted.id and table.button_labels()
    await ch.wait_for(lambda m: m.id == restarted.id and not m.button_labels(), after=0)
    assert len(fault.hits) == 1
    assert loopback.bot.take_tracebacks() == []

"""End to end: ``UNO_TABLE_V2=0`` keeps the table as an embed with a row of buttons (no
Components V2 flag, no picture), edited in place, its buttons working."""

from __future__ import annotations

import pytest
import pytest_asyncio

from cogs.uno.table.session import Options
from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.limits import IS_COMPONENTS_V2
from loopback.models import Channel
from loopback.server import LoopbackDiscord
from support.e2e import FAST_ENV, db_of
from support.games import install, scenario_session
from support.tables import abc, said, table_message

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, UNO_TABLE_V2="0")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def table(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> Channel:
    ch = loopback_discord.guilds[0].new_channel("embed")
    a, b, _c = abc(ch)
    await install(db_of(loopback_bot), scenario_session(
        ch, [a, b], hands={a: "R3 R4 R5 B4", b: "R6 R7 R8 G1"}, discard="R9",
        draw="Y1 Y2 Y3 Y4 Y5 Y6", turn=a, options=Options(turn_timer=600)))
    await loopback_bot.restart()
    await ch.wait_for(lambda m: "goes on" in m.text(), timeout=15)
    return ch


async def test_the_embed_table_stays_when_v2_is_off(loopback: LoopbackTest,
                                                    table: Channel) -> None:
    ch = table
    alice, bob, _c = abc(ch)
    restarted = table_message(ch)
    await alice.slash("uno play", card="R3")
    first = await said(ch, "alice plays 🟥 red 3.", ch.mark())
    await ch.wait_for(lambda m: m.id == restarted.id and not m.button_labels(), after=0)
    for m in (restarted, first):
        assert not m.flags & IS_COMPONENTS_V2 and not m.attachments
        assert m.embeds and "Top card" in m.text()
    assert [c["type"] for c in first.components] == [1]  # a row of buttons
    mark = ch.mark()
    await bob.slash("uno play", card="R6")
    assert (await said(ch, "bob plays 🟥 red 6.", mark)).id == first.id
    r = await alice.click("My hand", message=first)
    assert r.ephemeral and "Your hand" in r.text

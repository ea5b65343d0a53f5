"""End to end: where the answer to a click goes when a player has a live hand panel (issue
29, bugs 4 to 7).

A player's hand is one private message, their live panel. A click through an older panel
of theirs (retired: it says the hand moved below), through another player's panel (a
modified client can send any custom_id on any message) or on the public table must never
make a second live panel, adopt a message that is not the newest, or open a new private
message when the live panel can take the answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import pytest_asyncio

from cogs.uno.table.session import Session
from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.interactions import InteractionState
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.users import Member
from support.e2e import FAST_ENV, card_buttons, panel_shows, play_card
from support.games import scenario_session
from support.tables import (
    LONG_TURNS,
    abc,
    hand,
    open_tables,
    pid,
    poll_state,
    registry,
    state,
    table_message,
)

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]

MOVED = "Your hand moved to a newer message below."
SCENARIOS, scenario = registry()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess
                 ) -> dict[str, Channel]:
    return await open_tables(loopback_discord, loopback_bot, SCENARIOS)


def _pair(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4 B4", b: "R5 R6 G1"}, discard="R9",
                            draw="G2 G3 G4 G5 G6 G7", turn=a, options=LONG_TURNS)


def custom_id(panel: Message, code: str) -> str:
    """The custom_id of card ``code``'s button on ``panel``."""
    return next(str(b["custom_id"]) for b in panel.buttons()
                if str(b.get("custom_id", "")).startswith("uno:pc:")
                and str(b["custom_id"]).split(":")[4] == code)


async def send_click(loopback: LoopbackTest, member: Member, ch: Channel, cid: str,
                     message: Message) -> InteractionState:
    """A click on ``cid`` through ``message`` as Discord delivers it, whatever the message
    shows now (a click made before an edit landed, or a modified client's)."""
    return await loopback.discord.send_interaction(
        itype=3, user=member.identity, channel=ch,
        data={"custom_id": cid, "component_type": 2}, label=f"{member.name}: {cid}",
        source_message=message)


async def acked(st: InteractionState) -> int:
    assert st.ack is not None
    return await asyncio.wait_for(asyncio.shield(st.ack), 3)


async def until(ch: Channel, check: Callable[[], bool], timeout: float = 5.0) -> None:  # noqa: ASYNC109
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        remaining = deadline - loop.time()
        assert remaining > 0, "timed out"
        await ch.server.wait_change(min(remaining, 0.5))


async def two_panels(member: Member, ch: Channel) -> tuple[Message, Message, str]:
    """``member`` opens My hand twice: the old panel, retired, and the new one; and the
    custom_id of the old panel's R3 as it showed before it was retired."""
    old = (await member.click("My hand", message=table_message(ch))).message
    assert old is not None
    cid = custom_id(old, "R3")
    new = (await member.click("My hand", message=table_message(ch))).message
    assert new is not None and new is not old
    await panel_shows(ch, old, MOVED)
    return old, new, cid


# ------------------------------------------------------------------ bug 4
@scenario
def same_card_twice_old_first(ch: Channel) -> Session:
    return _pair(ch)


@scenario
def same_card_twice_new_first(ch: Channel) -> Session:
    return _pair(ch)


@pytest.mark.parametrize("old_first", [True, False])
async def test_the_same_card_clicked_on_the_old_and_the_new_panel(
        loopback: LoopbackTest, tables: dict[str, Channel], old_first: bool) -> None:
    """Issue 29, bug 4: two clicks on the same card, one on the old panel (made before it
    said the hand moved) and one on the new, at once. The card is played once, the new
    panel stays the live one (the old one says the hand moved below, the new one does not),
    and when the turn comes back the live panel shows it."""
    ch = tables["same_card_twice_old_first" if old_first else "same_card_twice_new_first"]
    alice, bob, _c = abc(ch)
    old, new, old_cid = await two_panels(alice, ch)
    new_cid = custom_id(new, "R3")
    clicks = [(old_cid, old), (new_cid, new)]
    if not old_first:
        clicks.reverse()
    sent = [await send_click(loopback, alice, ch, cid, msg) for cid, msg in clicks]
    await asyncio.gather(*(acked(st) for st in sent))
    s = await poll_state(ch, lambda s: s["turn"] == pid(bob))
    assert s["discard"][-1] == "R3" and hand(s, alice) == ["R4", "B4"]
    await asyncio.sleep(0.3)  # the panels' edits, if any
    assert MOVED in old.text() and not old.buttons(), old
    assert MOVED not in new.text(), new
    await bob.slash("uno play", card="R5")
    await panel_shows(ch, new, "Your turn")
    assert card_buttons(new) == ["R4", "R4|u"] and MOVED not in new.text()
    assert MOVED in old.text() and not old.buttons()
    assert len(alice.ephemerals()) == 2


# ------------------------------------------------------------------ bug 5
@scenario
def through_anothers_panel(ch: Channel) -> Session:
    return _pair(ch)


async def test_a_click_through_another_players_panel_leaves_it_alone(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """Issue 29, bug 5: a click that arrives through bob's panel from alice (a modified
    client can send any custom_id on any message) is refused without touching bob's panel,
    which stays bob's: it follows bob's game, never alice's hand."""
    ch = tables["through_anothers_panel"]
    alice, bob, _c = abc(ch)
    bobs = (await bob.click("My hand", message=table_message(ch))).message
    assert bobs is not None
    await until(ch, lambda: bool(bobs.attachments))  # its picture, added after the answer
    shown, versions = bobs.text(), len(bobs.history)
    before = state(ch)
    gid = custom_id(bobs, "R5").split(":")[2]
    for cid in (custom_id(bobs, "R5"), f"uno:t:hand:{gid}"):
        st = await send_click(loopback, alice, ch, cid, bobs)
        assert await acked(st) == 4 and st.original is not None  # a private sentence
        assert st.original.ephemeral_for == alice.id
        assert "another player's message" in st.original.text()
        await asyncio.sleep(0.2)
        assert bobs.text() == shown and len(bobs.history) == versions, bobs
        assert state(ch) == before
    # alice plays: bob's panel follows bob's turn, and alice's hand is never shown there
    alices = (await alice.click("My hand", message=table_message(ch))).message
    assert alices is not None
    await play_card(alice, "R3", message=alices)
    await panel_shows(ch, bobs, "Your turn")
    assert card_buttons(bobs) == ["R5", "R6"], bobs
    assert all("B4" not in v.get("content", "") for v in bobs.history)


# ------------------------------------------------------------------ bug 6
@scenario
def through_a_retired_panel(ch: Channel) -> Session:
    return _pair(ch)


async def test_a_retired_panel_stays_retired(loopback: LoopbackTest,
                                             tables: dict[str, Channel]) -> None:
    """Issue 29, bug 6: a click through a retired panel (one that says the hand moved
    below; a click made before that edit landed, or after a restart of the player's
    client) never brings it back as the live panel, not even for a moment: it is answered
    there with where the hand is, and nothing is done. The newer panel stays live and
    never says the hand moved below."""
    ch = tables["through_a_retired_panel"]
    alice, bob, _c = abc(ch)
    old, new, old_cid = await two_panels(alice, ch)
    retired_at = len(old.history)
    before = state(ch)
    gid = old_cid.split(":")[2]
    for cid in (old_cid, f"uno:t:hand:{gid}"):
        st = await send_click(loopback, alice, ch, cid, old)
        assert await acked(st) == 7
        assert old.text() == MOVED and not old.buttons(), old
    await asyncio.sleep(0.3)
    assert state(ch) == before
    # every version of the old message since it was retired says where the hand is
    assert all(v["content"] == MOVED and not v["components"]
               for v in old.history[retired_at:]), old.history[retired_at:]
    assert old.text() == MOVED and MOVED not in new.text(), new
    await play_card(alice, "R3", message=new)
    await bob.slash("uno play", card="R5")
    await panel_shows(ch, new, "Your turn")
    assert old.text() == MOVED and not old.buttons() and MOVED not in new.text()
    assert len(alice.ephemerals()) == 2


# ------------------------------------------------------------------ bug 7
@scenario
def refused_on_the_table(ch: Channel) -> Session:
    return _pair(ch)


async def test_a_refused_table_click_is_answered_in_the_live_panel(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """Issue 29, bug 7: a click on the public table refused to a player whose panel is
    live (nobody to catch; a table from before the last move) opens no new private
    message: the refusal shows in the live panel, as the answers to table clicks that
    succeed do."""
    ch = tables["refused_on_the_table"]
    alice, bob, _c = abc(ch)
    panel = (await alice.click("My hand", message=table_message(ch))).message
    assert panel is not None
    messages = len(alice.ephemerals())
    r = await alice.click("Catch", message=table_message(ch))
    assert r.response_type == 6, r
    await panel_shows(ch, panel, "Nobody can be caught right now.")
    assert "**Your hand**" in panel.text() and card_buttons(panel) == ["R3", "R4"]
    draw = next(str(b["custom_id"]) for b in table_message(ch).buttons()
                if b.get("label") == "Draw")
    await play_card(alice, "R3", message=panel)
    await bob.slash("uno play", card="R5")
    await panel_shows(ch, panel, "Your turn")
    st = await send_click(loopback, alice, ch, draw, table_message(ch))  # the old table's
    assert await acked(st) == 6
    await panel_shows(ch, panel, "That button was out of date")
    assert card_buttons(panel) == ["R4", "R4|u"]
    # a click through another player's panel is refused in the live panel too, and the
    # other player's panel is not touched
    bobs = (await bob.click("My hand", message=table_message(ch))).message
    assert bobs is not None
    await until(ch, lambda: bool(bobs.attachments))
    versions = len(bobs.history)
    st = await send_click(loopback, alice, ch, custom_id(bobs, "R6"), bobs)
    assert await acked(st) == 6
    await panel_shows(ch, panel, "This is another player's message")
    assert len(bobs.history) == versions and card_buttons(panel) == ["R4", "R4|u"]
    assert len(alice.ephemerals()) == messages

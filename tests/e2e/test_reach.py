"""End to end: the hand panel stays in reach (issue 29).

A turn's reminder is a message of its own that notifies its player and is deleted once
they acted; the table is never posted anew to notify (R-BOT-MENTION). A first turn is not
"away". A panel that messages pushed up (chat, a new round's table) goes down to the
bottom when its player has a decision to make: sent again through the token that shows
it, the old message deleted, so the player keeps one private message.

The bot runs at a twentieth of real time: "away" (45 s) is 2.25 s here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import pytest_asyncio

from cogs.uno.table.session import Options, Session
from loopback.bot_process import BotProcess
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.users import Member
from support.e2e import FAST_ENV, card_buttons, panel_shows, play_card
from support.games import scenario_session
from support.tables import abc, open_tables, pid, registry, said, state, table_message

SCALE = 0.05
AWAY = 45 * SCALE + 0.5
"""Seconds after which a player counts as away (PING_AWAY at the bot's time scale)."""
OPTS = Options(turn_timer=600)

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**{**FAST_ENV, "UNO_TIME_SCALE": str(SCALE)})]

SCENARIOS, scenario = registry()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess
                 ) -> dict[str, Channel]:
    return await open_tables(loopback_discord, loopback_bot, SCENARIOS)


def reminders(ch: Channel) -> list[Message]:
    """The channel's turn reminders, deleted ones included."""
    return [m for m in ch.all_messages if not m.ephemeral and m.text().startswith("🔔")]


async def private(member: Member, predicate: Callable[[Message], bool],
                  timeout: float = 5.0) -> Message:  # noqa: ASYNC109
    """``member``'s newest private message for which ``predicate`` holds, once there."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (found := [m for m in member.ephemerals() if predicate(m)]):
        remaining = deadline - loop.time()
        assert remaining > 0, f"no such private message: {member.ephemerals()!r}"
        await member.channel.server.wait_change(min(remaining, 0.5))
    return found[-1]


@scenario
def remind(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "B4 G5 B6", b: "R3 R4 G1 G2"},
                            discard="R9", draw="R2 R7 Y4 Y5 Y6 Y7", turn=b, options=OPTS)


async def test_a_reminder_is_its_own_message_and_goes_once_the_turn_is_taken(
        tables: dict[str, Channel]) -> None:
    """R-BOT-MENTION: a first turn mentions nobody; a player back to the table after
    being away gets a reminder below the table that notifies only them, the table being
    edited in place; the reminder stays while their turn goes on (they drew a playable
    card) and is deleted once they ended their turn."""
    ch = tables["remind"]
    alice, bob, _c = abc(ch)
    mark = ch.mark()
    await bob.slash("uno play", card="R3")
    await said(ch, "bob plays 🟥 red 3.", mark)
    assert reminders(ch) == [], "Alice's first turn: she is not away"
    # (the table the restart posted through the channel route is posted once anew through
    # this interaction's webhook, which edits it from then on)
    table = table_message(ch)

    await asyncio.sleep(AWAY)  # both away now
    mark = ch.mark()
    r = await alice.click("Draw", message=table)
    assert r.message is not None and r.message.button_labels() == ["Play it", "Keep it"]
    await said(ch, "alice draws a card.", mark)
    await alice.click("Play it", message=r.message)
    await said(ch, "alice plays 🟥 red 2.", mark)
    reminder = await ch.wait_for(lambda m: m.text().startswith("🔔"), after=mark)
    assert f"<@{bob.id}>, it's your turn." in reminder.text()
    assert [str(u) for u in (reminder.allowed_mentions or {}).get("users") or []] == [pid(bob)]
    assert table_message(ch) is table, "a reminder does not post the table anew"
    assert table.allowed_mentions is not None
    assert not table.allowed_mentions.get("users"), "the table notifies nobody"

    mark = ch.mark()
    await bob.click("Draw", message=table)  # a playable red 7: his turn goes on
    await said(ch, "bob draws a card.", mark)
    drawn = await private(bob, lambda m: m.button_labels() == ["Play it", "Keep it"])
    assert not reminder.deleted, "Bob's turn goes on: the reminder stays"
    assert len(reminders(ch)) == 1, "one reminder a turn"
    await bob.click("Keep it", message=drawn)
    await said(ch, "bob keeps the drawn card.", mark)
    await ch.wait_for(lambda m: reminder.deleted, timeout=5)
    assert state(ch)["turn"] == pid(alice)
    assert table_message(ch) is table
    assert reminders(ch) == [reminder], "Alice moved a moment ago: no reminder for her"


@scenario
def chatty(ch: Channel) -> Session:
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R5 R6 R1 G8", b: "R3 R4 G1 G2"},
                            discard="R9", draw="Y3 Y4 Y5 Y6 Y7", turn=a, options=OPTS)


async def test_a_panel_pushed_up_goes_down_when_its_player_decides(
        tables: dict[str, Channel]) -> None:
    """Issue 29 (the panel stays in reach): chat pushes Alice's panel up while Bob plays;
    when her turn comes it is sent again at the bottom and the old message is deleted
    (one private message); one message below it leaves it in place."""
    ch = tables["chatty"]
    alice, bob, carol = abc(ch)
    r = await alice.click("My hand", message=table_message(ch))
    first = r.message
    assert first is not None and first.ephemeral
    mark = ch.mark()
    await play_card(alice, "R5", message=first)
    await said(ch, "alice plays 🟥 red 5.", mark)
    await panel_shows(ch, first, "Waiting for your turn")

    carol.say("nice one")
    carol.say("who's winning?")
    mark = ch.mark()
    await bob.slash("uno play", card="R3")
    await said(ch, "bob plays 🟥 red 3.", mark)
    await ch.wait_for(lambda m: first.deleted, timeout=5)
    [panel] = alice.ephemerals()
    assert panel is not first
    assert panel.id > max(m.id for m in ch.messages), "the panel is the newest message"
    await private(alice, lambda m: m is panel and bool(card_buttons(m)))

    # her click in it answers in place: it is the live panel
    mark = ch.mark()
    r = await play_card(alice, "R6", message=panel)
    assert r.response_type == 7 and r.message is panel
    await said(ch, "alice plays 🟥 red 6.", mark)

    carol.say("just one line")  # one message below: the panel stays where it is
    mark = ch.mark()
    await bob.slash("uno play", card="R4")
    await said(ch, "bob plays 🟥 red 4.", mark)
    await private(alice, lambda m: bool(card_buttons(m)))
    assert alice.ephemerals() == [panel] and not panel.deleted

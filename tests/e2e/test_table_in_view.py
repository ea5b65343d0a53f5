"""End to end through the loopback Discord: the table in view (issue 17, R-BOT-TABLE).

When people chat below a game's table, the bot counts their messages from the gateway's
MESSAGE_CREATE (it asks for GUILD_MESSAGES, not for the privileged MESSAGE_CONTENT, and
needs no Read Message History). Up to ``UNO_TABLE_BURY`` (8) messages below it, the table
is still edited in place; past that, the next update posts it anew at the bottom of the
channel and the old one is closed (the same table, without its buttons). In a thread the
count is the thread's own: chat in one game's thread, or in the channel the threads are in,
buries no other game's table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import pytest_asyncio

from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.threads import Thread
from loopback.users import Member
from settings import TABLE_BURY
from support.e2e import FAST_ENV, db_of
from support.games import install, saved_state
from support.tables import abc, pair, said, table_message

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]

GATEWAY_GUILD_MESSAGES = 1 << 9
GATEWAY_MESSAGE_CONTENT = 1 << 15


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess
                 ) -> dict[str, Channel]:
    """A game in the channel "chatty"; two games in two threads of the channel "threads"
    (Alice and Bob each, Alice to play her red 3, then Bob his red 6...)."""
    guild = loopback_discord.guilds[0]
    chatty, parent = guild.new_channel("chatty"), guild.new_channel("threads")
    owner = parent.member("alice").identity
    first = parent.create_thread("first game", by=owner)
    second = parent.create_thread("second game", by=owner)
    assert isinstance(first, Thread) and isinstance(second, Thread)
    sessions = []
    for where in (chatty, first, second):
        session = pair(where)
        if isinstance(where, Thread):
            session.parent_id = parent.id
        sessions.append(session)
    await install(db_of(loopback_bot), *sessions)
    await loopback_bot.restart()
    channels: dict[str, Channel] = {"chatty": chatty, "threads": parent, "first": first,
                                    "second": second}
    for where in (chatty, first, second):
        await where.wait_for(lambda m: "goes on" in m.text(), timeout=15)
    return channels


def chat(people: list[Member], count: int) -> None:
    for i in range(count):
        people[i % len(people)].say(f"chat {i}")


async def heard() -> None:
    """The chat's MESSAGE_CREATE events reach the bot (sent at once; a moment to read them)."""
    await asyncio.sleep(0.3)


async def until(check: Callable[[], bool], what: str, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def move(player: Member, card: str, line: str) -> Message:
    """``player`` plays ``card``; the table that then says ``line``."""
    where = player.channel
    mark = where.mark()
    await player.slash("uno play", card=card)
    return await said(where, line, mark)


def closed(message: Message) -> bool:
    """A table closed as Discord shows it: still there, with its text, without buttons."""
    return not message.deleted and not message.button_labels() and bool(message.components)


async def test_the_bot_asks_for_message_events_but_not_their_content(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """The bot's IDENTIFY asks for GUILD_MESSAGES (not privileged) and not MESSAGE_CONTENT
    (privileged): it counts messages, it never reads them."""
    session = loopback.discord.current_session
    assert session is not None
    assert session.intents & GATEWAY_GUILD_MESSAGES
    assert not session.intents & GATEWAY_MESSAGE_CONTENT


async def test_chat_that_buries_the_table_brings_it_to_the_bottom(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-BOT-TABLE: 8 messages below the table (UNO_TABLE_BURY) leave the next move's table
    edited in place; a 9th makes the next move post it anew at the bottom, the old one closed
    (same text, no buttons) and the new one's id saved at once. The bot lacks Read Message
    History here: counting needs none."""
    ch = tables["chatty"]
    ch.overwrite("bot", read_message_history=False)
    alice, bob, carol = abc(ch)
    first = await move(alice, "R3", "alice plays 🟥 red 3.")
    chat([bob, carol, alice], TABLE_BURY)
    await heard()
    shown = await move(bob, "R6", "bob plays 🟥 red 6.")
    assert shown.id == first.id, f"{TABLE_BURY} messages below: edited in place"
    assert ch.messages[-1] is not first, "the chat is below it"

    carol.say("one more")
    await heard()
    after = await move(alice, "R4", "alice plays 🟥 red 4.")
    assert after.id != first.id and ch.messages[-1] is after, "a new table at the bottom"
    assert table_message(ch) is after and "My hand" in after.button_labels()
    await until(lambda: closed(first), "the old table closed")
    assert "bob plays 🟥 red 6." in first.text(), "the old table keeps its text"
    state = saved_state(db_of(ch), ch)
    assert state is not None and state["table_message_id"] == after.id, "its id saved"

    # the count starts over below the new table
    chat([bob, carol], TABLE_BURY)
    await heard()
    again = await move(bob, "R7", "bob plays 🟥 red 7.")
    assert again.id == after.id


async def test_chat_buries_only_its_own_thread_game(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """R-BOT-TABLE, R-BOT-THREADS: two games in two threads of one channel; 9 messages in
    the first thread, 8 in the second and 24 in the channel: only the first game's table
    goes to the bottom of its thread, the second's is edited in place."""
    parent, first, second = tables["threads"], tables["first"], tables["second"]
    # (the tables posted at the restart are replaced once by ones a click posts)
    one = await move(first.member("alice"), "R3", "alice plays 🟥 red 3.")
    two = await move(second.member("alice"), "R3", "alice plays 🟥 red 3.")
    chat([parent.member("bob"), parent.member("carol")], 3 * TABLE_BURY)
    chat([first.member("bob"), first.member("carol")], TABLE_BURY + 1)
    chat([second.member("carol")], TABLE_BURY)  # as many as the first's, but one
    await heard()
    edited = await move(second.member("bob"), "R6", "bob plays 🟥 red 6.")
    assert edited.id == two.id, "the second game's table is edited in place"
    reposted = await move(first.member("bob"), "R6", "bob plays 🟥 red 6.")
    assert reposted.id != one.id and first.messages[-1] is reposted
    await until(lambda: closed(one), "the first game's old table closed")
    assert not any("My hand" in m.button_labels() for m in parent.messages), (
        "no table in the channel")

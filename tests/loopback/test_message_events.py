"""The loopback Discord's MESSAGE_CREATE, as Discord documents it (gateway.mdx: "Gateway
Intents", "Message Content Intent", "Message Create"), with the demo bot connected.

A message posted in a guild channel reaches the bot only if its IDENTIFY asked for
GUILD_MESSAGES (a DM's: DIRECT_MESSAGES) and it can view the channel (Read Message History
is not needed); a person's message comes with its content empty unless the bot asked for
MESSAGE_CONTENT or is mentioned in it; the bot's own messages keep theirs; an ephemeral
message never comes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from loopback.fixtures import LoopbackTest
from loopback.gateway import GatewaySession
from loopback.models import Channel, Message

pytestmark = pytest.mark.asyncio(loop_scope="module")

GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12
MESSAGE_CONTENT = 1 << 15


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_command() -> list[str]:
    return [sys.executable, "loopback/demo_bot.py"]


def session_of(t: LoopbackTest) -> GatewaySession:
    session = t.discord.current_session
    assert session is not None, "the demo bot is connected"
    return session


def created(t: LoopbackTest, message: Message) -> list[dict[str, Any]]:
    """The MESSAGE_CREATE events the bot was sent for ``message``."""
    return [f["d"] for f in session_of(t).buffer
            if f["t"] == "MESSAGE_CREATE" and f["d"]["id"] == str(message.id)]


@contextmanager
def intents(t: LoopbackTest, *, add: int = 0, remove: int = 0) -> Iterator[None]:
    """As if the bot had identified with other intents (the gateway reads them per event)."""
    session = session_of(t)
    before = session.intents
    session.intents = (before | add) & ~remove
    try:
        yield
    finally:
        session.intents = before


@pytest.mark.slow
async def test_a_persons_message_comes_without_its_content(loopback: LoopbackTest) -> None:
    """Without MESSAGE_CONTENT the content is empty; the guild, the channel type and the
    author's member come with it."""
    alice = loopback.member("alice")
    said = alice.say("hello all")
    (event,) = created(loopback, said)
    assert event["content"] == "" and event["embeds"] == [] and event["attachments"] == []
    assert event["guild_id"] == str(loopback.guild.id)
    assert event["channel_id"] == str(loopback.channel.id) and event["channel_type"] == 0
    assert event["author"]["id"] == str(alice.id) and "member" in event
    assert said.content == "hello all", "people in the channel read it"


async def test_content_comes_when_the_bot_is_mentioned_or_asked_for_it(
        loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    bot = loopback.discord.bot_identity.id
    (event,) = created(loopback, alice.say(f"<@{bot}> hi"))
    assert event["content"] == f"<@{bot}> hi"
    assert [u["id"] for u in event["mentions"]] == [str(bot)]
    with intents(loopback, add=MESSAGE_CONTENT):
        (event,) = created(loopback, alice.say("hello"))
    assert event["content"] == "hello"


async def test_the_bots_own_message_keeps_its_content(loopback: LoopbackTest) -> None:
    result = await loopback.member("alice").slash("demo ping")
    assert result.message is not None
    (event,) = created(loopback, result.message)
    assert event["content"] == "pong"


async def test_no_message_events_without_guild_messages(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    with intents(loopback, remove=GUILD_MESSAGES):
        unheard = alice.say("anyone?")
    assert created(loopback, unheard) == []
    assert len(created(loopback, alice.say("anyone now?"))) == 1


async def test_a_dm_needs_direct_messages_and_keeps_its_content(
        loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    dm = Channel(loopback.discord, None, "dm", channel_type=1, recipient=alice.identity)
    with intents(loopback, remove=DIRECT_MESSAGES):
        unheard = loopback.discord.user_message(dm, alice.identity, "psst")
    assert created(loopback, unheard) == []
    with intents(loopback, add=DIRECT_MESSAGES, remove=GUILD_MESSAGES):
        (event,) = created(loopback, loopback.discord.user_message(dm, alice.identity, "hi"))
    assert event["content"] == "hi" and "guild_id" not in event and "member" not in event


async def test_the_bot_hears_only_channels_it_can_view(loopback: LoopbackTest) -> None:
    """Without Read Message History the bot still hears new messages (that permission is
    for reading past ones); without View Channel it hears none."""
    ch, alice = loopback.channel, loopback.member("alice")
    ch.overwrite("bot", read_message_history=False)
    assert len(created(loopback, alice.say("still heard"))) == 1
    ch.overwrite("bot", view_channel=False)
    assert created(loopback, alice.say("not heard")) == []

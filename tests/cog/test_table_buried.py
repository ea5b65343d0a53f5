"""The table in view (issue 17): chat that buries a game's table makes its next update a new
post at the bottom, and the old table is closed.

The outbox counts the messages posted below each channel's table from the gateway's
MESSAGE_CREATE (``Outbox.seen``: a count, no request); past ``bury`` of them (the setting
``UNO_TABLE_BURY``) the next update posts the table anew instead of editing it, and edits the
old one to the same table without its buttons. Fewer leave it edited in place. A real outbox
and a real game here; Discord is a recorder of posts and edits whose message ids grow with
time, as Discord's do."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import discord

from cogs.uno._outbox import Outbox
from cogs.uno.table.session import Session
from settings import TABLE_BURY
from support.games import scenario_session
from support.service import ALICE, BOB, GUILD, PATIENCE

_ids = itertools.count(10_000)


def next_id() -> int:
    """A new message id, later than every one before (Discord's ids grow with time)."""
    return next(_ids)


@dataclass
class Write:
    kind: str  # "post" or "edit"
    channel: int
    message: int
    body: dict[str, Any]

    def buttons(self) -> list[str]:
        """The labels of its buttons, as Discord receives its components."""
        view = self.body.get("view")
        stack = list(view.to_components()) if view is not None else []
        labels = []
        while stack:
            component = stack.pop()
            if component.get("type") == discord.ComponentType.button.value:
                labels.append(str(component.get("label")))
            stack.extend(component.get("components") or ())
            if component.get("accessory"):
                stack.append(component["accessory"])
        return labels


class Recorder:
    """Discord for the outbox: records every post and edit; nothing else is called."""

    def __init__(self) -> None:
        self.writes: list[Write] = []

    def get_partial_messageable(self, channel_id: int, guild_id: int | None = None) -> Any:
        writes = self.writes

        class Channel:
            async def send(self, **body: Any) -> Any:
                message = next_id()
                writes.append(Write("post", channel_id, message, body))
                return type("Sent", (), {"id": message})()

            def get_partial_message(self, message_id: int) -> Any:
                class Message:
                    async def edit(self, **body: Any) -> Any:
                        writes.append(Write("edit", channel_id, message_id, body))
                        return self
                return Message()
        return Channel()


def game(channel_id: int) -> Session:
    return scenario_session(channel_id, [ALICE, BOB], guild_id=GUILD,
                            hands={ALICE: "R3 B4 G5", BOB: "R5 G6 G7"}, discard="R9",
                            draw="Y1 Y2 Y3", turn=ALICE)


async def update(outbox: Outbox, client: Recorder, session: Session, line: str
                 ) -> list[Write]:
    """Announce ``line`` with ``session``'s table; the writes it made, once all are done."""
    before = len(client.writes)
    outbox.announce(session, [line])
    # close() waits for every queued write (and leaves the outbox working, without its
    # pauses between writes: what is decided here does not depend on them)
    await outbox.close(limit=PATIENCE)
    return client.writes[before:]


def chat(outbox: Outbox, channel_id: int, count: int) -> None:
    """``count`` messages are posted in the channel (their MESSAGE_CREATE reaches the bot)."""
    for _ in range(count):
        outbox.seen(channel_id, next_id())


async def test_more_than_bury_messages_below_the_table_post_it_anew_and_close_the_old() -> None:
    client = Recorder()
    outbox = Outbox(client, time_scale=0.05, bury=3)  # type: ignore[arg-type]
    session = game(801)
    first = await update(outbox, client, session, "the deal")
    assert [w.kind for w in first] == ["post"]
    table = session.table_message_id
    assert table == first[0].message and "Draw" in first[0].buttons()

    chat(outbox, 801, 3)  # three messages below the table: not buried yet
    edited = await update(outbox, client, session, "alice plays")
    assert [(w.kind, w.message) for w in edited] == [("edit", table)], "edited in place"

    chat(outbox, 801, 1)  # a fourth: buried
    reposted = await update(outbox, client, session, "bob plays")
    assert [w.kind for w in reposted] == ["post", "edit"], "one post and one close edit"
    post, close = reposted
    assert session.table_message_id == post.message > table, "at the bottom, its id saved"
    assert "Draw" in post.buttons()
    assert close.message == table and close.buttons() == [], "the old table is closed"
    assert close.body["view"] is not None, "closed as the same table (V2: never empty)"

    # Late events of older messages (and the new table's own) are not below it; three new
    # messages are not enough again: the count started over with the new table
    outbox.seen(801, table)
    outbox.seen(801, post.message)
    chat(outbox, 801, 3)
    again = await update(outbox, client, session, "alice draws")
    assert [(w.kind, w.message) for w in again] == [("edit", post.message)]


async def test_chat_counts_only_in_its_own_channel_or_thread() -> None:
    """Two games, in two threads of one channel (each its own channel id, as Discord sends
    MESSAGE_CREATE): chat in one buries only that one's table; chat in the parent channel
    neither."""
    client = Recorder()
    outbox = Outbox(client, time_scale=0.05, bury=2)  # type: ignore[arg-type]
    one, two = game(811), game(812)
    await update(outbox, client, one, "the deal")
    await update(outbox, client, two, "the deal")
    tables = one.table_message_id, two.table_message_id
    chat(outbox, 811, 3)
    chat(outbox, 810, 5)  # the parent channel (no game there)
    writes = await update(outbox, client, two, "bob plays")
    writes += await update(outbox, client, one, "alice plays")
    assert [(w.kind, w.channel) for w in writes] == [
        ("edit", 812), ("post", 811), ("edit", 811)]
    assert two.table_message_id == tables[1] and one.table_message_id != tables[0]


async def test_any_message_buries_the_table_with_bury_zero() -> None:
    client = Recorder()
    outbox = Outbox(client, time_scale=0.05, bury=0)  # type: ignore[arg-type]
    session = game(821)
    await update(outbox, client, session, "the deal")
    table = session.table_message_id
    assert [w.kind for w in await update(outbox, client, session, "a")] == ["edit"]
    chat(outbox, 821, 1)
    assert [w.kind for w in await update(outbox, client, session, "b")] == ["post", "edit"]
    assert session.table_message_id != table


def test_the_default() -> None:
    """UNO_TABLE_BURY is 8 by default (tests/e2e/test_bot_startup.py reads it)."""
    assert TABLE_BURY == 8
    assert Outbox(Recorder()).style.bury == TABLE_BURY  # type: ignore[arg-type]


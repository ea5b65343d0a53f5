"""The bot's gateway state: discord.py's own (``AutoShardedConnectionState``), with the two
message parsers the bot hears most replaced by ones that build no ``Message``.

Why. Per move the bot hears about one MESSAGE_UPDATE (each edit of a public message in the
channel: its own table edits come back to it) and most of one MESSAGE_CREATE (each message
posted: mostly its own new tables). discord.py 2.7.1 builds a whole ``discord.Message`` for
each (author, member, mentions, embeds, attachments, the Components V2 tree of a table:
60 to 90 µs a table posted, 40 an edit, where these take 3 to 12), and the bot reads none
of it:

- a MESSAGE_CREATE only counts: one more message below the channel's table (the table's
  "buried" count, ``Outbox.seen``), by anyone, the bot included. :meth:`parse_message_create`
  dispatches ``message_posted`` with a :class:`Posted` (the ids the count needs) in place of
  ``message`` with a ``Message``; the game cog's ``on_message_posted`` counts it.
- a MESSAGE_UPDATE is of no use to it. discord.py dispatches ``raw_message_edit`` (and
  ``message_edit`` for a message in its cache: none, the bot keeps none, ``max_messages=None``),
  and refreshes a view it tracks for that message (``ViewStore.update_from_message``: a view
  sent unfinished with items that are not ``DynamicItem``\\ s; the bot's views are finished
  and dynamic: none). :meth:`parse_message_update` keeps only that refresh.

What else discord.py's parsers did, kept here as it was (dictionary look-ups): the channel's
``last_message_id``; building the ``Message`` updated a cached member from the message's
``member`` (without the members intent only the bot's own member is cached) and a cached
thread from the message's ``thread``. Not kept: the same for a quoted message
(``referenced_message``); the message cache (``max_messages``, which the bot turns off:
LeanState keeps no message either); and the events ``message``, ``raw_message_edit`` and
``message_edit``, which nothing of the bot listens to (so commands.Bot's ``on_message``,
which parses a message for a text command, never runs: the bot has none).

A click: the interaction's message is a ``ClickedMessage`` (built only when more than its id
and flags is read) and the view store a ``LeanViewStore`` (a click reaches its family
without a view of the whole message): ``cogs/leanclick.py`` says why.

Pinned to discord.py 2.7.1: tests/table/test_lean_gateway.py fails when the code these
replace or repeat changes (its source), or when a cog of the bot listens to one of the
events they no longer send."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from discord.channel import StageChannel, TextChannel, VoiceChannel
from discord.interactions import Interaction
from discord.state import AutoShardedConnectionState
from discord.threads import Thread

from cogs.leanclick import ClickedMessage, LeanViewStore
from cogs.priority import CLICKS

if TYPE_CHECKING:
    from discord.guild import Guild
    from discord.types.gateway import (
        InteractionCreateEvent,
        MessageCreateEvent,
        MessageUpdateEvent,
    )

POSTED = "message_posted"
"""The event of a message posted (listeners: ``on_message_posted``, given a :class:`Posted`)."""

LAST_MESSAGE_KEPT = (TextChannel, VoiceChannel, Thread, StageChannel)
"""The channels whose ``last_message_id`` discord.py keeps from MESSAGE_CREATE."""


@dataclass(frozen=True, slots=True)
class Posted:
    """A message was posted (a MESSAGE_CREATE): where, which, by whom."""

    channel_id: int
    """The channel or thread it was posted in."""
    guild_id: int | None
    message_id: int
    author_id: int
    """Its author: a person, a bot (this one too) or a webhook."""


class LeanState(AutoShardedConnectionState[Any]):
    """discord.py's connection state for an auto-sharded bot, with MESSAGE_CREATE and
    MESSAGE_UPDATE parsed without a ``Message`` (the module's docstring says why). discord.py
    takes its parsers from the ``parse_*`` methods when the state is made, and the gateway
    calls them from that table (``parsers``). Its view store is a :class:`LeanViewStore`
    (``cogs/leanclick.py``: a click dispatched to its ``DynamicItem`` without a view)."""

    def clear(self, *, views: bool = True) -> None:
        super().clear(views=views)
        if views:  # where discord.py makes its ViewStore (``__init__`` clears too)
            self._view_store = LeanViewStore(self)

    def parse_interaction_create(self, data: InteractionCreateEvent) -> None:
        """discord.py's, with the interaction's message a :class:`ClickedMessage` (built
        when more than its id and flags is read: ``cogs/leanclick.py``)."""
        payload: dict[str, Any] = dict(data)
        raw = payload.pop("message", None)
        interaction = Interaction(data=payload, state=self)  # type: ignore[arg-type]
        if raw is not None:
            interaction.message = ClickedMessage(state=self, channel=interaction.channel,
                                                 data=raw, guild=interaction.guild)
        if payload["type"] in (2, 4) and self._command_tree:
            self._command_tree._from_interaction(interaction)
        elif payload["type"] == 3:  # a component: its type and custom_id are always there
            CLICKS.arrived(interaction.id)  # work nobody waits for gives way to it
            inner = payload["data"]
            self._view_store.dispatch_view(inner["component_type"], inner["custom_id"],
                                           interaction)
        elif payload["type"] == 5:  # a modal submitted
            inner = payload["data"]
            self._view_store.dispatch_modal(inner["custom_id"], interaction,
                                            inner["components"], inner.get("resolved", {}))
        self.dispatch("interaction", interaction)

    def parse_message_create(self, data: MessageCreateEvent) -> None:
        channel_id = int(data["channel_id"])
        message_id = int(data["id"])
        raw_guild = data.get("guild_id")
        guild_id = int(raw_guild) if raw_guild is not None else None
        self.dispatch(POSTED, Posted(channel_id, guild_id, message_id,
                                     int(data["author"]["id"])))
        guild = self._get_guild(guild_id)
        if guild is None:
            return
        self._as_a_message_did(guild, data)
        channel = guild._resolve_channel(channel_id)
        if channel is not None and channel.__class__ in LAST_MESSAGE_KEPT:
            channel.last_message_id = message_id

    def parse_message_update(self, data: MessageUpdateEvent) -> None:
        raw_guild = data.get("guild_id")
        guild = self._get_guild(int(raw_guild)) if raw_guild is not None else None
        if guild is not None:
            self._as_a_message_did(guild, data)
        if "components" in data:  # as discord.py does (a tracked view; the bot has none)
            interaction = data.get("interaction")
            try:
                entity_id = int(interaction["id"])  # type: ignore[index]
            except (KeyError, TypeError, ValueError):
                entity_id = int(data["id"])
            if self._view_store.is_message_tracked(entity_id):
                self._view_store.update_from_message(entity_id, data["components"])

    @staticmethod
    def _as_a_message_did(guild: Guild, data: MessageCreateEvent | MessageUpdateEvent
                          ) -> None:
        """What building a ``Message`` of ``data`` did to the cache (discord.py 2.7.1,
        ``Message.__init__``): a cached thread the message started takes its ``thread``,
        and a cached member (the author) the message's ``member``."""
        thread = data.get("thread")
        if thread is not None:
            cached = guild.get_thread(int(thread["id"]))
            if cached is not None:
                cached._update(thread)
        member = data.get("member")
        author = data.get("author")
        if member is not None and author is not None:
            found = guild.get_member(int(author["id"]))
            if found is not None:
                found._update_from_message(member)

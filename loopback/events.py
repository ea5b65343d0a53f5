"""What the gateway tells the bot of a new message (MESSAGE_CREATE), as Discord does."""

from __future__ import annotations

from typing import Any, Protocol

from . import installs
from .models import Channel, Identity, Message

INTENT_MESSAGE_CONTENT = 1 << 15
CONTENT_FIELDS = ("content", "embeds", "attachments", "components")
"""A message's fields that need the MESSAGE_CONTENT intent (Discord's "message content")."""


class Listeners(Protocol):
    """Who hears of a message (``server.LoopbackDiscord``): the bot on the gateway."""

    @property
    def bot_identity(self) -> Identity: ...

    @property
    def bot_intents(self) -> int | None: ...

    def dispatch_soon(self, name: str, data: Any) -> None: ...


def message_created(server: Listeners, msg: Message, member: dict[str, Any] | None) -> None:
    """MESSAGE_CREATE for ``msg`` as Discord sends it to the bot (gateway.mdx, "Message
    Create", "Message Content Intent"): none for an ephemeral message, nor in a guild
    channel or thread the bot cannot view (reading past messages, Read Message History, is
    not needed); with the author's ``member`` and the ``channel_type``; a person's message
    in a guild with its content, embeds, attachments and components empty unless the bot
    asked for MESSAGE_CONTENT or is mentioned in it. The gateway sends it only if the bot
    asked for GUILD_MESSAGES (DIRECT_MESSAGES in a DM: ``GatewayHub.dispatch_soon``)."""
    channel = msg.channel
    if msg.ephemeral or not isinstance(channel, Channel):
        return
    guild = channel.guild
    if not installs.bot_is_member(channel, server.bot_identity) or (guild is not None and
            not guild.permissions_in(guild.bot_member, channel).view_channel):
        return
    event = msg.payload()
    event["channel_type"] = channel.type
    if guild is not None and member is not None:
        event["member"] = member
    bot = server.bot_identity.id
    mentioned = f"<@{bot}>" in msg.content or f"<@!{bot}>" in msg.content
    if (guild is not None and str(msg.author.get("id")) != str(bot) and not mentioned
            and not (server.bot_intents or 0) & INTENT_MESSAGE_CONTENT):
        event.update({name: "" if name == "content" else [] for name in CONTENT_FIELDS})
    if mentioned:
        event["mentions"] = [server.bot_identity.user_payload()]
    server.dispatch_soon("MESSAGE_CREATE", event)

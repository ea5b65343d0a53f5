"""Where an application is installed, and what an interaction says of it.

Discord documents two installation contexts (application.mdx, "Installation Context"):
installed to a server (``GUILD_INSTALL``, 0: its bot is a member there) and to a user
(``USER_INSTALL``, 1: its commands follow that user anywhere, the bot a member of nothing),
and three interaction contexts (receiving-and-responding.mdx, "Interaction Context
Types"): a server (``GUILD``, 0), a DM with the app's bot (``BOT_DM``, 1), a group DM or a
DM between other users (``PRIVATE_CHANNEL``, 2). A global command says where it can be used
with ``integration_types`` and ``contexts`` (application-commands.mdx, "Contexts"); a
guild command only in its guild, installed there.

What an interaction carries of them, as documented:

- ``context``: where it was triggered;
- ``authorizing_integration_owners``: a key for each installation it was authorized for
  (the app installed in that context, the source context supported by it and, for a
  command, the command's ``integration_types``): ``"0"`` the guild id (``"0"`` in a DM with
  the bot), ``"1"`` the authorizing user's id. A component or a modal on a message is
  authorized by the installation that made that message: its owners are the message
  interaction's (for a user install, the user who ran the command, not the one clicking);
- ``app_permissions``: in a server where the bot is a member, its permissions in the
  channel; in a group DM (or another DM) ``ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE``,
  and with ``USE_EXTERNAL_EMOJIS`` in a DM with the bot. In a server the bot is not a
  member of (a user install used there) Discord does not document the value: the loopback
  sends what @everyone may do in that channel (the app acts through the user's
  interaction, as the people there could).

Where the bot is not a member (a group DM it is not in, a server that did not add it) it
cannot read or write the channel: every ``/channels/{id}`` route answers 403 ``{"code":
50001, "message": "Missing Access"}`` (``messages.MessageRoutes.open_channel``, counted by
reason ``not_a_member``), and the gateway sends none of the channel's events.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from .records import DM_APP_PERMISSIONS, Identity

GUILD_INSTALL, USER_INSTALL = 0, 1
CONTEXT_GUILD, CONTEXT_BOT_DM, CONTEXT_PRIVATE_CHANNEL = 0, 1, 2
DM_CHANNEL, GROUP_DM_CHANNEL = 1, 3
PRIVATE_APP_PERMISSIONS = discord.Permissions(
    attach_files=True, embed_links=True, mention_everyone=True)
"""``app_permissions`` in a group DM or a DM between users (receiving-and-responding.mdx)."""


class PlaceGuild(Protocol):
    """What this module needs of a guild (``models.Guild``)."""

    id: int
    bot_member: Identity
    bot_present: bool
    members_by_id: dict[int, Identity]

    def permissions_in(self, ident: Identity, channel: Any) -> discord.Permissions: ...


class Place(Protocol):
    """What this module needs of a channel (``models.Channel``)."""

    id: int
    type: int
    recipients: list[Identity]

    @property
    def guild(self) -> Any: ...


def context_of(channel: Place, bot: Identity) -> int:
    """The interaction context of an interaction from ``channel``."""
    if channel.guild is not None:
        return CONTEXT_GUILD
    if channel.type == DM_CHANNEL:  # the loopback's DMs are the bot's (POST /users/@me/channels)
        return CONTEXT_BOT_DM
    return CONTEXT_PRIVATE_CHANNEL


def bot_is_member(channel: Place, bot: Identity) -> bool:
    """Whether the bot can see ``channel``'s messages and write there at all: a member of
    its server, one of a group DM's recipients, the other side of a DM."""
    guild = channel.guild
    if guild is not None:
        return bool(guild.bot_present)
    return channel.type == DM_CHANNEL or any(r.id == bot.id for r in channel.recipients)


def installations(channel: Place, user: Identity, bot: Identity) -> dict[int, int]:
    """The installations that could authorize an interaction of ``user`` in ``channel``
    (installation context → owner id), before a command's own ``integration_types``."""
    found: dict[int, int] = {}
    context = context_of(channel, bot)
    guild = channel.guild
    if context == CONTEXT_GUILD and guild is not None and guild.bot_present:
        found[GUILD_INSTALL] = guild.id
    elif context == CONTEXT_BOT_DM:
        found[GUILD_INSTALL] = 0
    if user.installed:
        found[USER_INSTALL] = user.id
    return found


def command_owners(cmd: dict[str, Any], channel: Place, user: Identity, bot: Identity
                   ) -> dict[int, int]:
    """The installations a command authorizes here (none: the user does not see it)."""
    context = context_of(channel, bot)
    if cmd.get("guild_id"):  # a guild command: only in its guild, where it is installed
        guild = channel.guild
        if guild is None or str(guild.id) != str(cmd["guild_id"]) or not guild.bot_present:
            return {}
        return {GUILD_INSTALL: guild.id}
    contexts = cmd.get("contexts")
    if contexts is not None and context not in contexts:
        return {}
    if context == CONTEXT_PRIVATE_CHANNEL and contexts is None:
        return {}  # a group DM shows only commands that say they work there
    types = cmd.get("integration_types") or [GUILD_INSTALL]
    return {k: v for k, v in installations(channel, user, bot).items() if k in types}


def component_owners(metadata: dict[str, Any] | None, channel: Place, user: Identity,
                     bot: Identity) -> dict[int, int]:
    """The installations a click on a message authorizes: those of the interaction that
    made the message (its ``interaction_metadata``), else those of the channel."""
    if metadata and metadata.get("authorizing_integration_owners"):
        return {int(k): int(v) for k, v in metadata["authorizing_integration_owners"].items()}
    return installations(channel, user, bot)


def group_dm_fields(recipients: list[Identity]) -> dict[str, Any]:
    """A group DM channel's own fields (channel.mdx): its people, its owner, its icon."""
    return {"recipients": [r.user_payload() for r in recipients],
            "owner_id": str(recipients[0].id), "icon": None}


DM_PERMISSIONS = discord.Permissions.text() | discord.Permissions(view_channel=True)
"""What a person may do in a DM or a group DM (no server, no overwrites)."""


def user_command_data(cmd: dict[str, Any], target: Identity, channel: Place) -> dict[str, Any]:
    """The ``data`` of a user command used on ``target`` (application-commands.mdx, "User
    Commands"): its ``target_id`` and the target ``resolved``, in a server with the member
    and their permissions in the channel."""
    resolved: dict[str, dict[str, Any]] = {"users": {str(target.id): target.user_payload()}}
    guild: PlaceGuild | None = channel.guild
    if guild is not None and target.id in guild.members_by_id:
        resolved["members"] = {str(target.id): {
            **target.member_payload(with_user=False),
            "permissions": str(guild.permissions_in(target, channel).value)}}
    data: dict[str, Any] = {"id": str(cmd["id"]), "name": cmd["name"], "type": 2,
                            "target_id": str(target.id), "resolved": resolved}
    if cmd.get("guild_id"):
        data["guild_id"] = cmd["guild_id"]
    return data


def owners_payload(owners: dict[int, int]) -> dict[str, str]:
    return {str(k): str(v) for k, v in sorted(owners.items())}


def app_permissions(channel: Place, bot: Identity) -> discord.Permissions:
    """``app_permissions`` of an interaction from ``channel`` (see the module's text)."""
    guild: PlaceGuild | None = channel.guild
    if guild is not None:
        if guild.bot_present:
            return guild.permissions_in(guild.bot_member, channel)
        everyone = Identity(guild.id, "@everyone")  # no roles of its own, no overwrite
        return guild.permissions_in(everyone, channel)
    if context_of(channel, bot) == CONTEXT_BOT_DM:
        return DM_APP_PERMISSIONS
    return PRIVATE_APP_PERMISSIONS

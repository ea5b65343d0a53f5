"""Invitations from a member's menu: the user command "Play UNO with…".

Used on a member of a server (or a person of a group DM), it opens a lobby in the channel,
or takes the one that is open, and shows it anew with a line that mentions that person
(the message may notify them and no one else): they join with one click on its Join.
The lobby moves down to the invitation (its old message loses its buttons), as with
``/uno table``. In a server, a person who can't see the channel is not mentioned: the
inviter is told so in one private sentence.

A context menu command can't be a method of a cog's group: the cog makes it and adds it to
the tree when it loads (and takes it out when it unloads). It is offered wherever the
``/uno`` commands are: both installations, all three interaction contexts.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.uno._places import in_replies, place_id
from cogs.uno._plays import actor_of
from cogs.uno._reply import Reply, answer
from cogs.uno.show.lobby import lobby_embed, lobby_view
from cogs.uno.table.contracts import Refusal
from runtime.i18n import _

if TYPE_CHECKING:
    from cogs.uno._cog import UnoCog
    from runtime.unobot import UnoBot

log = logging.getLogger(__name__)

INVITE_COMMAND = "Play UNO with…"
"""The user command's name, as a member's menu shows it (Apps)."""


class InviteCog(commands.Cog):
    """The "Play UNO with…" user command (the game's cog, ``uno``, owns the games)."""

    def __init__(self, bot: UnoBot, uno: UnoCog) -> None:
        self.bot = bot
        self.uno = uno
        self.menu: app_commands.ContextMenu = app_commands.ContextMenu(
            name=INVITE_COMMAND, callback=self.invite,
            allowed_contexts=app_commands.AppCommandContext(
                guild=True, dm_channel=True, private_channel=True),
            allowed_installs=app_commands.AppInstallationType(guild=True, user=True))

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.menu)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.menu.name, type=self.menu.type)

    async def invite(self, interaction: discord.Interaction[Any],
                     user: discord.Member | discord.User) -> None:
        await answer(interaction, lambda reply: self._invite(reply, interaction, user),
                     public=True)

    async def _invite(self, reply: Reply, interaction: discord.Interaction[Any],
                      guest: discord.Member | discord.User) -> None:
        assert interaction.channel_id is not None
        actor = actor_of(interaction)
        if guest.bot:
            raise Refusal("Invite a person: computer players are added from the lobby.")
        if guest.id == interaction.user.id:
            raise Refusal("Pick someone else to invite: you can join the lobby yourself.")
        seen = guest.resolved_permissions if isinstance(guest, discord.Member) else None
        if interaction.guild_id is not None and seen is not None and not seen.view_channel:
            raise Refusal("{name} can't see this channel, so I didn't invite them.",
                          name=guest.display_name)
        service = self.uno.service
        session = service.sessions.get(interaction.channel_id)
        if session is None:
            session = await service.lobbies.open(interaction.channel_id, place_id(interaction),
                                                 actor, replies=in_replies(interaction))
        elif session.started:
            raise Refusal("A game is already under way here: invite them to the next one.")
        if any(seat.id == str(guest.id) for seat in session.seats):
            raise Refusal("{name} is already in the lobby.", name=guest.display_name)
        language = session.options.language  # a public message: the game's language
        shown = session.saved
        text = _("{guest}, {host} invites you to play UNO: press Join to take a seat.",
                 language, guest=guest.mention, host=actor.name)
        message_id = await reply.send(text, embed=lobby_embed(session, language),
                                      view=lobby_view(session, language), mention=guest)
        if message_id is not None:
            self.uno.outbox.answered_with(session, message_id, interaction)
        # the lobby moves down to the invitation: the old message loses its buttons
        await service.lobbies.set_message(session, lobby=message_id, shown=shown)
        log.info("Channel %s: %s invited %s", interaction.channel_id, actor.id, guest.id)


__all__ = ["INVITE_COMMAND", "InviteCog"]

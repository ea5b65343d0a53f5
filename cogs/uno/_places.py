"""Where a game is played, and what the bot can do there.

The app can be installed to a server (its bot a member: it posts and edits in the channel)
or to a user (its commands follow that user to group DMs and to servers that did not add
the bot). An interaction says which installations authorized it
(``authorizing_integration_owners``, ``Interaction.is_guild_integration``) and where it
came from (``Interaction.context``). Where the bot is not a member of the channel it can't
post or edit a channel message there: such a game lives **in replies**, its lobby, table
and results all interaction responses and their followups, written through the game's
newest interaction token (``_outbox.py``), never the channel's routes. No thread can be
opened, and no reminder is posted for a turn. A DM with the bot is played the same way.

A place's leaderboard and settings belong to its server, or, where there is none (a group
DM, a DM), to the channel itself: one group never sees another's.
"""

from __future__ import annotations

from typing import Any

import discord


def in_replies(interaction: discord.Interaction[Any]) -> bool:
    """Whether a game opened by this interaction lives in interaction replies only: no
    server installation authorized it, so the bot is not a member of the channel (a group
    DM, a server that did not add the app). A DM with the bot is played the same way (its
    replies are all it needs there). A server's channel where the app was added is written
    to as a channel."""
    return not interaction.is_guild_integration()


def place_id(interaction: discord.Interaction[Any]) -> int:
    """What keys a place's leaderboard and settings: the server, else the channel."""
    if interaction.guild_id is not None:
        return interaction.guild_id
    assert interaction.channel_id is not None
    return interaction.channel_id


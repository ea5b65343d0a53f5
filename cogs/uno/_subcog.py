"""Cogs that add their commands to the ``/uno`` group owned by the UNO cog.

A cog's app commands normally go to the top level of the command tree; these are moved
under ``/uno`` when the cog is made (so ``/uno leaderboard``, ``/uno log``, ``/uno rules``
live with the code they belong to) and taken out when it unloads.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands


class UnoSubCog(commands.Cog):
    def __init__(self, group: app_commands.Group) -> None:
        self.group = group
        self.subcommands = list(self.__cog_app_commands__)
        for command in self.subcommands:
            group.add_command(command)
        # With a parent, the cog must not add them to the tree at top level as well.
        self.__cog_app_commands__ = []

    async def cog_unload(self) -> None:
        for command in self.subcommands:
            self.group.remove_command(command.name)

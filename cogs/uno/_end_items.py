"""The end of a game's component families (``_components`` has the others and their base).

=====================  ==========================================================
family                 custom_id
=====================  ==========================================================
AgainButton            ``uno:again:<gid>``   Play again (a finished game's result)
EndButton              ``uno:end:<yes|no>:<gid>:<until>``   /uno end's question (until: ms)
=====================  ==========================================================
"""

from __future__ import annotations

import re
from typing import Any, Self

import discord

from cogs.uno._components import GID, GameCog, UnoItem, button
from cogs.uno._reply import Reply


class AgainButton(UnoItem, template=rf"uno:again:{GID}"):
    """Play again, on a finished game's result: a lobby with its seats and settings."""

    family = "again"
    edits = True

    def __init__(self, gid: str, label: str = "", emoji: str | None = None) -> None:
        self.gid = gid
        super().__init__(button(f"uno:again:{gid}", label, discord.ButtonStyle.success,
                                 emoji, None, False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"])

    async def act(self, reply: Reply, interaction: discord.Interaction[Any], cog: GameCog) -> None:
        await cog.again_click(reply, interaction, self.gid)


class EndButton(UnoItem, template=rf"uno:end:(?P<action>yes|no):{GID}:(?P<until>\d{{1,15}})"):
    """/uno end's question: confirm (``yes``) or cancel (``no``), until it expires."""

    family = "end"
    edits = True

    def __init__(self, action: str, gid: str, until: int, label: str = "") -> None:
        self.action, self.gid, self.until = action, gid, until
        style = discord.ButtonStyle.danger if action == "yes" else discord.ButtonStyle.secondary
        super().__init__(button(f"uno:end:{action}:{gid}:{until}", label, style, None, None,
                                 False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["action"], match["gid"], int(match["until"]))

    async def act(self, reply: Reply, interaction: discord.Interaction[Any], cog: GameCog) -> None:
        await cog.end_click(reply, interaction, self.action == "yes", self.gid, self.until)


END_FAMILIES: tuple[type[UnoItem], ...] = (AgainButton, EndButton)

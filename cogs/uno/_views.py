"""Components with stable ``uno:`` custom_ids, so buttons keep working after a restart.

One ``DynamicItem`` class routes every ``uno:`` component to the cog; the custom_id says
what it is:

- ``uno:l:<action>:<gid>``            lobby (join, leave, cpu, start, cancel)
- ``uno:t:<action>:<gid>``            table (hand, draw, uno, catch, accept, challenge)
- ``uno:p:<gid>:<serial>:<page>``     the play select of a hand (values ``R7`` or ``R7|u``)
- ``uno:pg:<gid>:<serial>:<page>``    another page of the play select
- ``uno:d:<gid>:<serial>``            draw, from a hand
- ``uno:dp:<gid>:<serial>`` / ``uno:dk:<gid>:<serial>``   play / keep the drawn card
- ``uno:c:<gid>:<serial>:<card>:<u>:<color>``  colour for a wild
- ``uno:tw:<gid>:<serial>:<card>:<u>:<color>`` tower select for a grab card
- ``uno:k:<gid>:<serial>``            instant UNO: the card to keep
- ``uno:oc:<gid>:<serial>:<color>``   the starting colour for a wild first card
- ``uno:lb:<order>:<page>``           leaderboard pages
- ``uno:rules:<page>``                rules pages

``serial`` counts the game's turn moves: a menu from before the last move is stale.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from cogs.i18n import _

if TYPE_CHECKING:
    from cogs.uno._cog import UnoCog

log = logging.getLogger(__name__)


class UnoComponent(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"uno:(?P<rest>\S+)"):
    """Any ``uno:`` button or select, routed to the cog by its custom_id."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: Any) -> UnoComponent:
        return cls(item)

    @property
    def cid(self) -> str:
        value = getattr(self.item, "custom_id", None)
        assert isinstance(value, str)
        return value

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog: UnoCog | None = interaction.client.get_cog("Uno")
        if cog is None:
            await interaction.response.send_message(
                _("The game service is restarting: try again in a moment.", interaction.locale),
                ephemeral=True)
            return
        values = list(getattr(self.item, "values", []) or [])
        await cog.on_component(interaction, self.cid, values)


def button(label: str, custom_id: str, *,
           style: discord.ButtonStyle = discord.ButtonStyle.secondary,
           emoji: str | None = None, row: int | None = None,
           disabled: bool = False) -> UnoComponent:
    return UnoComponent(discord.ui.Button(label=label, custom_id=custom_id, style=style,
                                          emoji=emoji, row=row, disabled=disabled))


def select(custom_id: str, options: list[discord.SelectOption], placeholder: str, *,
           min_values: int = 1, max_values: int = 1, row: int | None = None) -> UnoComponent:
    return UnoComponent(discord.ui.Select(custom_id=custom_id, options=options,
                                          placeholder=placeholder, min_values=min_values,
                                          max_values=max_values, row=row))


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view

"""The live hand panel's own component families (``_components`` has the others and their
base): a card to play, the towers it grabs, the card to keep after an instant UNO, each in
one click.

=====================  ==========================================================
family                 custom_id
=====================  ==========================================================
CardButton             ``uno:pc:<gid>:<serial>:<card>[:u]``   play a card (``u``: and
                       call UNO)
TowerButton            ``uno:tb:<gid>:<serial>:<card>:<u>:<color>:<towers>``   the towers
                       a card grabs (a pair in one click)
KeepButton             ``uno:kb:<gid>:<serial>:<card>[:u]``   instant UNO: the card to keep
=====================  ==========================================================
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Self

import discord

from cogs.uno._components import (
    CARD,
    COLOR,
    GID,
    SERIAL,
    TOWERS,
    GameCog,
    UnoItem,
    button,
    card_code,
    color_of,
    towers_value,
)
from cogs.uno._reply import Reply
from engine import Keep


class CardChoice(UnoItem, template=r"(?!)"):
    """A card button of the panel, ``uno:<prefix>:<gid>:<serial>:<card>[:u]`` (``u``: and
    call UNO); each family says what choosing the card does."""

    prefix: ClassVar[str]

    def __init__(self, gid: str, serial: int, card: str, uno: bool = False, label: str = "",
                 *, emoji: discord.PartialEmoji | str | None = None,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 disabled: bool = False, row: int | None = None) -> None:
        self.gid, self.serial, self.card, self.uno = gid, serial, card, uno
        tail = ":u" if uno else ""
        super().__init__(discord.ui.Button(
            label=label[:80] or None, custom_id=f"uno:{self.prefix}:{gid}:{serial}:{card}{tail}",
            style=style, emoji=emoji, row=row, disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), match["card"], bool(match["uno"]))


class CardButton(CardChoice, template=rf"uno:pc:{GID}:{SERIAL}:{CARD}(?::(?P<uno>u))?"):
    """One card of the live hand panel: a click plays it (``u``: and calls UNO), or asks
    what it still needs (its colour, its towers) in the same panel."""

    family = "card"
    prefix = "pc"

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        await cog.plays.play(reply, cog.actor(interaction), interaction.channel_id, self.gid,
                             self.serial, card_code(self.card), self.uno, None, None)


class TowerButton(UnoItem, template=rf"uno:tb:{GID}:{SERIAL}:{CARD}:(?P<uno>[01]):{COLOR}"
                                     rf":{TOWERS}"):
    """The towers a card grabs, all of them in one click (Grab-2-Towers: one button per
    pair), the colour already chosen for a wild."""

    family = "tower"

    def __init__(self, gid: str, serial: int, card: str, uno: bool, color: str,
                 towers: str, label: str = "", *, row: int | None = None) -> None:
        self.gid, self.serial, self.card, self.uno = gid, serial, card, uno
        self.color, self.towers = color, towers
        super().__init__(button(f"uno:tb:{gid}:{serial}:{card}:{int(uno)}:{color}:{towers}",
                                 label, discord.ButtonStyle.primary, None, row, False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), match["card"], match["uno"] == "1",
                   match["color"], match["towers"])

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        await cog.plays.play(reply, cog.actor(interaction), interaction.channel_id, self.gid,
                             self.serial, card_code(self.card), self.uno,
                             color_of(self.color), towers_value(list(self.towers)))


class KeepButton(CardChoice, template=rf"uno:kb:{GID}:{SERIAL}:{CARD}(?::(?P<uno>u))?"):
    """Instant UNO: the one card to keep (``u``: and call UNO), in one click."""

    family = "keepcard"
    prefix = "kb"

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        card, uno = card_code(self.card), self.uno
        await cog.plays.move(reply, cog.actor(interaction), interaction.channel_id,
                             lambda s, g, p: Keep(p, card, uno), gid=self.gid,
                             serial=self.serial)


PANEL_FAMILIES: tuple[type[UnoItem], ...] = (CardButton, TowerButton, KeepButton)

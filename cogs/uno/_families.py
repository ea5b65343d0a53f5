"""Every ``uno:`` component family the extension registers, and the two clicks discord.py
does not bring to one of them by itself.

- :class:`RetiredComponent` takes any other ``uno:`` id (a retired family, a forged or
  garbled id) and answers it as no longer in use. discord.py runs every registered family
  whose template matches a click, so its template leaves out every id another family
  takes: one family, not two, runs for each click.
- A click on a component that the message no longer has (the bot's edit removed it
  between what the person saw and the click: a card played by the timer, a panel moved on
  by another player's move): discord.py looks for the component in the message, finds
  none and drops the click, and the person would see "This interaction failed".
  :func:`missed_click` (called by the game cog for every interaction) brings it to its
  family as a click of that custom_id, which answers it as any out-of-date click is.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import discord

from cogs.uno._components import FAMILIES, UnoItem, button
from cogs.uno._end_items import END_FAMILIES
from cogs.uno._leaderboard import LeaderboardPage
from cogs.uno._panel_items import PANEL_FAMILIES
from cogs.uno._rules import RulesPage

log = logging.getLogger(__name__)

MAX_CUSTOM_ID = 100
"""Discord's longest custom_id."""

FAMILIES_IN_USE: tuple[type[UnoItem], ...] = (
    *FAMILIES, *PANEL_FAMILIES, *END_FAMILIES, RulesPage, LeaderboardPage)
"""The families that mean something."""


def _anonymous(pattern: str) -> str:
    """``pattern`` with its named groups unnamed (so several can be joined)."""
    return re.sub(r"\(\?P<\w+>", "(?:", pattern)


_OTHERS = "|".join(_anonymous(f.pattern.pattern) for f in FAMILIES_IN_USE)
RETIRED = rf"(?!(?:{_OTHERS})\Z)uno:(?P<rest>.{{0,{MAX_CUSTOM_ID - 4}}})"
"""Any ``uno:`` id that no family in use takes."""


class RetiredComponent(UnoItem, template=RETIRED):
    """Any other ``uno:`` id: answered as no longer in use (``UnoItem.act``)."""

    family = "retired"

    def __init__(self, rest: str) -> None:
        self.rest = rest
        super().__init__(button(f"uno:{rest}", "", discord.ButtonStyle.secondary, None, None,
                                True))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> RetiredComponent:
        return cls(match["rest"])


REGISTERED: tuple[type[UnoItem], ...] = (*FAMILIES_IN_USE, RetiredComponent)
"""Every component family the extension registers (``bot.add_dynamic_items``)."""

BUTTON, STRING_SELECT = discord.ComponentType.button, discord.ComponentType.select


def components_in(components: list[Any]) -> Iterator[Any]:
    """Every component of a message's, nested ones included (action rows, containers,
    sections and their accessories, labels)."""
    for component in components:
        yield component
        inner = list(getattr(component, "children", ()))
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            inner.append(accessory)
        labelled = getattr(component, "component", None)
        if labelled is not None:
            inner.append(labelled)
        yield from components_in(inner)


def shows(message: discord.Message, kind: discord.ComponentType, custom_id: str) -> bool:
    """Whether ``message`` has the component clicked (as discord.py looks for it: its
    type and custom_id)."""
    return any(c.type is kind and getattr(c, "custom_id", None) == custom_id
               for c in components_in(list(message.components)))


async def missed_click(interaction: discord.Interaction[Any]) -> bool:
    """Answer a click on a ``uno:`` button or select the message no longer has, through
    its family (True); discord.py answers every other click itself (False)."""
    if interaction.type is not discord.InteractionType.component:
        return False
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = str(data.get("custom_id", ""))
    message = interaction.message
    if not custom_id.startswith("uno:") or message is None:
        return False
    try:
        kind = discord.ComponentType(int(data.get("component_type", 0)))
    except ValueError:
        return False
    if kind not in (BUTTON, STRING_SELECT) or shows(message, kind, custom_id):
        return False
    for family in REGISTERED:
        match = family.pattern.fullmatch(custom_id)
        if match is None:
            continue
        base: discord.ui.Item[Any] = (discord.ui.Button(custom_id=custom_id) if kind is BUTTON
                                      else discord.ui.Select(custom_id=custom_id))
        try:
            item = await family.from_custom_id(interaction, base, match)
        except Exception:
            log.exception("A click on %s that its message no longer shows was dropped",
                          custom_id)
            return False
        if item.item.type is not kind:
            return False  # not what the family shows: nothing of ours
        await item.callback(interaction)
        return True
    return False

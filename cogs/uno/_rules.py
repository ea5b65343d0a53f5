"""`/uno rules`: the rules in short pages (our own summary; RULES.md has the full text)."""

from __future__ import annotations

import re
from typing import Any, Self

import discord
from discord import app_commands

from cogs.uno._components import UnoItem, view_of
from cogs.uno._reply import Reply, answer
from cogs.uno._subcog import UnoSubCog
from runtime.i18n import Locale, _


def rule_pages(locale: Locale = None) -> list[tuple[str, str]]:
    return [
        (_("Goal and turns", locale), _(
            "Be first to empty your hand; the round winner scores the cards left in the other "
            "hands, and the first to the target (500 by default) wins the game.\n"
            "On your turn, play a card that matches the top card by colour, number or symbol, "
            "or any wild. Power Icons (U, N, O, !) on number cards never count for matching.\n"
            "If you can't or won't play, draw one card: you may play that card at once, or "
            "keep it and end your turn.", locale)),
        (_("Action cards", locale), _(
            "**Draw One / Draw Two**: the next player draws 1 / 2 and misses the turn.\n"
            "**Skip**: the next player misses the turn. **Reverse**: play changes direction.\n"
            "**Grab-2-Towers**: take two towers you don't hold. **Wild Grab-A-Tower**: "
            "name a colour and take one tower.\n"
            "**Wild Draw Four**: name a colour; the next player draws 4 and misses the turn. "
            "It is only legal when you hold no card of the colour in play.", locale)),
        (_("Power Towers", locale), _(
            "Playing a number card with a Power Icon grabs that tower, from the tray or from "
            "whoever holds it.\nA tower blocks its card automatically when it is played on "
            "you: **U** Draw One, **N** Draw Two, **O** Wild Draw Four, **!** Skip.\n"
            "Hold all four towers for an **instant UNO**: keep one card of your choice, the "
            "rest go to the discard pile, and the towers go back to the tray.", locale)),
        (_("Challenges", locale), _(
            "When a Wild Draw Four is played on you, accept it (draw 4, lose your turn) or "
            "challenge it. You alone then see the player's hand. If they held a card of the "
            "colour in play, they draw 4 and you play; if not, you draw 6 and lose your turn."
            "\nNo answer before the timer runs out counts as accepting.", locale)),
        (_("UNO!", locale), _(
            "Call UNO when you play your next-to-last card (the play menu offers *play and "
            "call UNO*), or press **UNO!** on your turn with two cards.\n"
            "Forget, and anyone can press **Catch** until the next player makes their move: "
            "you draw 2.", locale)),
        (_("Victory Lap", locale), _(
            "In the UNO Victory Lap edition the **Victory Lap** is a wild (50 points): name "
            "a colour, then every hand moves one seat in the direction of play, face down.\n"
            "You alone look at the hand in front of you: **Keep** it, or **Pass** it on (every "
            "hand moves one seat more). A pass that brings your own hand back ends the lap: "
            "you keep it.\n"
            "Everyone then takes the hand in front of them and play goes on. Keep one card "
            "and you must call UNO; played as your last card, it just ends the round.",
            locale)),
        (_("Two players, scoring and timers", locale), _(
            "With two players Reverse works like Skip, and after a Skip or a drawing card "
            "you play again.\nScores: numbers face value, other action cards 20, wilds 50. "
            "If the last card is a drawing card, the next player still draws before scoring.\n"
            "When your turn timer runs out you draw and pass; miss too many turns in a row "
            "and a computer player keeps your seat warm until you take it back with /uno "
            "join.", locale)),
    ]


class RulesPage(UnoItem, template=r"uno:rules:(?P<page>\d{1,2})"):
    family = "rules"

    def __init__(self, page: int, label: str = "") -> None:
        self.page = page
        super().__init__(discord.ui.Button(label=label or None, custom_id=f"uno:rules:{page}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, lambda reply: show_rules(reply, self.page), edit=True)


async def show_rules(reply: Reply, page: int) -> None:
    locale = reply.interaction.locale
    pages = rule_pages(locale)
    page %= len(pages)
    title, body = pages[page]
    embed = discord.Embed(title=title, description=body, colour=0x5865F2)
    embed.set_footer(text=_("Page {p} of {n}", locale, p=page + 1, n=len(pages)))
    view = view_of(RulesPage((page - 1) % len(pages), _("◀ Previous", locale)),
                   RulesPage((page + 1) % len(pages), _("Next ▶", locale)))
    await reply.send("", embed=embed, view=view)


class RulesCog(UnoSubCog, name="Rules"):
    @app_commands.command(name="rules", description="The rules, in short pages")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, lambda reply: show_rules(reply, 0))

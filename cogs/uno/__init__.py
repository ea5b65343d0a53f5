"""UNO games in Discord channels. The extension's entry point only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.uno._cog import UnoCog
from cogs.uno._components import FAMILIES, RetiredComponent
from cogs.uno._leaderboard import LeaderboardCog, LeaderboardPage
from cogs.uno._movelog import LogCog
from cogs.uno._rules import RulesCog, RulesPage

if TYPE_CHECKING:
    from bot import UnoBot


async def setup(bot: UnoBot) -> None:
    RetiredComponent.leave_to((*FAMILIES, RulesPage, LeaderboardPage))
    bot.add_dynamic_items(*FAMILIES, RulesPage, LeaderboardPage)
    uno = UnoCog(bot)
    await bot.add_cog(uno)
    group = uno.app_command
    assert group is not None
    await bot.add_cog(LeaderboardCog(bot, group))
    await bot.add_cog(LogCog(bot, uno.service, group))
    await bot.add_cog(RulesCog(group))

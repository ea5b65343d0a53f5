"""UNO games in Discord channels. The extension's entry point only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.uno._cog import UnoCog
from cogs.uno._families import REGISTERED, missed_click
from cogs.uno._invite import InviteCog
from cogs.uno._leaderboard import LeaderboardCog
from cogs.uno._movelog import LogCog
from cogs.uno._reply import limit_lag
from cogs.uno._rules import RulesCog
from cogs.uno._settings import SettingsCog

if TYPE_CHECKING:
    from runtime.unobot import UnoBot

__all__ = ["REGISTERED", "setup", "teardown"]


async def setup(bot: UnoBot) -> None:
    limit_lag(bot.config.max_lag_ms / 1000)
    bot.add_dynamic_items(*REGISTERED)
    # a click on a button or menu its message no longer shows (discord.py drops it)
    bot.add_listener(missed_click, "on_interaction")
    uno = UnoCog(bot)
    await bot.add_cog(uno)
    group = uno.app_command
    assert group is not None
    await bot.add_cog(LeaderboardCog(bot, group))
    await bot.add_cog(LogCog(bot, uno.service, group))
    await bot.add_cog(RulesCog(group))
    await bot.add_cog(SettingsCog(bot.db, uno.service, uno.pictures, group))
    await bot.add_cog(InviteCog(bot, uno))


async def teardown(bot: UnoBot) -> None:
    bot.remove_listener(missed_click, "on_interaction")
    bot.remove_dynamic_items(*REGISTERED)

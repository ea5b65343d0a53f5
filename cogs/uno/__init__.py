"""UNO games in Discord channels. The extension's entry point only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.uno._cog import UnoCog
from cogs.uno._views import UnoComponent

if TYPE_CHECKING:
    from bot import UnoBot


async def setup(bot: UnoBot) -> None:
    bot.add_dynamic_items(UnoComponent)
    await bot.add_cog(UnoCog(bot))

"""``/uno leaderboard`` and ``/uno stats``: each server's running totals, read-only.

Its own cog: it shares nothing with the games but the ``/uno`` command group, to which it
adds its two commands when it loads (after the UNO cog, which owns the group).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal, Self

import discord
from discord import app_commands

from cogs.uno._components import UnoItem, view_of
from cogs.uno._places import place_id
from cogs.uno._reply import Reply, answer
from cogs.uno._subcog import UnoSubCog
from runtime.i18n import Locale, _, ngettext, server_language

if TYPE_CHECKING:
    from runtime.unobot import UnoBot

LEADERBOARD_PAGE = 10
Order = Literal["wins", "points"]


class LeaderboardPage(UnoItem, template=r"uno:lb:(?P<order>wins|points):(?P<page>\d{1,6})"):
    family = "leaderboard"

    def __init__(self, order: Order, page: int, label: str = "", *,
                 disabled: bool = False) -> None:
        self.order, self.page = order, page
        super().__init__(discord.ui.Button(label=label or None, custom_id=f"uno:lb:{order}:{page}",
                                           disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls("points" if match["order"] == "points" else "wins", int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Leaderboard")
        if not isinstance(cog, LeaderboardCog):
            await interaction.response.send_message(
                _("The leaderboard is restarting: try again in a moment.", interaction.locale),
                ephemeral=True)
            return
        await answer(interaction, lambda reply: cog.show(reply, self.order, self.page),
                     edit=True)


class LeaderboardCog(UnoSubCog, name="Leaderboard"):
    def __init__(self, bot: UnoBot, group: app_commands.Group) -> None:
        self.bot = bot
        super().__init__(group)

    @app_commands.command(name="leaderboard", description="This server's best players")
    @app_commands.describe(order="Rank by games won or by points")
    @app_commands.choices(order=[app_commands.Choice(name="wins", value="wins"),
                                 app_commands.Choice(name="points", value="points")])
    async def leaderboard(self, interaction: discord.Interaction[Any],
                          order: str = "wins") -> None:
        await answer(interaction, lambda reply: self.show(
            reply, "points" if order == "points" else "wins", 0), public=True)

    async def show(self, reply: Reply, order: Order, page: int) -> None:
        interaction = reply.interaction
        guild_id = place_id(interaction)  # a group DM's own, where there is no server
        locale: Locale = interaction.locale
        # a public message: the server's language
        locale = server_language((await self.bot.db.get_guild_settings(guild_id)).language,
                                 interaction.guild_locale)
        total = await self.bot.db.leaderboard_size(guild_id)
        pages = max(1, -(-total // LEADERBOARD_PAGE))
        page = min(max(page, 0), pages - 1)
        rows = await self.bot.db.leaderboard(guild_id, order, LEADERBOARD_PAGE,
                                             page * LEADERBOARD_PAGE)
        if not rows:
            body = _("No games finished here yet: start one with /uno new.", locale)
        else:
            body = "\n".join(
                _("**{rank}.** <@{user}>: {wins} in {games} · {points} · {rounds} · {towers} · "
                  "best round {best}", locale,
                  rank=page * LEADERBOARD_PAGE + i + 1, user=r.user_id,
                  wins=ngettext("{n} win", "{n} wins", r.games_won, locale),
                  games=ngettext("{n} game", "{n} games", r.games_played, locale),
                  points=ngettext("{n} point", "{n} points", r.points, locale),
                  rounds=ngettext("{n} round", "{n} rounds", r.rounds_won, locale),
                  towers=ngettext("{n} tower", "{n} towers", r.towers_grabbed, locale),
                  best=r.best_round)
                for i, r in enumerate(rows))
        title = _("Leaderboard by wins", locale) if order == "wins" else \
            _("Leaderboard by points", locale)
        embed = discord.Embed(title=title, description=body, colour=0xF1C40F)
        embed.set_footer(text=_("Page {p} of {n}", locale, p=page + 1, n=pages))
        other: Order = "points" if order == "wins" else "wins"
        view = view_of(
            LeaderboardPage(order, max(page - 1, 0), _("◀ Previous", locale),
                            disabled=page == 0),
            LeaderboardPage(order, page + 1, _("Next ▶", locale), disabled=page + 1 >= pages),
            LeaderboardPage(other, 0, _("By points", locale) if order == "wins"
                            else _("By wins", locale)),
        )
        await reply.send(None, embed=embed, view=view)

    @app_commands.command(name="stats", description="A member's UNO figures in this server")
    @app_commands.describe(member="Whose figures (you, if empty)")
    async def stats(self, interaction: discord.Interaction[Any],
                    member: discord.User | None = None) -> None:
        await answer(interaction, lambda reply: self._stats(reply, member), public=True)

    async def _stats(self, reply: Reply, member: discord.User | None) -> None:
        interaction = reply.interaction
        locale = server_language(  # a public message: the server's language
            (await self.bot.db.get_guild_settings(place_id(interaction))).language,
            interaction.guild_locale)
        who = member or interaction.user
        row = await self.bot.db.player_stats(place_id(interaction), who.id)
        if row is None:
            await reply.send(_("{name} hasn't finished a game in this server yet.", locale,
                               name=who.display_name))
            return
        embed = discord.Embed(title=_("{name}'s UNO figures", locale, name=who.display_name),
                              colour=0xF1C40F)
        for label, value in (
            (_("Games played", locale), row.games_played), (_("Games won", locale), row.games_won),
            (_("Rounds won", locale), row.rounds_won), (_("Points", locale), row.points),
            (_("Towers grabbed", locale), row.towers_grabbed),
            (_("Best round", locale), row.best_round),
            (_("Partner games (won)", locale), f"{row.team_games} ({row.team_wins})"),
            (_("Tournaments (won)", locale),
             f"{row.tournaments_played} ({row.tournament_wins})"),
        ):
            embed.add_field(name=label, value=str(value))
        await reply.send(None, embed=embed)

"""``/uno settings`` (a game's and the server's) and ``/uno appearance`` (a person's look).

Its own cog: it adds its two commands to the ``/uno`` group when it loads (after the UNO
cog, which owns the group, the games and the hand pictures).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import discord
from discord import app_commands

from cogs.uno._pictures import HandPictures
from cogs.uno._places import place_id
from cogs.uno._plays import actor_of
from cogs.uno._reply import Reply, answer
from cogs.uno._subcog import UnoSubCog
from cogs.uno.table.contracts import EngineRefusal, Refusal
from cogs.uno.table.lobbies import options_from
from cogs.uno.table.service import TableService
from cogs.uno.table.session import Session
from cogs.uno.table.words.game import settings_text
from data import Database, DatabaseError
from data.models import (
    MISSED_TURNS_MAX,
    MISSED_TURNS_MIN,
    TARGET_MAX,
    TARGET_MIN,
    TURN_TIMER_MAX,
    TURN_TIMER_MIN,
)
from engine import SettingsError
from engine.settings import GRAB2_POINTS
from runtime.i18n import LANGUAGE_NAMES, LANGUAGES, Locale, _, language_of


def language_text(chosen: str | None, guild_locale: Locale, locale: Locale) -> str:
    """The server's language for new games, as /uno settings shows it."""
    if chosen:
        return _("language: {language}", locale, language=LANGUAGE_NAMES[chosen])
    return _("language: the server's ({language})", locale,
             language=LANGUAGE_NAMES[language_of(guild_locale)])


class SettingsCog(UnoSubCog, name="Settings"):
    def __init__(self, db: Database, service: TableService, pictures: HandPictures,
                 group: app_commands.Group) -> None:
        self.db = db
        self.service = service
        self.pictures = pictures
        super().__init__(group)

    @app_commands.command(name="settings", description="Show or change the game settings")
    @app_commands.describe(
        target=f"Points that win the game ({TARGET_MIN}-{TARGET_MAX})",
        scoring="standard: the winner scores the other hands; alternative: lowest total wins",
        edition="Which deck to play", grab2_points="What a Grab-2-Towers card scores",
        turn_timer=f"Seconds per turn ({TURN_TIMER_MIN}-{TURN_TIMER_MAX})",
        mention_turn="Mention the player whose turn it is",
        missed_turns=f"Turns in a row a player may miss before a computer player keeps their "
                     f"seat warm ({MISSED_TURNS_MIN}-{MISSED_TURNS_MAX})",
        shuffle_seats="Shuffle the seats at the start",
        threads="Server default: /uno new opens each game in a new thread (Manage Server)",
        mode="solo; partners (4 or 6, partners across); rotating partners match (4, 3 hands)",
        server_default="Also save these as this server's defaults (Manage Server)",
        language="This lobby's language (host), or new games' with server_default (Manage "
                 "Server)")
    @app_commands.choices(
        scoring=[app_commands.Choice(name="standard", value="standard"),
                 app_commands.Choice(name="alternative", value="alternative")],
        edition=[app_commands.Choice(name="UNO Power Grab", value="power-grab"),
                 app_commands.Choice(name="Classic UNO", value="classic"),
                 app_commands.Choice(name="UNO Victory Lap", value="victory-lap")])
    @app_commands.choices(grab2_points=[app_commands.Choice(name=str(v), value=v)
                                        for v in GRAB2_POINTS])
    @app_commands.choices(mode=[app_commands.Choice(name="everyone for themselves",
                                                   value="solo"),
                               app_commands.Choice(name="partners", value="partners"),
                               app_commands.Choice(name="rotating partners match",
                                                   value="rotating")])
    @app_commands.choices(language=[app_commands.Choice(name=LANGUAGE_NAMES[code], value=code)
                                    for code in LANGUAGES])
    async def settings(self, interaction: discord.Interaction[Any],
                       target: app_commands.Range[int, TARGET_MIN, TARGET_MAX] | None = None,
                       scoring: str | None = None, edition: str | None = None,
                       grab2_points: int | None = None,
                       turn_timer: app_commands.Range[int, TURN_TIMER_MIN, TURN_TIMER_MAX]
                       | None = None,
                       mention_turn: bool | None = None, shuffle_seats: bool | None = None,
                       threads: bool | None = None, mode: str | None = None,
                       server_default: bool = False, language: str | None = None,
                       missed_turns: app_commands.Range[int, MISSED_TURNS_MIN, MISSED_TURNS_MAX]
                       | None = None) -> None:
        changes = {k: v for k, v in {
            "target": target, "scoring": scoring, "edition": edition,
            "grab2_points": grab2_points, "turn_timer": turn_timer,
            "mention_turn": mention_turn, "shuffle_seats": shuffle_seats,
            "mode": mode, "missed_turns": missed_turns}.items()
            if v is not None}
        server_only = {k: v for k, v in {"threads": threads, "language": language}.items()
                       if v is not None}
        await answer(interaction,
                     lambda reply: self._settings(reply, interaction, changes,
                                                  server_default, server_only))

    async def _settings(self, reply: Reply, interaction: discord.Interaction[Any],
                        changes: dict[str, Any], server_default: bool,
                        server_only: dict[str, Any]) -> None:
        """``server_only``: settings of the server, not of a game (games in threads)."""
        assert interaction.channel_id is not None
        actor = actor_of(interaction)
        locale = actor.locale
        session = self.service.sessions.get(interaction.channel_id)
        game_changes = dict(changes)
        if "language" in server_only and session is not None and not session.started:
            # an open lobby's language is its host's choice, like its other settings; it is
            # also the server's default only when asked (server_default:True)
            game_changes["language"] = server_only["language"]
            if not server_default:
                server_only = {k: v for k, v in server_only.items() if k != "language"}
        server_default = server_default or bool(server_only)
        if server_default and not actor.admin:
            raise Refusal("Only members with Manage Server can change the server's defaults.")
        if session is not None and game_changes and not (server_default and session.started):
            session = await self.service.lobbies.configure(interaction.channel_id, actor,
                                                           game_changes)
        if session is None and "mode" in changes:
            raise Refusal("Partner play is chosen per game: open a lobby with /uno new, "
                          "then set its mode.")
        if server_default or (session is None and changes):
            changes = {k: v for k, v in changes.items() if k != "mode"}  # a game's choice
            if not actor.admin:
                raise Refusal("Only members with Manage Server can change the server's "
                              "defaults.")
            current = await self.db.get_guild_settings(place_id(interaction))
            try:
                merged = dataclasses.replace(current, **changes, **server_only)
            except ValueError as exc:  # out of range: the data layer says why (in English)
                raise EngineRefusal(SettingsError(str(exc))) from None
            await self.db.set_guild_settings(merged)
        parts = []
        if session is not None:
            parts.append(_("Settings for this game: {s}", locale,
                           s=settings_text(session, locale)) + " · "
                         + _("language: {language}", locale,
                             language=LANGUAGE_NAMES[session.options.language]))
        if session is None or server_default:
            defaults = await self.db.get_guild_settings(place_id(interaction))
            probe = Session(0, 0, "", options=options_from(defaults))
            parts.append(_("This server's defaults: {s}", locale, s=settings_text(probe, locale))
                         + " · " + (_("games open in a new thread", locale) if defaults.threads
                                    else _("games open in the channel", locale))
                         + " · " + language_text(defaults.language, interaction.guild_locale,
                                                 locale))
        await reply.send("\n".join(parts))

    @app_commands.command(name="appearance",
                          description="How your cards are drawn for you (only you see this)")
    @app_commands.describe(high_contrast="Stronger colours and thicker outlines for your cards")
    async def appearance(self, interaction: discord.Interaction[Any],
                         high_contrast: bool | None = None) -> None:
        async def work(reply: Reply) -> None:
            locale = interaction.locale
            user = interaction.user.id
            if high_contrast is not None:
                try:
                    await self.pictures.set_high_contrast(user, high_contrast)
                except DatabaseError:
                    raise Refusal("Your choice couldn't be saved: try again in a "
                                  "moment.") from None
            # read now: the change may have come through another process of the fleet
            contrast = await self.pictures.high_contrast(user, fresh=high_contrast is None)
            await reply.send(_("Your cards are drawn in high contrast (in every server).", locale)
                             if contrast else
                             _("Your cards are drawn in the normal look (in every server).",
                               locale))
        await answer(interaction, work)

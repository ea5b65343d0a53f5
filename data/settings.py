"""Settings kept for the bot's users: each guild's table settings and each person's own."""

from __future__ import annotations

from data import queries
from data.backend import Backend
from data.models import GuildSettings, UserSettings


class StoredSettings:
    """A guild's settings (``/uno settings``) and a person's (``/uno appearance``)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults when the guild never saved any."""
        row = await self._backend.fetch_one(queries.GET_GUILD_SETTINGS, (guild_id,))
        return GuildSettings.from_row(row) if row is not None else GuildSettings(guild_id)

    async def set_guild_settings(self, settings: GuildSettings) -> None:
        params = (
            settings.guild_id,
            settings.target,
            settings.scoring,
            settings.grab2_points,
            settings.edition,
            settings.turn_timer,
            int(settings.mention_turn),
            int(settings.shuffle_seats),
            int(settings.threads),
            settings.language,
            settings.missed_turns,
        )
        async with self._backend.write(f"save the settings of guild {settings.guild_id}") as tx:
            await tx.execute(queries.UPSERT_GUILD_SETTINGS, params)

    async def get_user_settings(self, user_id: int) -> UserSettings:
        """The person's settings, or the defaults when they never saved any."""
        row = await self._backend.fetch_one(queries.GET_USER_SETTINGS, (user_id,))
        return UserSettings.from_row(row) if row is not None else UserSettings(user_id)

    async def set_user_settings(self, settings: UserSettings) -> None:
        async with self._backend.write(f"save the settings of user {settings.user_id}") as tx:
            await tx.execute(queries.UPSERT_USER_SETTINGS,
                             (settings.user_id, int(settings.high_contrast)))

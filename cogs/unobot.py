"""The bot: one typed ``commands.Bot`` with its settings, its database and the extensions
it loads by name (``EXTENSIONS``). bot.py (the entry point) builds and runs it; the game's
cogs type their ``bot`` with it."""

from __future__ import annotations

import logging
from collections.abc import Callable

import aiohttp
import discord
from discord.ext import commands

import gcwatch
from cogs.translator import CatalogueTranslator
from data import Database
from settings import Config

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = ("cogs.uno",)

INTENTS = discord.Intents(guilds=True, guild_messages=True)
"""What the bot asks of the gateway: its guilds, channels and threads (GUILDS), and that a
message was posted in a channel or thread (GUILD_MESSAGES: MESSAGE_CREATE, counted to know
when chat has buried a game's table; not privileged). Not MESSAGE_CONTENT (privileged: the
bot never reads what people write; without it the events come with their content empty), nor
the members or presences (privileged), nor typing, reactions, voice or DMs, which it never
uses (in a busy server those would be most of the gateway's traffic)."""

HTTP_CONNECTIONS = 300
"""Connections to Discord's HTTP API at most (discord.py's default: no limit). After a
restart every table's first click is answered at once: with no limit every answer in
flight opened a connection of its own (a TLS handshake each against Discord), about 15 % of
the bot's CPU until 1,000 tables had answered (bench/README.md, "Restart"); past the limit a
request waits for one of these, which are kept open and reused. Not fewer: an overloaded bot
has a few hundred requests in flight, and a click's answer waiting for a connection is sent
after Discord's 3 s (100: 188 and 440 late answers in two overloaded runs, 300: 77; restart
READY -> every table answering, same session: 100: 0.84 s, 300: 0.99 s, no limit: 1.58 s)."""


class UnoBot(commands.Bot):
    """The bot: one database connection, the game cogs, persistent buttons."""

    def __init__(self, config: Config) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=INTENTS,
            # The bot never reads a cached message (it only notes that one was posted):
            # caching a thousand busy channels' messages would cost memory and GC time.
            max_messages=None,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            connector=aiohttp.TCPConnector(limit=HTTP_CONNECTIONS),
        )
        self.config = config
        self._db: Database | None = None
        self.in_flight: Callable[[], int] = lambda: 0
        """How many interactions are being handled right now (the game extension sets it;
        the GC policy does not freeze survivors while any is)."""

    @property
    def db(self) -> Database:
        assert self._db is not None, "the database opens in setup_hook"
        return self._db

    async def setup_hook(self) -> None:
        self._db = await Database.open(self.config.database)
        # slash command names, descriptions and choices in each user's language
        await self.tree.set_translator(CatalogueTranslator())
        for ext in EXTENSIONS:
            try:
                await self.load_extension(ext)
            except commands.ExtensionError:
                log.exception("Extension %s failed to load; the others go on", ext)
        if self.config.dev_guild_id is not None:
            guild = discord.Object(id=self.config.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("Synced %d commands to guild %s", len(synced), self.config.dev_guild_id)
        else:
            synced = await self.tree.sync()
            log.info("Synced %d global commands", len(synced))
        # what start-up loaded (modules, restored games) stays: out of the collector's way
        gcwatch.settle()

    async def on_message(self, message: discord.Message, /) -> None:
        """Nothing: the bot has no text commands, so a message is never parsed for one (that
        cost 28 µs a message); the game cog's listener only counts it (a buried table)."""

    async def on_ready(self) -> None:
        user = self.user
        log.info("Ready as %s (%s) in %d servers", user, user.id if user else "?",
                 len(self.guilds))

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            if self._db is not None:
                await self._db.close()
                self._db = None

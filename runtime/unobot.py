"""The bot: one typed ``commands.AutoShardedBot`` with its settings, its database and the
extensions it loads by name (``EXTENSIONS``). bot.py (the entry point) builds and runs it;
the game's cogs type their ``bot`` with it.

It runs the shards of ``SHARD_IDS`` out of ``SHARD_COUNT`` (without them, every shard
Discord recommends) and serves only their servers (``fleet``: ``runtime/fleet.py``); the
processes of a fleet pace their IDENTIFYs through the fleet's lock, and only the process
that runs shard 0 syncs the commands."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import discord
import yarl
from discord.ext import commands

from data import Database
from runtime.collector import settle
from runtime.fleet import FleetLock, IdentifyPacer, Shards, local_locks
from runtime.metrics import NO_COUNTS, Counts, Metrics
from runtime.monitor import Monitor
from runtime.priority import PRIORITY
from runtime.translator import CatalogueTranslator
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


def fleet_lock_of(db: Database, config: Config) -> FleetLock:
    """The lock the processes of a fleet agree through. PostgreSQL: ``Database.fleet_lock``
    (an advisory lock per key, freed by the server if the process dies). SQLite: lock files
    beside the database file, so that processes sharing the file on one machine agree too
    (the SQLite backend's own ``fleet_lock`` is an asyncio lock, for one process)."""
    if config.database_url is not None:
        return db.fleet_lock
    return local_locks(config.database_path)


def shard_options(config: Config) -> dict[str, Any]:
    """AutoShardedBot's shard_count and shard_ids from the settings (none: Discord's
    recommended count, every shard here)."""
    options: dict[str, Any] = {}
    if config.shard_count is not None:
        options["shard_count"] = config.shard_count
    if config.shard_ids is not None:
        options["shard_ids"] = list(config.shard_ids)
    return options


class UnoBot(commands.AutoShardedBot):
    """The bot: one database connection, the game cogs, persistent buttons; the shards of
    this process."""

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
            **shard_options(config),
        )
        self.config = config
        self._db: Database | None = None
        self.fleet = Shards(config.shard_count or 1, config.shard_ids)
        """This process's shards (the count is Discord's recommendation when SHARD_COUNT
        is unset: known once setup_hook has asked)."""
        self.fleet_lock: FleetLock = local_locks(config.database_path)
        self.pacer = IdentifyPacer(self.fleet_lock, 1)
        self.metrics: Counts = Metrics() if config.metrics_port is not None else NO_COUNTS
        """What the bot counts, for /metrics (runtime/metrics.py; METRICS_PORT unset:
        nothing)."""
        self.monitor: Monitor | None = None
        """/healthz and /metrics (runtime/monitor.py), when METRICS_PORT is set."""

    @property
    def db(self) -> Database:
        assert self._db is not None, "the database opens in setup_hook"
        return self._db

    async def setup_hook(self) -> None:
        self._db = await Database.open(self.config.database)
        self.fleet_lock = fleet_lock_of(self._db, self.config)
        if self.config.metrics_port is not None:
            self.monitor = Monitor(self, lambda: self.fleet.mine)
            await self.monitor.start(self.config.metrics_host, self.config.metrics_port)
        await self._plan_shards()
        # slash command names, descriptions and choices in each user's language
        await self.tree.set_translator(CatalogueTranslator())
        for ext in EXTENSIONS:
            try:
                await self.load_extension(ext)
            except commands.ExtensionError:
                log.exception("Extension %s failed to load; the others go on", ext)
        if not self.fleet.leads:
            log.info("Commands: the process that runs shard 0 syncs them")
        elif self.config.dev_guild_id is not None:
            guild = discord.Object(id=self.config.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("Synced %d commands to guild %s", len(synced), self.config.dev_guild_id)
        else:
            synced = await self.tree.sync()
            log.info("Synced %d global commands", len(synced))
        # what start-up loaded (modules, restored games) stays: out of the collector's way
        settle()

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        # A click counts as waiting from the moment the gateway delivers it (clicks first,
        # runtime/priority.py): discord.py dispatches "interaction" as it parses the event,
        # before any handler runs.
        if event_name == "interaction" and args:
            interaction = args[0]
            if interaction.type is discord.InteractionType.component:
                PRIORITY.arrived(interaction.id)
        super().dispatch(event_name, *args, **kwargs)

    async def on_message(self, message: discord.Message, /) -> None:
        """The bot has no text commands: a message is never parsed for one (the game cog
        counts it: a table buried by chat)."""

    async def _plan_shards(self) -> None:
        """Ask Discord (``GET /gateway/bot``) for its recommended shard count (when
        SHARD_COUNT is unset) and the identify concurrency; fix this process's shards
        before the saved games are restored (only those of its servers)."""
        limits: dict[str, Any] = {}
        try:
            recommended, url, given = await self.http.get_bot_gateway()
            limits = dict(given)
        except discord.GatewayNotFound:
            if self.config.shard_count is None:
                raise  # discord.py could not start without it either
            log.warning("GET /gateway/bot failed: IDENTIFY paced one at a time")
            recommended, url = self.config.shard_count, ""
        if self.config.shard_count is None:
            self.shard_count = recommended
            self.fleet = Shards(recommended)
            if not self.config.gateway_url:
                # what discord.py does with the address when it asks for the count itself
                discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
        concurrency = int(limits.get("max_concurrency", 1))
        self.pacer = IdentifyPacer(self.fleet_lock, concurrency)
        log.info("Shards %s (%s); IDENTIFY: %d per 5 s, %d session starts left",
                 self.fleet.describe(),
                 "SHARD_COUNT" if self.config.shard_count else "Discord's recommendation",
                 concurrency, limits.get("remaining", -1))

    async def before_identify_hook(self, shard_id: int | None, *,
                                   initial: bool = False) -> None:
        # one IDENTIFY per bucket per 5 s in the whole fleet, not only in this process
        await self.pacer.turn(shard_id or 0)

    async def on_shard_connect(self, shard_id: int) -> None:
        # READY: the next IDENTIFY of this shard's bucket may come 5 s from now
        self.pacer.identified(shard_id)

    async def on_ready(self) -> None:
        user = self.user
        log.info("Ready as %s (%s): shards %s, %d servers", user, user.id if user else "?",
                 self.fleet.describe(), len(self.guilds))

    async def close(self) -> None:
        try:
            await super().close()
            await self.pacer.close()
        finally:
            if self.monitor is not None:
                await self.monitor.close()
                self.monitor = None
            if self._db is not None:
                await self._db.close()
                self._db = None

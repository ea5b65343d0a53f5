"""Entry point: `python bot.py` (settings from the environment or a .env file).

With no DISCORD_TOKEN (or with `--playground`) it opens the playground instead: this bot on
a local Discord (the `loopback` package) shown in a web page on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import logging
import os
import signal
import sys
from dataclasses import dataclass, field

import aiohttp
import discord
import yarl
from discord.ext import commands
from dotenv import load_dotenv

import gcwatch
from cogs.translator import CatalogueTranslator
from cogs.uno._outbox import GLOBAL_WRITES
from cogs.uno._reply import MAX_LAG, in_flight, limit_lag
from data import Database, DatabaseError
from gcwatch import GcWatch

log = logging.getLogger("unobot")

EXTENSIONS: tuple[str, ...] = ("cogs.uno",)

HTTP_CONNECTIONS = 300
"""Connections to Discord's HTTP API at most (discord.py's default: no limit). After a
restart every table's first click is answered at once: with no limit every answer in
flight opened a connection of its own (a TLS handshake each against Discord), about 15 % of
the bot's CPU until 1,000 tables had answered (bench/README.md, "Restart"); past the limit a
request waits for one of these, which are kept open and reused. Not fewer: an overloaded bot
has a few hundred requests in flight, and a click's answer waiting for a connection is sent
after Discord's 3 s (100: 188 and 440 late answers in two overloaded runs, 300: 77; restart
READY -> every table answering, same session: 100: 0.84 s, 300: 0.99 s, no limit: 1.58 s)."""

TOKEN_HELP = (
    "{problem} The bot needs a Discord bot token in DISCORD_TOKEN (in the environment or in "
    "a .env file beside bot.py; see .env.example). To get one: open the Discord Developer "
    "Portal (https://discord.com/developers/applications), create an application, open its "
    "Bot page, press Reset Token and copy the token; then invite the bot with the URL that "
    "README.md describes (scopes bot and applications.commands)."
)


class ConfigError(Exception):
    """A setting is missing or malformed; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Config:
    token: str = field(repr=False)
    database_path: str
    dev_guild_id: int | None
    log_level: str
    api_base: str | None
    gateway_url: str | None
    time_scale: float
    cpu_delay: float
    card_images: bool = True
    """Hand menus carry a picture of the hand (UNO_CARD_IMAGES=0 turns it off)."""
    card_emojis: bool = True
    """Card faces are uploaded as application emojis for the menus (UNO_CARD_EMOJIS=0: no)."""
    art_cache: str | None = None
    """Where drawn cards are kept between runs (UNO_ART_CACHE; memory only if unset)."""
    table_v2: bool = True
    """The live table is one Components V2 message with its picture (UNO_TABLE_V2=0: the
    embed table with a row of buttons)."""
    channel_writes: float = GLOBAL_WRITES
    """Channel writes per second for the whole process (UNO_CHANNEL_WRITES): Discord's
    global limit is 50 a second unless it raised the bot's."""
    max_lag_ms: int = round(MAX_LAG * 1000)
    """New clicks are answered "busy" while the event loop runs this late (UNO_MAX_LAG_MS;
    0: never)."""

    @classmethod
    def from_env(cls) -> Config:
        token = os.environ.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError(TOKEN_HELP.format(problem="DISCORD_TOKEN is not set."))
        if not looks_like_token(token):
            raise ConfigError(TOKEN_HELP.format(
                problem="DISCORD_TOKEN does not look like a bot token (three parts "
                        "separated by dots, the first one the bot's id)."))
        guild = os.environ.get("DEV_GUILD_ID", "").strip()
        if guild and not guild.isdigit():
            raise ConfigError("DEV_GUILD_ID must be a server id (digits only), or left empty.")
        level = os.environ.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ConfigError("LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL.")
        writes = _positive_float("UNO_CHANNEL_WRITES", GLOBAL_WRITES)
        if writes <= 0:
            raise ConfigError("UNO_CHANNEL_WRITES must be more than 0 (writes per second).")
        return cls(
            token=token,
            database_path=os.environ.get("DATABASE_PATH", "").strip() or "uno.db",
            dev_guild_id=int(guild) if guild else None,
            log_level=level,
            api_base=os.environ.get("DISCORD_API_BASE", "").strip() or None,
            gateway_url=os.environ.get("DISCORD_GATEWAY_URL", "").strip() or None,
            time_scale=_positive_float("UNO_TIME_SCALE", 1.0),
            cpu_delay=_positive_float("UNO_CPU_DELAY", 1.5),
            card_images=_flag("UNO_CARD_IMAGES", True),
            card_emojis=_flag("UNO_CARD_EMOJIS", True),
            art_cache=os.environ.get("UNO_ART_CACHE", "").strip() or None,
            table_v2=_flag("UNO_TABLE_V2", True),
            max_lag_ms=_whole_number("UNO_MAX_LAG_MS", round(MAX_LAG * 1000)),
            channel_writes=writes,
        )


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be 1 or 0 (on or off), not '{raw}'.")


def _whole_number(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()):
        raise ConfigError(f"{name} must be a whole number (0 or more), not '{raw}'.")
    return int(raw)


def _positive_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not '{raw}'.") from None
    if value < 0:
        raise ConfigError(f"{name} must not be negative.")
    return value


def looks_like_token(token: str) -> bool:
    """Discord bot tokens are three base64url parts; the first is the bot's user id."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        return False
    first = parts[0] + "=" * (-len(parts[0]) % 4)
    try:
        user_id = base64.urlsafe_b64decode(first).decode("ascii")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return user_id.isdigit()


def point_at(config: Config) -> None:
    """Send REST and gateway traffic to a Discord-compatible server when configured."""
    if config.api_base:
        discord.http.Route.BASE = config.api_base.rstrip("/")
    if config.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)


class UnoBot(commands.Bot):
    """The bot: one database connection, the game cogs, persistent buttons."""

    def __init__(self, config: Config) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            # The bot never reads a cached message (it only notes that one was posted):
            # caching a thousand busy channels' messages would cost memory and GC time.
            max_messages=None,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            connector=aiohttp.TCPConnector(limit=HTTP_CONNECTIONS),
        )
        self.config = config
        self._db: Database | None = None

    @property
    def db(self) -> Database:
        assert self._db is not None, "the database opens in setup_hook"
        return self._db

    async def setup_hook(self) -> None:
        self._db = await Database.open(self.config.database_path)
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


async def run(config: Config) -> None:
    point_at(config)
    bot = UnoBot(config)
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()

    def _stop() -> None:
        log.info("Signal received: closing")
        stopping.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, _stop)
    watch = GcWatch(os.environ.get("UNO_GC_STATS", "").strip() or None,
                    os.environ.get("UNO_GC_CENSUS", "").strip() or None,
                    freeze_after=gcwatch.freeze_after())
    watch.busy = lambda: in_flight() > 0
    limit_lag(config.max_lag_ms / 1000)
    watch.start()
    async with bot:
        runner = asyncio.create_task(bot.start(config.token))
        waiter = asyncio.create_task(stopping.wait())
        done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            waiter.cancel()
            runner.result()
        else:
            await bot.close()
            await asyncio.gather(runner, return_exceptions=True)
    watch.stop()
    log.info("Closed cleanly")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="UNO Power Grab for Discord. Without a DISCORD_TOKEN it opens the "
                    "playground: this bot on a local Discord, in your browser.")
    parser.add_argument("--playground", action="store_true",
                        help="open the playground even when DISCORD_TOKEN is set")
    parser.add_argument("--host", help="the playground's address (PLAYGROUND_HOST; default "
                        "127.0.0.1: anyone who can reach it can act as any user)")
    parser.add_argument("--port", type=int, help="the playground's port (PLAYGROUND_PORT; "
                        "default 8377, or any free port when that one is taken)")
    return parser.parse_args(argv)


async def run_playground(host: str, port: int | None, *, token_set: bool) -> None:
    """The unmodified bot, in this process, connected to a local Discord with a web page."""
    from loopback.playground import Playground

    playground = Playground(host=host, port=port,
                            database_path=os.environ.get("PLAYGROUND_DATABASE_PATH") or None)
    try:
        server = await playground.start()
        config = Config(
            token=server.token,
            database_path=playground.database_path,
            dev_guild_id=playground.guild.id,
            log_level=logging.getLevelName(logging.getLogger().level),
            api_base=server.api_base,
            gateway_url=server.gateway_url,
            time_scale=_positive_float("UNO_TIME_SCALE", 1.0),
            cpu_delay=_positive_float("UNO_CPU_DELAY", 1.5),
        )
        warning = playground.warning()
        if warning:
            sys.stderr.write(warning + "\n")
        sys.stdout.write(playground.announcement(token_set=token_set) + "\n")
        sys.stdout.flush()
        await run(config)
    finally:
        await playground.close()
    sys.stdout.write("The playground has stopped.\n")


def main_playground(args: argparse.Namespace, *, token_set: bool) -> int:
    from loopback.playground import PlaygroundError, settings_from_env

    level = os.environ.get("LOG_LEVEL", "").strip().upper() or "WARNING"
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        sys.stderr.write("LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL.\n")
        return 2
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        host, port = settings_from_env(args.host, args.port)
        asyncio.run(run_playground(host, port, token_set=token_set))
    except (PlaygroundError, DatabaseError) as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    except ConfigError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load_dotenv()
    token_set = bool(os.environ.get("DISCORD_TOKEN", "").strip())
    if args.playground or not token_set:
        # only a missing token opens the playground; a malformed one is still an error
        return main_playground(args, token_set=token_set)
    try:
        config = Config.from_env()
    except ConfigError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    logging.basicConfig(
        level=config.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        asyncio.run(run(config))
    except discord.LoginFailure:
        sys.stderr.write(TOKEN_HELP.format(problem="Discord refused the token.") + "\n")
        return 2
    except DatabaseError as exc:
        log.error("%s", exc)
        return 1
    except RuntimeError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

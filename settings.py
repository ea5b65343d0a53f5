"""The bot's settings: read once from the environment (or a .env file, which bot.py loads),
checked, and handed to the bot as one frozen :class:`Config`. Every module that needs a
setting gets it from the Config (the bot's ``config``); the defaults live here.

A missing or malformed setting is a :class:`ConfigError` whose message says what to do.
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

CHANNEL_WRITES = 30.0
"""Channel-route writes per second for the whole process (``UNO_CHANNEL_WRITES``; Discord's
global limit is 50 requests per second per bot, interaction endpoints excepted). Well below
it: discord.py holds a request back while its route's bucket is empty and then lets several
go at once, so writes paced at 40 a second were still seen to reach 51 in a second under
load."""
TABLE_BURY = 8
"""Messages posted below a game's table (by anyone, the bot's other messages included) after
which its next update posts it anew at the bottom and closes the old one
(``UNO_TABLE_BURY``; 0: any message below it). Counted from the gateway's MESSAGE_CREATE
events, no request: see ``cogs/uno/_outbox.py``, ``Outbox.seen``."""
METRICS_HOST = "0.0.0.0"
"""Where /healthz and /metrics listen by default: every interface (``Config.metrics_host``)."""
MAX_LAG_MS = 100
"""New clicks are answered "busy" while the event loop runs this many milliseconds late on
average (``UNO_MAX_LAG_MS``; 0: never): see ``cogs/uno/_reply.py``, ``MAX_LAG``."""

TOKEN_HELP = (
    "{problem} The bot needs a Discord bot token in DISCORD_TOKEN (in the environment or in "
    "a .env file beside bot.py; see .env.example). To get one: open the Discord Developer "
    "Portal (https://discord.com/developers/applications), create an application, open its "
    "Bot page, press Reset Token and copy the token; then invite the bot with the URL that "
    "README.md describes (scopes bot and applications.commands)."
)


DATABASE_URL_SHAPE = "postgresql://user:password@host:5432/database"


def database_url_problem(url: str) -> str | None:
    """Why ``url`` is not a usable PostgreSQL URL (``DATABASE_URL``), in one sentence, or
    None when it is. Checked before anything connects (data/postgres.py asks too)."""
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a port that is not a number 0-65535
    except ValueError as error:
        return f"DATABASE_URL is malformed ({error}); write it as {DATABASE_URL_SHAPE}."
    if parts.scheme.lower() not in ("postgresql", "postgres") or "://" not in url:
        return ("DATABASE_URL must start with postgresql://; write it as "
                f"{DATABASE_URL_SHAPE}, or leave it empty to use the SQLite file DATABASE_PATH.")
    if not parts.hostname:
        return f"DATABASE_URL names no server; write it as {DATABASE_URL_SHAPE}."
    if port == 0:
        return f"DATABASE_URL has port 0; write it as {DATABASE_URL_SHAPE}."
    if "/" in parts.path.strip("/") or parts.fragment:
        return f"DATABASE_URL names more than one database; write it as {DATABASE_URL_SHAPE}."
    return None


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
    channel_writes: float = CHANNEL_WRITES
    """Channel writes per second for the whole process (UNO_CHANNEL_WRITES): Discord's
    global limit is 50 a second unless it raised the bot's."""
    table_bury: int = TABLE_BURY
    """Messages below the table after which its next update posts it anew at the bottom
    (UNO_TABLE_BURY; 0: any)."""
    max_lag_ms: int = MAX_LAG_MS
    """New clicks are answered "busy" while the event loop runs this late (UNO_MAX_LAG_MS;
    0: never)."""
    uvloop: bool = True
    """Run the event loop on uvloop when it is installed (UNO_UVLOOP=0: asyncio's own)."""
    database_url: str | None = field(default=None, repr=False)
    """A PostgreSQL server shared by several bot processes (DATABASE_URL); None: the SQLite
    file ``database_path``. Not in ``repr``: it may hold a password."""
    shard_count: int | None = None
    """Discord's shard count for the whole fleet (SHARD_COUNT); None: the count Discord
    recommends (``GET /gateway/bot``), every shard in this process."""
    shard_ids: tuple[int, ...] | None = None
    """The shards this process runs (SHARD_IDS, e.g. ``0-3`` or ``4,5``); None: all of
    ``shard_count``."""

    search_workers: int = 1
    """Worker processes where hard computer players search (UNO_SEARCH_WORKERS; 0: hard
    players play as normal ones)."""
    metrics_port: int | None = None
    """The port of ``/healthz`` and ``/metrics`` (METRICS_PORT, runtime/monitor.py); None:
    no such server, and nothing is counted."""
    metrics_host: str = METRICS_HOST
    """The address that server listens on (METRICS_HOST): every interface by default, so
    that a container's health check, Kubernetes' probes and Prometheus, which all come from
    outside the process's own 127.0.0.1 in a pod, reach it. It tells counts and health,
    never a game's contents nor a setting: don't publish it to the Internet all the same."""
    log_format: str = "text"
    """``text`` (readable lines) or ``json`` (one JSON object a line, LOG_FORMAT:
    runtime/logs.py)."""

    @property
    def database(self) -> str:
        """What ``Database.open`` opens: the PostgreSQL URL if set, else the SQLite file."""
        return self.database_url or self.database_path

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
        database_url = os.environ.get("DATABASE_URL", "").strip() or None
        if database_url is not None:
            problem = database_url_problem(database_url)
            if problem is not None:
                raise ConfigError(problem)
        writes = positive_float("UNO_CHANNEL_WRITES", CHANNEL_WRITES)
        if writes <= 0:
            raise ConfigError("UNO_CHANNEL_WRITES must be more than 0 (writes per second).")
        shard_count, shard_ids = _shards()
        metrics_port = _port("METRICS_PORT")
        log_format = os.environ.get("LOG_FORMAT", "").strip().lower() or "text"
        if log_format not in ("text", "json"):
            raise ConfigError(f"LOG_FORMAT must be text or json, not '{log_format}'.")
        return cls(
            token=token,
            database_path=os.environ.get("DATABASE_PATH", "").strip() or "uno.db",
            dev_guild_id=int(guild) if guild else None,
            log_level=level,
            api_base=os.environ.get("DISCORD_API_BASE", "").strip() or None,
            gateway_url=os.environ.get("DISCORD_GATEWAY_URL", "").strip() or None,
            time_scale=positive_float("UNO_TIME_SCALE", 1.0),
            cpu_delay=positive_float("UNO_CPU_DELAY", 1.5),
            card_images=_flag("UNO_CARD_IMAGES", True),
            card_emojis=_flag("UNO_CARD_EMOJIS", True),
            art_cache=os.environ.get("UNO_ART_CACHE", "").strip() or None,
            table_v2=_flag("UNO_TABLE_V2", True),
            max_lag_ms=_whole_number("UNO_MAX_LAG_MS", MAX_LAG_MS),
            table_bury=_whole_number("UNO_TABLE_BURY", TABLE_BURY),
            channel_writes=writes,
            uvloop=_flag("UNO_UVLOOP", True),
            database_url=database_url,
            shard_count=shard_count,
            shard_ids=shard_ids,
            search_workers=_whole_number("UNO_SEARCH_WORKERS", 1),
            metrics_port=metrics_port,
            metrics_host=os.environ.get("METRICS_HOST", "").strip() or METRICS_HOST,
            log_format=log_format,
        )


def _shards() -> tuple[int | None, tuple[int, ...] | None]:
    """SHARD_COUNT and SHARD_IDS, checked together (Discord closes a connection whose
    shard is not below the count with 4010: this says so before connecting)."""
    raw_count = os.environ.get("SHARD_COUNT", "").strip()
    raw_ids = os.environ.get("SHARD_IDS", "").strip()
    if not raw_count:
        if raw_ids:
            raise ConfigError(f"SHARD_IDS={raw_ids} needs SHARD_COUNT (the fleet's number "
                              "of shards), e.g. SHARD_COUNT=4 SHARD_IDS=0-1.")
        return None, None
    if not (raw_count.isascii() and raw_count.isdigit()) or int(raw_count) < 1:
        raise ConfigError(f"SHARD_COUNT must be a whole number of 1 or more, not "
                          f"'{raw_count}'.")
    count = int(raw_count)
    if not raw_ids:
        return count, None
    ids = parse_shard_ids(raw_ids)
    if ids is None:
        raise ConfigError(f"SHARD_IDS must be shard numbers and ranges separated by "
                          f"commas (e.g. 0-3 or 4,5), not '{raw_ids}'.")
    wrong = [i for i in ids if i >= count]
    if wrong:
        raise ConfigError(f"SHARD_IDS={raw_ids} names shard {wrong[0]}, but SHARD_COUNT="
                          f"{count} numbers the shards 0 to {count - 1}.")
    return count, ids


def parse_shard_ids(raw: str) -> tuple[int, ...] | None:
    """``0-3`` -> (0, 1, 2, 3); ``4,5`` -> (4, 5); ``0-1,6`` -> (0, 1, 6); sorted, each
    once. None when ``raw`` is not that shape (a range backwards counts as malformed)."""
    found: set[int] = set()
    for part in raw.split(","):
        part = part.strip()
        first, dash, last = part.partition("-")
        first, last = first.strip(), last.strip()
        if not (first.isascii() and first.isdigit()):
            return None
        if not dash:
            found.add(int(first))
            continue
        if not (last.isascii() and last.isdigit()) or int(last) < int(first):
            return None
        found.update(range(int(first), int(last) + 1))
    return tuple(sorted(found))


def _port(name: str) -> int | None:
    """A TCP port from 1 to 65535, or None when unset."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or not 0 < int(raw) < 65536:
        raise ConfigError(f"{name} must be a port number from 1 to 65535, not '{raw}'.")
    return int(raw)


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


def positive_float(name: str, default: float) -> float:
    """The environment variable ``name`` as a number of 0 or more (``default`` if unset)."""
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

"""``/healthz`` and ``/metrics`` on a port of their own (``METRICS_PORT``; none by default),
served by aiohttp in the bot's event loop.

``/healthz`` answers 200 "ok" when the event loop turns (it answers at all, and its
lag ticker ran within ``STALLED`` seconds), every shard of this process is connected
(READY or RESUMED since its last disconnect: discord.py's ``on_shard_*`` events) and the
database answers a trivial query within ``DB_TIMEOUT`` seconds (``Database.ping``); else
503 with the reasons, one a line. For compose's health check and Kubernetes' probes.

``/metrics`` is the bot's registry (runtime/metrics.py) in Prometheus's text format. What
this module measures for it itself: the event loop's lag (a tick every ``TICK`` seconds,
how late it ran), each shard's gateway latency (``AutoShardedBot.latencies``, read at each
scrape), and Discord's 429s by route, from the warning discord.py logs each time it waits
one out (its public logging: a 429 is invisible otherwise, since discord.py retries it by
itself; its webhook adapter, which answers interactions and edits through their tokens,
names no route: those are counted under ``WEBHOOK_ROUTE``). LOG_LEVEL=ERROR or above
silences that warning, and so the count.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from runtime.metrics import Counts, route_of

if TYPE_CHECKING:
    from data import Database

log = logging.getLogger(__name__)

TICK = 0.25
"""Seconds between the lag ticker's ticks."""
STALLED = 10.0
"""A tick this late (or none for this long) makes /healthz say the event loop is stuck."""
DB_TIMEOUT = 5.0
"""Seconds the database has to answer /healthz's query."""
RATE_LIMITED = "We are being rate limited."
"""How discord.py's warning of a 429 starts (discord/http.py); its arguments: the method,
the URL, the seconds it waits."""
WEBHOOK_LIMITED = " is rate limited. Retrying in "
"""The middle of its webhook adapter's warning of a 429 (discord/webhook/async_.py: an
interaction's answer, a followup, a hand panel's edit through its token), which names the
webhook, not the route: counted under the route ``WEBHOOK_ROUTE``."""
WEBHOOK_ROUTE = "/webhooks/{id}/{token}"
LIMITED_LOGGERS = ("discord.http", "discord.webhook.async_")
"""discord.py's loggers that warn of a 429: its HTTP client's and its webhook adapter's."""


class MonitoredBot(Protocol):
    """What the monitor needs of the bot (``runtime.unobot.UnoBot``)."""

    metrics: Counts

    @property
    def db(self) -> Database: ...

    @property
    def latencies(self) -> list[tuple[int, float]]: ...

    def add_listener(self, func: Callable[..., Coroutine[Any, Any, Any]],
                     name: str = ...) -> None: ...

    def remove_listener(self, func: Callable[..., Coroutine[Any, Any, Any]],
                        name: str = ...) -> None: ...


class RateLimitCounter(logging.Filter):
    """Counts discord.py's 429 warnings by route (a filter on the ``discord.http`` logger
    that lets every record through)."""

    def __init__(self, counts: Counts) -> None:
        super().__init__()
        self.counts = counts

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or not isinstance(record.msg, str):
            return True
        if (record.msg.startswith(RATE_LIMITED) and isinstance(record.args, tuple)
                and len(record.args) >= 2):
            self.counts.rate_limited(route_of(str(record.args[1])))
        elif record.msg.startswith("Webhook ID ") and WEBHOOK_LIMITED in record.msg:
            self.counts.rate_limited(WEBHOOK_ROUTE)
        return True


class Monitor:
    """The health and metrics server of one bot, its lag ticker and its shard watch."""

    def __init__(self, bot: MonitoredBot, shards: Callable[[], Iterable[int]]) -> None:
        self.bot = bot
        self.counts = bot.metrics
        self.shards = shards
        """This process's shards (asked each time: known once Discord was asked)."""
        self.connected: set[int] = set()
        self.last_tick = time.monotonic()
        self._ticker: asyncio.TimerHandle | None = None
        self._runner: web.AppRunner | None = None
        self._limits = RateLimitCounter(self.counts)
        self.port: int | None = None
        """The port listened on (the one asked, or the one given for port 0)."""

    # --- what /healthz checks ---------------------------------------------------------------

    async def _up(self, shard_id: int) -> None:
        self.connected.add(shard_id)

    async def _down(self, shard_id: int) -> None:
        self.connected.discard(shard_id)

    def _tick(self, due: float) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.counts.lag(max(0.0, now - due))
        self.last_tick = time.monotonic()
        self._ticker = loop.call_at(now + TICK, self._tick, now + TICK)

    async def problems(self) -> list[str]:
        """What is wrong, one sentence each; empty when healthy."""
        found = []
        quiet = time.monotonic() - self.last_tick
        if quiet > STALLED:
            found.append(f"the event loop ran its lag tick {quiet:.1f} s ago")
        down = [s for s in self.shards() if s not in self.connected]
        if down:
            found.append(f"shard {', '.join(map(str, down))} not connected to the gateway")
        try:
            await asyncio.wait_for(self.bot.db.ping(), DB_TIMEOUT)
        except TimeoutError:
            found.append(f"the database did not answer within {DB_TIMEOUT:.0f} s")
        except Exception as exc:  # any failure to answer is the answer
            found.append(f"the database did not answer: {exc}")
        return found

    # --- the server ---------------------------------------------------------------------------

    async def healthz(self, request: web.Request) -> web.Response:
        problems = await self.problems()
        if problems:
            return web.Response(status=503, text="\n".join(problems) + "\n")
        return web.Response(text="ok\n")

    async def metrics(self, request: web.Request) -> web.Response:
        body = self.counts.exposition()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host``:``port``, start the ticker, follow the shards."""
        for name in ("on_shard_connect", "on_shard_resumed"):
            self.bot.add_listener(self._up, name)
        self.bot.add_listener(self._down, "on_shard_disconnect")
        self.counts.gateway(lambda: self.bot.latencies)
        for name in LIMITED_LOGGERS:
            logging.getLogger(name).addFilter(self._limits)
        loop = asyncio.get_running_loop()
        self._ticker = loop.call_at(loop.time() + TICK, self._tick, loop.time() + TICK)
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/metrics", self.metrics)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            await self.close()
            raise RuntimeError(f"/healthz and /metrics could not listen on {host}:{port} "
                               f"({exc.strerror or exc}); choose another METRICS_PORT or "
                               "METRICS_HOST.") from None
        self.port = port
        for address in self._runner.addresses:
            if isinstance(address, tuple) and len(address) >= 2:
                self.port = int(address[1])
        log.info("Health and metrics on http://%s:%d (/healthz, /metrics)", host, self.port)

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        for name in LIMITED_LOGGERS:
            logging.getLogger(name).removeFilter(self._limits)
        for name in ("on_shard_connect", "on_shard_resumed"):
            self.bot.remove_listener(self._up, name)
        self.bot.remove_listener(self._down, "on_shard_disconnect")
        if self._runner is not None:
            runner, self._runner = self._runner, None
            with contextlib.suppress(Exception):
                await runner.cleanup()
